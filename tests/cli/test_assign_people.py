"""Assignments follow the people's work, replayed on TREC DL 2020: an item
only a model labelled is still to grade (a model's label is evidence, not a
judgment), so it goes to people, also when extending and by settle order;
``--settle N`` is a budget that ``--extend`` keeps and tops up (it used to
add every new hole); ``progress`` counts grades against the current
assignment and the others apart (it counted every grade ever given). The
real command on real workspace files."""

from __future__ import annotations

import json
from pathlib import Path

from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from tests.cli.conftest import write_qrels
from tests.cli.test_team_cli import assigned_rows, run
from tests.dl20_support import dl20_grades, dl20_workspace


def pooled(path: Path) -> list[tuple[str, str]]:
    with open_workspace(path) as ws:
        return [
            (str(q), str(d))
            for q, d in ws.conn.execute(
                "SELECT DISTINCT query_id, doc_id FROM pool_members ORDER BY query_id, doc_id"
            )
        ]


def nist(item: tuple[str, str]) -> int:
    """NIST's grade of a DL20 item (0 where NIST did not judge it)."""
    return dl20_grades(item[0]).get(item[1], 0)


def people_grade(path: Path, grades: dict[str, list[tuple[str, str]]]) -> None:
    """Each person grades their items with NIST's grades, as the app does."""
    with open_workspace(path) as ws:
        for who, items in grades.items():
            for query_id, doc_id in items:
                judge(ws, query_id, doc_id, nist((query_id, doc_id)), annotator=who)


def model_labels(path: Path, items: list[tuple[str, str]]) -> None:
    """A model's labels of ``items`` (NIST's grades), imported as model:gpt."""
    labels: dict[str, dict[str, int]] = {}
    for query_id, doc_id in items:
        labels.setdefault(query_id, {})[doc_id] = nist((query_id, doc_id))
    qrels = write_qrels(path.with_name("gpt.qrels"), labels)
    done = run("import", path, "qrels", qrels, "--source", "model:gpt")
    assert done.exit_code == 0, done.output


def handed_out(path: Path, assignment: int) -> set[tuple[str, str]]:
    return {(q, d) for _, q, d in assigned_rows(path, assignment)}


def test_items_only_a_model_graded_go_to_people(tmp_path: Path) -> None:
    path = dl20_workspace(tmp_path / "team.sqlite", queries=3, depth=10)
    items = pooled(path)
    assert len(items) == 30
    model_labels(path, items[:12])
    # a model's label typed in under a person's name is still the model's
    with open_workspace(path) as ws:
        judge(ws, *items[12], 1, annotator="dan", source="model:gpt")
    people_grade(path, {"alice": items[13:17]})

    done = run("assign", path, "--annotators", "bob,carol", "--overlap", "1")
    assert done.exit_code == 0, done.output
    assert "26 items with 1 annotator each" in done.stdout
    assert "4 pooled items already judged were not assigned" in done.stdout
    assert handed_out(path, 1) == set(items) - set(items[13:17])

    # the pool grows and the model labels every new item first: extending
    # hands them all to people
    assert run("pool", path, "--depth", "20").exit_code == 0
    new = sorted(set(pooled(path)) - set(items))
    assert len(new) == 30
    model_labels(path, items[:12] + new)
    extended = run("assign", path, "--extend")
    assert extended.exit_code == 0, extended.output
    assert "30 new items with 1 annotator each" in extended.stdout
    # alice's four, as before: not the model's
    assert "4 pooled items already judged were not assigned" in extended.stdout
    assert handed_out(path, 2) == handed_out(path, 1) | set(new)


def test_a_hole_only_a_model_labelled_is_handed_out_in_settle_order(tmp_path: Path) -> None:
    path = dl20_workspace(tmp_path / "settle.sqlite", queries=2, runs=("bm25", "splade"))
    listed = run("holes", "--workspace", path, "--order", "settle", "--format", "json")
    assert listed.exit_code == 0, listed.output
    holes = [(hole["query_id"], hole["doc_id"]) for hole in json.loads(listed.stdout)]
    model_labels(path, holes[:3])
    done = run("assign", path, "--annotators", "alice,bob", "--overlap", "1", "--settle", "5")
    assert done.exit_code == 0, done.output
    assert handed_out(path, 1) == set(holes[:5])
    assert "already judged" not in done.stdout


def test_extend_keeps_the_settle_budget_and_tops_it_up(tmp_path: Path) -> None:
    # BM25's top 5 pooled; the settle order ranks the holes of both runs' top 10
    path = dl20_workspace(
        tmp_path / "budget.sqlite", queries=4, runs=("bm25", "splade"), depth=5,
        pool_runs=("bm25",),
    )  # fmt: skip
    done = run("assign", path, "--annotators", "alice,bob", "--overlap", "1", "--settle", "6")
    assert done.exit_code == 0, done.output
    first = handed_out(path, 1)
    assert len(first) == 6

    # four of the six are graded; the runs' top 10 is pooled (many new holes)
    people_grade(path, {"alice": sorted(first)[:2], "bob": sorted(first)[2:4]})
    assert run("pool", path, "--depth", "10").exit_code == 0
    topped = run("assign", path, "--extend")
    assert topped.exit_code == 0, topped.output
    second = handed_out(path, 2)
    assert first <= second and len(second - first) == 4  # back to six open, not every hole
    lines = topped.stdout.splitlines()
    assert (
        "settle budget 6, kept from assignment #1: 2 assigned items still open, so 4 more" in lines
    ), lines
    assert "4 new items with 1 annotator each; items per annotator in all: " in topped.stdout
    assert "settle budget 6" in done.stdout  # the assignment says its budget

    # a larger budget tops up to it; the same budget again adds nothing
    larger = run("assign", path, "--extend", "--settle", "10")
    assert larger.exit_code == 0, larger.output
    assert len(handed_out(path, 3) - second) == 4
    assert "settle budget 10: 6 assigned items still open, so 4 more" in larger.stdout
    same = run("assign", path, "--extend")
    assert same.stdout.startswith("nothing new to assign: assignment #3 of ")
    assert "settle budget 10, kept from assignment #3: 10 assigned items still open" in same.stdout
    assert assigned_rows(path, 4) == []

    # a plain assignment has no budget: extending it adds every new item
    plain = run("assign", path, "--annotators", "alice,bob", "--overlap", "1")
    assert plain.exit_code == 0, plain.output
    assert "settle budget" not in plain.stdout.splitlines()[1]  # the new one, stored
    assert run("pool", path, "--depth", "12").exit_code == 0
    grown = run("assign", path, "--extend")
    assert "settle budget" not in grown.stdout
    assert len(handed_out(path, 5)) == len(pooled(path)) - 4


def test_progress_counts_against_the_assignment_and_the_rest_apart(tmp_path: Path) -> None:
    path = dl20_workspace(tmp_path / "progress.sqlite", queries=3, depth=10)
    assert run("assign", path, "--annotators", "alice,bob", "--overlap", "1").exit_code == 0
    alice = sorted((q, d) for who, q, d in assigned_rows(path, 1) if who == "alice")
    people_grade(path, {"alice": alice[:6]})
    # the pool grows and the lead assigns again: alice's six grades are of no
    # item of the new assignment
    assert run("pool", path, "--depth", "20").exit_code == 0
    assert run("assign", path, "--annotators", "alice,bob", "--overlap", "1").exit_code == 0
    now = sorted((q, d) for who, q, d in assigned_rows(path, 2) if who == "alice")
    assert len(now) == 27 and not set(now) & set(alice[:6])
    people_grade(path, {"alice": now[:2]})
    with open_workspace(path) as ws:
        judge(ws, *now[2], None, annotator="alice", unsure=True)

    rows = {
        row["annotator"]: row
        for row in json.loads(run("progress", path, "--format", "json").stdout)
    }
    alice_row = {key: rows["alice"][key] for key in
                 ("assigned", "graded", "unsure", "remaining", "graded_elsewhere")}  # fmt: skip
    assert alice_row == {
        "assigned": 27, "graded": 2, "unsure": 1, "remaining": 25, "graded_elsewhere": 6,
    }  # fmt: skip
    table = run("progress", path).stdout.splitlines()
    assert table[1].split()[:6] == [
        "annotator", "assigned", "graded", "unsure", "remaining", "elsewhere",
    ]  # fmt: skip
    assert table[2].split()[:6] == ["alice", "27", "2", "1", "25", "6"]
