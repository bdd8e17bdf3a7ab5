"""``judgepool agreement`` and ``judgepool disagreements`` compare the people
who graded; imports and models only when named in --annotators; every output
(table and JSON) says what was left out, with counts. The real command in a
subprocess, on real workspace files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_team_cli import grade, judgepool, refused, run

ALICE = {"q1d1": 1, "q1d2": 2, "q1d3": 3, "q1d4": 0}
BOB = {"q1d1": 1, "q1d2": 1, "q1d3": 3, "q1d4": 2}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """alice and bob grade four items; nist.qrels is imported (it holds three
    items, one outside theirs), a model labels two, carol settles q1d2."""
    path = tmp_path / "team.sqlite"
    assert run("init", path).exit_code == 0
    grade(path, "alice", ALICE, allow_new=True)
    grade(path, "bob", BOB, allow_new=True)
    (tmp_path / "nist.qrels").write_text("q1 0 q1d1 3\nq1 0 q1d2 2\nq1 0 q1d5 1\n")
    assert run("import", path, "qrels", tmp_path / "nist.qrels").exit_code == 0
    (tmp_path / "gpt.qrels").write_text("q1 0 q1d1 0\nq1 0 q1d3 0\n")
    assert (
        run("import", path, "qrels", tmp_path / "gpt.qrels", "--source", "model:gpt").exit_code == 0
    )
    assert run("annotators", path, "add", "carol", "--role", "adjudicator").exit_code == 0
    settled = run("judge", path, "q1", "q1d2", "2", "--annotator", "carol", "--adjudicate")
    assert settled.exit_code == 0, settled.output
    return path


LEFT_OUT = (
    "left out: import:nist.qrels (imported judgments, 3 items), model:gpt (a model's labels, "
    "2 items), 1 adjudication (not annotations); name an import or a model in --annotators "
    "to compare it"
)


def test_agreement_table_and_json_compare_the_people(ws: Path) -> None:
    table = judgepool("agreement", ws)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].endswith(
        ": 2 annotators (alice, bob); the latest grade of each, unsure is not a grade"
    )
    assert lines[1] == LEFT_OUT
    assert lines[3].split()[:5] == ["alice", "–", "bob", "4", "0.500"]
    assert "carol" not in table.stdout

    done = judgepool("agreement", ws, "--format", "json")
    report = json.loads(done.stdout)
    assert set(report) == {"pairs", "overall", "left_out"}
    assert report["overall"]["annotators"] == ["alice", "bob"]
    assert report["left_out"] == {
        "raters": [
            {"rater": "import:nist.qrels", "kind": "import", "items": 3,
             "reason": "imported judgments"},
            {"rater": "model:gpt", "kind": "model", "items": 2, "reason": "a model's labels"},
        ],
        "adjudications": 1,
    }  # fmt: skip
    by_query = json.loads(judgepool("agreement", ws, "--format", "json", "--by", "query").stdout)
    assert set(by_query) == {"pairs", "overall", "per_query", "min_items_per_query", "left_out"}
    assert by_query["left_out"] == report["left_out"]


def test_agreement_with_named_raters_compares_an_import(ws: Path) -> None:
    done = run("agreement", ws, "--annotators", "alice,import:nist.qrels,model:gpt")
    assert done.exit_code == 0, done.output
    rows = [line.split()[:4] for line in done.stdout.splitlines()[3:6]]
    assert rows == [
        ["alice", "–", "import:nist.qrels", "2"],
        ["alice", "–", "model:gpt", "2"],
        ["import:nist.qrels", "–", "model:gpt", "1"],
    ]
    assert (
        "left out: bob (not in --annotators, 4 items), 1 adjudication (not annotations)\n"
        in done.stdout
    )


def test_agreement_of_one_person_is_refused_saying_what_to_name(tmp_path: Path) -> None:
    path = tmp_path / "solo.sqlite"
    assert run("init", path).exit_code == 0
    grade(path, "alice", {"q1d1": 1}, allow_new=True)
    (tmp_path / "nist.qrels").write_text("q1 0 q1d1 3\n")
    assert run("import", path, "qrels", tmp_path / "nist.qrels").exit_code == 0
    message = refused(judgepool("agreement", path))
    assert "needs two annotators with grades or more; compared (the people who graded)" in message
    assert "'import:nist.qrels' (imported judgments, 1 item)" in message
    assert "name an import or a model in --annotators" in message
    # alice and the import differ, but she alone is compared: no disagreement
    listed = judgepool("disagreements", path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "no disagreements between alice",
        "left out: import:nist.qrels (imported judgments, 1 item); name an import or a model "
        "in --annotators to compare it",
    ]


def test_disagreements_between_the_people_or_the_raters_named(ws: Path) -> None:
    listed = judgepool("disagreements", ws)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == (
        f"disagreements in {ws} between alice, bob: 2 items, 1 unresolved (no adjudicator's grade)"
    )
    assert lines[1] == (
        "left out: import:nist.qrels (imported judgments, 3 items), model:gpt (a model's labels, "
        "2 items); name an import or a model in --annotators to compare it"
    )
    heads = [line.split("\t")[:3] for line in lines[2:] if not line.startswith("  ")]
    assert heads == [["q1", "q1d4", "unresolved"], ["q1", "q1d2", "resolved"]]

    named = judgepool(
        "disagreements", ws, "--annotators", "bob,import:nist.qrels", "--format", "json"
    )
    assert named.returncode == 0, named.stderr
    *items, summary = [json.loads(line) for line in named.stdout.splitlines()]
    # q1d1: bob 1, nist 3; q1d2: bob 1, nist 2 (carol settled it)
    assert [(i["doc_id"], i["compared"], i["resolved"]) for i in items] == [
        ("q1d1", {"bob": 1, "import:nist.qrels": 3}, False),
        ("q1d2", {"bob": 1, "import:nist.qrels": 2}, True),
    ]
    assert items[0]["grades"] == {"alice": 1, "bob": 1, "import:nist.qrels": 3, "model:gpt": 0}
    assert summary == {
        "compared": ["bob", "import:nist.qrels"],
        "disagreements": 2,
        "unresolved": 1,
        "left_out": {
            "raters": [
                {"rater": "model:gpt", "kind": "model", "items": 2, "reason": "a model's labels"},
                {"rater": "alice", "kind": "person", "items": 4, "reason": "not in --annotators"},
            ]
        },
    }
    assert "no annotator 'bobb' has a current grade; closest: 'bob'" in refused(
        judgepool("disagreements", ws, "--annotators", "bobb,alice")
    )
    assert "a disagreement needs two raters or more" in refused(
        judgepool("disagreements", ws, "--annotators", "alice")
    )
    wide = run("disagreements", ws, "--annotators", "alice,model:gpt", "--min-gap", "3")
    assert [line.split("\t")[1] for line in wide.stdout.splitlines()[2:3]] == ["q1d3"]
