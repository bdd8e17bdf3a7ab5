"""Scoring runs: one dispatch between the engines, whatever the run's source.

A run file and the same run stored in a workspace give the same numbers and
digests under either engine; the refusals (an empty run, an unknown engine,
a workspace's own file) are the same whichever source is read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import InputError
from judgepool.services.imports import import_run
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.scoring import score_run
from judgepool.services.runs.sources import file_source, has_run, run_names, stored_source
from judgepool.services.workspace import Workspace, init_workspace
from tests.compare import assert_same_evaluation

RUN = "q1 Q0 a 1 3.0 s\nq1 Q0 x 2 2.0 s\nq1 Q0 b 3 2.0 s\nq2 Q0 c 1 1.0 s\nq9 Q0 z 1 1.0 s\n"
JUDGMENTS = {"q1": {"a": 3, "b": 1, "c": 2}, "q2": {"c": 1}, "q3": {"d": 2}}
CONTRACT = Contract(k=3, unjudged="zero")


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    (tmp_path / "sys.trec").write_text(RUN)
    with init_workspace(tmp_path / "w.sqlite") as workspace:
        import_run(workspace, tmp_path / "sys.trec")
        yield workspace


def _all_four(ws: Workspace, path: Path) -> list[ScoredRun]:
    return [
        score_run(source, JudgmentsSource(JUDGMENTS, "qrels"), CONTRACT, engine=engine)
        for source in (file_source(path), stored_source(ws, "sys"))
        for engine in ("fast", "reference")
    ]


def test_a_file_and_its_stored_run_score_alike_under_both_engines(
    ws: Workspace, tmp_path: Path
) -> None:
    results = _all_four(ws, tmp_path / "sys.trec")
    first = results[0]
    for result in results[1:]:
        assert_same_evaluation(first.evaluation, result.evaluation)
        assert result.run_digest == first.run_digest
        assert result.qrels_digest == "qrels"
    assert [r.engine for r in results] == ["fast", "reference", "fast", "reference"]
    assert [r.run for r in results] == [str(tmp_path / "sys.trec")] * 2 + ["sys"] * 2
    assert first.evaluation.unknown_queries == ("q9",)
    assert first.evaluation.missing_queries == ("q3",)


def test_stages_are_reported_in_order(ws: Workspace) -> None:
    stages: list[str] = []
    score_run(
        stored_source(ws, "sys"),
        JudgmentsSource(JUDGMENTS, "qrels"),
        CONTRACT,
        on_progress=stages.append,
    )
    assert stages == ["reading sys", "scoring sys"]


def test_refusals_are_the_same_for_every_source(ws: Workspace, tmp_path: Path) -> None:
    empty = tmp_path / "empty.trec"
    empty.write_text("")
    for engine in ("fast", "reference"):
        with pytest.raises(InputError, match="has no run lines"):
            score_run(
                file_source(empty), JudgmentsSource(JUDGMENTS, "qrels"), CONTRACT, engine=engine
            )
    with pytest.raises(ValueError, match="engine must be one of fast, reference"):
        score_run(
            stored_source(ws, "sys"), JudgmentsSource(JUDGMENTS, "qrels"), CONTRACT, engine="quick"
        )
    with pytest.raises(InputError, match="no run named 'nope'"):
        score_run(stored_source(ws, "nope"), JudgmentsSource(JUDGMENTS, "qrels"), CONTRACT)
    with pytest.raises(InputError):
        file_source(ws.path)  # the workspace's own file is never read as a run


def test_the_workspace_names_its_runs(ws: Workspace) -> None:
    assert run_names(ws) == ["sys"]
    assert has_run(ws, "sys") and not has_run(ws, "other")
