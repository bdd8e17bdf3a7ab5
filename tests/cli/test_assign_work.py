"""``judgepool assign`` follows the work: it hands out only items without a
current grade (from a person or an import; --include-judged for re-judging),
--extend keeps every existing row and assigns only what is new, a plain
re-assign says what moved (and whose graded items went to someone else),
--settle N assigns the first N holes in settle order (a budget that --extend
--settle M tops up to M open items), and too few items for
every pair to share one is a warning with the numbers. The real command on
real workspace files."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from tests.cli.conftest import ranked, write_qrels, write_run
from tests.cli.test_team_cli import DOCS, assigned_rows, grade, judgepool, refused, run

TEAM = "alice,bob,carol"


def pooled_workspace(path: Path, depth: int) -> Path:
    """Three queries of twelve ranked documents, pooled to ``depth``."""
    assert run("init", path).exit_code == 0
    rows = [row for query, docs in DOCS.items() for row in ranked(query, docs)]
    write_run(path.with_name("bm25.run"), rows)
    assert run("import", path, "run", path.with_name("bm25.run")).exit_code == 0
    assert run("pool", path, "--depth", str(depth)).exit_code == 0
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """Every document pooled: 36 items."""
    return pooled_workspace(tmp_path / "team.sqlite", 12)


@pytest.fixture
def growing(tmp_path: Path) -> Path:
    """Pooled to depth 6 (18 items): the pool grows later."""
    return pooled_workspace(tmp_path / "grow.sqlite", 6)


def items_of(rows: list[tuple[str, str, str]], who: str) -> set[tuple[str, str]]:
    return {(query, doc) for name, query, doc in rows if name == who}


def test_only_unjudged_items_are_handed_out_unless_asked(ws: Path, tmp_path: Path) -> None:
    # the imported qrels judge q1 whole; alice graded one item of q2, bob is unsure of one
    write_qrels(tmp_path / "old.qrels", {"q1": dict.fromkeys(DOCS["q1"], 1)})
    assert run("import", ws, "qrels", tmp_path / "old.qrels").exit_code == 0
    grade(ws, "alice", {"q2d00": 2})
    grade(ws, "bob", {"q2d01": None})  # unsure is not a grade: still to hand out
    done = judgepool("assign", ws, "--annotators", "dan,erin", "--overlap", "1")
    assert done.returncode == 0, done.stderr
    assert "23 items with 1 annotator each; items per annotator: dan 12, erin 11" in done.stdout
    assert (
        "13 pooled items already judged were not assigned (--include-judged assigns them too)"
        in done.stdout
    )
    handed = {(query, doc) for _, query, doc in assigned_rows(ws, 1)}
    assert len(handed) == 23
    assert all(query != "q1" for query, _ in handed) and ("q2", "q2d00") not in handed
    assert ("q2", "q2d01") in handed

    again = judgepool(
        "assign", ws, "--annotators", "dan,erin", "--overlap", "1", "--include-judged"
    )
    assert "36 items with 1 annotator each" in again.stdout
    assert "already judged" not in again.stdout


def test_nothing_left_to_assign_is_refused_and_keeps_the_queues(ws: Path, tmp_path: Path) -> None:
    assert run("assign", ws, "--annotators", "dan,erin", "--overlap", "1").exit_code == 0
    write_qrels(tmp_path / "all.qrels", {q: dict.fromkeys(docs, 0) for q, docs in DOCS.items()})
    assert run("import", ws, "qrels", tmp_path / "all.qrels").exit_code == 0
    message = refused(judgepool("assign", ws, "--annotators", "dan,erin", "--overlap", "1"))
    assert "nothing to assign: of 36 pooled items, 36 already judged" in message
    assert "--include-judged assigns judged items too" in message
    assert len(assigned_rows(ws, 1)) == 36 and assigned_rows(ws, 2) == []


def test_a_plain_reassign_says_whose_graded_items_went_to_someone_else(growing: Path) -> None:
    assert run("assign", growing, "--annotators", TEAM, "--overlap", "2").exit_code == 0
    first = assigned_rows(growing, 1)
    alice = items_of(first, "alice")
    assert len(alice) == 12
    grade(growing, "alice", {doc: 2 for _, doc in alice})
    assert run("pool", growing, "--depth", "12").exit_code == 0

    done = judgepool(
        "assign", growing, "--annotators", TEAM, "--overlap", "2", "--include-judged",
        "--seed", "4",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    second = assigned_rows(growing, 2)
    kept = alice & items_of(second, "alice")
    elsewhere = {item for item in alice - kept if any(row[1:] == item for row in second)}
    assert elsewhere  # the reshuffle the issue saw: alice's done work handed to others
    lines = done.stdout.splitlines()
    assert "what moved, against assignment #1:" in lines
    added = len(items_of(second, "alice") - alice)
    assert (
        f"  alice: kept {len(kept)}, added {added}, removed {len(alice - kept)} "
        f"({len(elsewhere)} of them graded by alice, now someone else's)"
    ) in lines

    # without --include-judged, the graded items stay out of the new assignment
    plain = judgepool("assign", growing, "--annotators", TEAM, "--overlap", "2", "--seed", "4")
    assert "12 pooled items already judged were not assigned" in plain.stdout
    assert not items_of(assigned_rows(growing, 3), "alice") & alice
    assert "now someone else's" not in plain.stdout


def test_extend_keeps_every_row_and_assigns_only_the_new_items(growing: Path) -> None:
    assert run("assign", growing, "--annotators", TEAM, "--overlap", "2").exit_code == 0
    first = assigned_rows(growing, 1)
    alice = items_of(first, "alice")
    grade(growing, "alice", {doc: 1 for _, doc in sorted(alice)[:5]})  # some done, some not
    assert run("pool", growing, "--depth", "12").exit_code == 0

    done = judgepool("assign", growing, "--extend")
    assert done.returncode == 0, done.stderr
    second = assigned_rows(growing, 2)
    assert set(first) <= set(second)
    per_item = Counter((query, doc) for _, query, doc in second)
    assert len(per_item) == 36 and set(per_item.values()) == {2}
    assert Counter(who for who, _, _ in second) == {"alice": 24, "bob": 24, "carol": 24}
    out = done.stdout.splitlines()
    assert out[0].startswith("extends assignment #1 of ")
    assert out[1].startswith("stored assignment #2 of ")
    assert "18 new items with 2 annotators each; items per annotator in all: " in out[2]
    assert "  alice: kept 12, added 12" in out
    assert "removed" not in done.stdout
    progress = {
        p["annotator"]: p for p in json.loads(run("progress", growing, "--format", "json").stdout)
    }
    assert progress["alice"]["assigned"] == 24 and progress["alice"]["graded"] == 5

    # a newcomer joins: the next items go to them first
    assert run("pool", growing, "--depth", "12").exit_code == 0  # nothing new
    same = run("assign", growing, "--extend")
    assert same.stdout.startswith("nothing new to assign: assignment #2 of ")
    assert assigned_rows(growing, 3) == []
    assert "--extend keeps the overlap of assignment #2, 2; --overlap 3 differs" in refused(
        judgepool("assign", growing, "--extend", "--overlap", "3")
    )
    assert "--extend keeps assignment #2 by item; --by query differs" in refused(
        judgepool("assign", growing, "--extend", "--by", "query")
    )
    assert "assign needs --overlap" in refused(judgepool("assign", growing, "--annotators", TEAM))


def test_extend_by_query_gives_a_query_s_new_items_to_its_annotators(growing: Path) -> None:
    done = run("assign", growing, "--annotators", TEAM, "--overlap", "1", "--by", "query")
    assert done.exit_code == 0, done.output
    owner = {query: who for who, query, _ in assigned_rows(growing, 1)}
    assert run("pool", growing, "--depth", "12").exit_code == 0
    extended = run("assign", growing, "--extend")
    assert extended.exit_code == 0, extended.output
    assert "0 new queries with 1 annotator each" in extended.stdout
    assert "18 new items of queries already assigned went to the annotators" in extended.stdout
    rows = assigned_rows(growing, 2)
    assert len(rows) == 36 and all(owner[query] == who for who, query, _ in rows)


def test_settle_assigns_the_first_holes_in_settle_order(tmp_path: Path) -> None:
    path = tmp_path / "settle.sqlite"
    assert run("init", path).exit_code == 0
    docs = [f"d{i:02d}" for i in range(12)]
    write_run(tmp_path / "a.run", [row for q in ("q1", "q2") for row in ranked(q, docs)], "a")
    write_run(tmp_path / "b.run", [row for q in ("q1", "q2") for row in ranked(q, docs[::-1])], "b")
    for name in ("a", "b"):
        assert run("import", path, "run", tmp_path / f"{name}.run").exit_code == 0
    # judged: a's top 2 in both queries; pooled: a's top 3 alone, so b's holes are not
    write_qrels(tmp_path / "seen.qrels", {q: {"d00": 3, "d01": 0} for q in ("q1", "q2")})
    assert run("import", path, "qrels", tmp_path / "seen.qrels").exit_code == 0
    assert run("pool", path, "--runs", "a", "--depth", "3").exit_code == 0
    listed = judgepool(
        "holes", "--workspace", path, "--order", "settle", "--unjudged", "zero", "--format", "json"
    )
    assert listed.returncode == 0, listed.stderr
    holes = [(entry["query_id"], entry["doc_id"]) for entry in json.loads(listed.stdout)]
    first = [hole for hole in holes if hole[1] == "d02"]  # the pooled holes, in settle order
    assert len(first) == 2 and holes[0] not in first  # b's top documents come first

    done = judgepool("assign", path, "--annotators", "alice,bob", "--overlap", "1", "--settle", "3")
    assert done.returncode == 0, done.stderr
    assert sorted((q, d) for _, q, d in assigned_rows(path, 1)) == sorted(first)
    assert (
        f"--settle 3: the first 2 of {len(holes)} holes in settle order (only 2 could be); "
        f"passed over: {len(holes) - 2} not pooled"
    ) in done.stdout

    # pooled deeper, a budget of 4 open items: the 2 still open and the next 2
    # holes in settle order, the assigned ones passed over
    assert run("pool", path, "--depth", "12").exit_code == 0
    more = judgepool("assign", path, "--extend", "--settle", "4")
    assert more.returncode == 0, more.stderr
    taken = [hole for hole in holes if hole not in first][:2]
    assert sorted((q, d) for _, q, d in assigned_rows(path, 2)) == sorted(first + taken)
    assert "settle budget 4: 2 assigned items still open, so 2 more\n" in more.stdout
    skipped = sum(1 for hole in holes[: holes.index(taken[-1])] if hole in first)
    line = f"the first 2 of {len(holes)} holes in settle order"
    line += f"; passed over: {skipped} already assigned" if skipped else "\n"
    assert line in more.stdout
    assert "cannot be by query" in refused(
        judgepool("assign", path, "--annotators", "a,b", "--overlap", "1", "--settle", "3",
                  "--by", "query")
    )  # fmt: skip


def test_settle_on_a_freshly_pooled_workspace_assigns_its_holes(tmp_path: Path) -> None:
    """Before the first grade every pooled document is a hole, as ``holes
    --workspace`` lists them; ``assign --settle`` said there was none."""
    path = pooled_workspace(tmp_path / "fresh.sqlite", depth=4)
    listed = judgepool("holes", "--workspace", path, "--order", "settle", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    holes = [(entry["query_id"], entry["doc_id"]) for entry in json.loads(listed.stdout)]
    assert len(holes) == 3 * 10  # every document of each top 10
    pooled = [hole for hole in holes if int(hole[1][-2:]) < 4]  # the top 4, pooled
    done = judgepool("assign", path, "--annotators", "alice,bob", "--overlap", "1", "--settle", "5")
    assert done.returncode == 0, done.stderr
    assert sorted((q, d) for _, q, d in assigned_rows(path, 1)) == sorted(pooled[:5])


def test_too_few_items_for_every_pair_is_a_warning_with_the_numbers(ws: Path) -> None:
    names = ",".join(f"a{i:02d}" for i in range(30))
    done = judgepool("assign", ws, "--annotators", names, "--overlap", "2")
    assert done.returncode == 0, done.stderr
    groups: dict[tuple[str, str], set[str]] = {}
    for who, query, doc in assigned_rows(ws, 1):
        groups.setdefault((query, doc), set()).add(who)
    shared = {pair for group in groups.values() for pair in combinations(sorted(group), 2)}
    assert done.stderr.strip() == (
        f"warning: {435 - len(shared)} of 435 pairs of annotators share no item, so their "
        "agreement cannot be measured: 30 annotators at overlap 2 need at least 435 items for "
        "every pair to share one (36 assigned)"
    )
    enough = judgepool("assign", ws, "--annotators", TEAM, "--overlap", "2")
    assert enough.returncode == 0 and enough.stderr == ""
    single = judgepool("assign", ws, "--annotators", names, "--overlap", "1")
    assert single.stderr == ""  # at overlap 1 no pair is meant to share
