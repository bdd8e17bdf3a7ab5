"""Pools: the top documents of each run in trec_eval's order, every run and rank
that brought a document in recorded, and a pool that only grows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.services.imports import import_run
from judgepool.services.pools import pool
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.pools import pool_members


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with init_workspace(tmp_path / "w.sqlite") as workspace:
        yield workspace


def test_pool_takes_the_top_depth_in_trec_eval_order_and_records_sources(
    ws: Workspace, tmp_path: Path
) -> None:
    a = tmp_path / "a.run"
    # scores tie at 2.0: trec_eval breaks ties by doc ID descending, so dz before da;
    # the rank column (deliberately wrong) is ignored; d1 repeated keeps its first place
    a.write_text(
        "q1 Q0 da 1 2.0 a\nq1 Q0 dz 2 2.0 a\nq1 Q0 d1 3 5.0 a\nq1 Q0 d1 4 0.5 a\n"
        "q1 Q0 d9 5 0.1 a\nq2 Q0 e1 1 1.0 a\n"
    )
    b = tmp_path / "b.run"
    b.write_text("q1 Q0 dz 1 9.0 b\nq1 Q0 dq 2 8.0 b\nq3 Q0 f1 1 1.0 b\n")
    import_run(ws, a)
    import_run(ws, b)
    first = pool(ws, depth=2, runs=["a"])
    assert (first.added, first.members, first.queries) == (3, 3, 2)
    members = {(m.query_id, m.doc_id): m.sources for m in pool_members(ws, "default")}
    assert set(members) == {("q1", "d1"), ("q1", "dz"), ("q2", "e1")}
    assert [(s.run, s.rank) for s in members[("q1", "d1")]] == [("a", 1)]
    assert [(s.run, s.rank) for s in members[("q1", "dz")]] == [("a", 2)]

    # extending: deeper and with another run keeps every member, adds the new ones
    second = pool(ws, depth=3)
    assert second.runs == ("a", "b")
    members = {(m.query_id, m.doc_id): m.sources for m in pool_members(ws, "default")}
    assert set(members) == {
        ("q1", "d1"),
        ("q1", "dz"),
        ("q1", "da"),
        ("q1", "dq"),
        ("q2", "e1"),
        ("q3", "f1"),
    }
    assert second.added == 3
    # dz came in through a at rank 2 (depth 2); b also brings it, at rank 1
    assert [(s.run, s.rank, s.depth) for s in members[("q1", "dz")]] == [
        ("b", 1, 3),
        ("a", 2, 2),
    ]
    # a shallower pass adds nothing and removes nothing
    third = pool(ws, depth=1)
    assert (third.added, third.members) == (0, 6)


def test_pool_refuses_bad_depth_and_unknown_runs(ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no runs"):
        pool(ws, depth=3)
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 1 a\n")
    import_run(ws, tmp_path / "a.run")
    with pytest.raises(InputError, match="no run named 'zz' in the workspace; known runs: 'a'"):
        pool(ws, depth=3, runs=["zz"])
    with pytest.raises(InputError, match="positive"):
        pool(ws, depth=0)
