"""Reviewing a team's grades on the command line: disagreements (header, counts,
filters, each grade's time and note), score refusals that name an unresolved
disagreement, undo, notes export and the blind-grading setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgepool.services.settings import blind_grading
from judgepool.services.workspace import open_workspace
from tests.cli.conftest import ranked, write_run
from tests.cli.test_team_cli import grade, judgepool, refused, run


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """q1 with d1..d4 in a stored run, graded by alice and bob; judy adjudicates."""
    path = tmp_path / "review.sqlite"
    assert run("init", path).exit_code == 0
    write_run(tmp_path / "r.run", ranked("q1", ["d1", "d2", "d3", "d4"]))
    assert run("import", path, "run", tmp_path / "r.run", "--name", "R").exit_code == 0
    with open_workspace(path) as workspace:
        from judgepool.services.judging import judge

        for who, doc, value, note in (
            ("alice", "d1", 3, "exact\tanswer\non two lines"),
            ("bob", "d1", 0, "off topic"),
            ("alice", "d2", 2, None),
            ("bob", "d2", 1, None),
            ("alice", "d3", 1, None),
            ("bob", "d3", 1, None),
            ("alice", "d4", 2, None),
            ("bob", "d4", 2, None),
        ):
            judge(workspace, "q1", doc, value, annotator=who, note=note)
    assert run("annotators", path, "add", "judy", "--role", "adjudicator").exit_code == 0
    settled = run(
        "judge", path, "q1", "d2", "2", "--annotator", "judy", "--adjudicate",
        "--note", "judy: the second half answers it",
    )  # fmt: skip
    assert settled.exit_code == 0, settled.output
    return path


def test_disagreements_header_counts_filters_and_notes(ws: Path) -> None:
    listed = judgepool("disagreements", ws)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == (
        f"disagreements in {ws} between alice, bob: 2 items, 1 unresolved (no adjudicator's grade)"
    )
    assert lines[1] == "left out: nothing"
    # unresolved first; every grade with annotator, time and note, shown literally
    assert lines[2] == "q1\td1\tunresolved\tgap 3\tlatest=0 median=0 adjudicated=-"
    assert lines[3].startswith("  alice=3  20") and lines[3].endswith(
        "  note: exact\\x09answer\\x0aon two lines"
    )
    assert lines[4].startswith("  bob=0  ") and lines[4].endswith("  note: off topic")
    assert lines[5] == "q1\td2\tresolved\tgap 1\tlatest=1 median=1 adjudicated=2"
    assert [line.split("=")[0].strip() for line in lines[6:]] == ["alice", "bob", "judy"]
    assert lines[8].endswith("note: judy: the second half answers it")

    unresolved = run("disagreements", ws, "--unresolved").stdout.splitlines()
    assert unresolved[0].endswith(
        "1 unresolved (no adjudicator's grade); 1 shown (unresolved only)"
    )
    assert [line for line in unresolved if not line.startswith("  ")][2:] == [
        "q1\td1\tunresolved\tgap 3\tlatest=0 median=0 adjudicated=-"
    ]
    wide = run("disagreements", ws, "--min-gap", "2").stdout.splitlines()
    assert "1 shown (grades at least 2 apart)" in wide[0]
    assert [line.split("\t")[1] for line in wide[2:] if not line.startswith("  ")] == ["d1"]
    *items, summary = [
        json.loads(line)
        for line in run("disagreements", ws, "--format", "json").stdout.splitlines()
    ]
    assert summary == {
        "compared": ["alice", "bob"],
        "disagreements": 2,
        "unresolved": 1,
        "left_out": {"raters": []},
    }
    assert [(i["doc_id"], i["resolved"], i["gap"]) for i in items] == [
        ("d1", False, 3),
        ("d2", True, 1),
    ]
    assert items[0]["details"][0]["note"] == "exact\tanswer\non two lines"
    assert refused(judgepool("disagreements", ws, "--min-gap", "0"))


def test_a_score_refusal_names_an_unresolved_disagreement_not_unjudged(ws: Path) -> None:
    done = judgepool("score", "R", "--workspace", ws, "--consensus", "adjudicated", "-k", "4")
    assert done.returncode == 1, done.stderr
    assert "unjudged document(s)" not in done.stderr
    assert (
        "1 document(s) in the top k without a judgment: 0 unjudged, 1 left out by the "
        "consensus rule" in done.stderr
    )
    assert (
        "query 'q1' doc 'd1' at rank 1: an unresolved disagreement (no adjudicator's grade; "
        "alice=3, bob=0)" in done.stderr
    )
    assert "judgepool disagreements WS --unresolved" in done.stderr
    # a document nobody judged is still called unjudged, beside it
    write_run(ws.parent / "more.run", ranked("q1", ["d1", "d9"]))
    mixed = judgepool(
        "score", ws.parent / "more.run", "--workspace", ws, "--consensus", "adjudicated"
    )
    assert mixed.returncode == 1
    assert "2 document(s) in the top k without a judgment: 1 unjudged, 1 left out" in mixed.stderr
    assert "query 'q1' doc 'd9' at rank 2\n" in mixed.stderr
    latest = judgepool("score", "R", "--workspace", ws, "--consensus", "latest", "-k", "4")
    assert latest.returncode == 0, latest.stderr


def test_undo_takes_back_the_latest_grade_and_walks_back(ws: Path) -> None:
    grade(ws, "carol", {"q1d1": 1}, allow_new=True)
    grade(ws, "carol", {"q1d1": 2}, allow_new=True)
    grade(ws, "carol", {"q1d2": None}, allow_new=True)

    def carol() -> dict[str, str]:
        with open_workspace(ws) as workspace:
            rows = workspace.conn.execute(
                "SELECT doc_id, COALESCE(grade, 'unsure') FROM current_judgments "
                "WHERE annotator = 'carol'"
            ).fetchall()
        return dict(rows)

    assert carol() == {"q1d1": 2, "q1d2": "unsure"}
    first = judgepool("undo", ws, "--annotator", "carol")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("carol: took back unsure on query q1 doc q1d2 (event ")
    assert first.stdout.rstrip().endswith("]") and "now no judgment" in first.stdout
    assert carol() == {"q1d1": 2}
    assert "took back 2 on query q1 doc q1d1" in run("undo", ws, "--annotator", "carol").stdout
    assert carol() == {"q1d1": 1}
    assert "now no judgment" in run("undo", ws, "--annotator", "carol").stdout
    assert carol() == {}
    assert "has no grade left to take back" in refused(
        judgepool("undo", ws, "--annotator", "carol")
    )
    assert "closest known: 'carol'" in refused(judgepool("undo", ws, "--annotator", "carl"))
    with open_workspace(ws) as workspace:  # the ledger kept everything: 3 grades, 3 undos
        undos = workspace.conn.execute(
            "SELECT COUNT(*) FROM judgment_events WHERE annotator = 'carol' AND undoes IS NOT NULL"
        ).fetchone()
    assert undos == (3,)


def test_export_notes_as_tsv_and_jsonl(ws: Path, tmp_path: Path) -> None:
    tsv = judgepool("export", ws, "notes")
    assert tsv.returncode == 0, tsv.stderr
    lines = tsv.stdout.splitlines()
    assert lines[0] == "query_id\tdoc_id\tannotator\tgrade\tcreated_at\tsource\tevent\tnote"
    fields = [line.split("\t") for line in lines[1:]]
    assert [(f[0], f[1], f[2], f[3], f[7]) for f in fields] == [
        ("q1", "d1", "alice", "3", "exact\\x09answer\\x0aon two lines"),
        ("q1", "d1", "bob", "0", "off topic"),
        ("q1", "d2", "judy", "2", "judy: the second half answers it"),
    ]
    assert all(len(f) == 8 and f[5] == "human" for f in fields)
    target = tmp_path / "notes.jsonl"
    written = run("export", ws, "notes", "--format", "jsonl", "-o", target, "--annotator", "bob")
    assert written.stdout == f"wrote 1 notes by 1 annotators (jsonl) to {target}\n"
    (record,) = [json.loads(line) for line in target.read_text().splitlines()]
    assert record["note"] == "off topic" and record["grade"] == 0 and record["unsure"] is False
    # a note that would act on a terminal is written as visible escapes, and reads back
    grade(ws, "mallory", {"q1d1": 1}, note="\x1b]0;owned\x07 \u202egnp.exe \\x41", allow_new=True)
    last = judgepool("export", ws, "notes").stdout.splitlines()[-1].split("\t")
    assert last[7] == "\\x1b]0;owned\\x07 \\u202egnp.exe \\\\x41"
    jsonl = judgepool("export", ws, "notes", "--format", "jsonl").stdout.splitlines()[-1]
    assert "\x1b" not in jsonl and "\u202e" not in jsonl and "\\u202e" in jsonl
    assert json.loads(jsonl)["note"] == "\x1b]0;owned\x07 \u202egnp.exe \\x41"
    assert "--format applies to notes only" in refused(
        judgepool("export", ws, "qrels", "--format", "jsonl")
    )
    assert "--consensus applies to qrels only" in refused(
        judgepool("export", ws, "notes", "--consensus", "median")
    )


def test_export_notes_keeps_spreadsheets_from_evaluating_them(tmp_path: Path) -> None:
    # issue 17: a note like =HYPERLINK(...) was exported as a formula. Text
    # cells from data that a spreadsheet would evaluate (=, +, -, @; a tab or
    # CR is an escape already) start with a quote (OWASP, CSV injection); a
    # grade of -1 is a number and stays -1; JSONL keeps the text exact.
    path = tmp_path / "sheet.sqlite"
    assert run("init", path, "--scale", "-1..3").exit_code == 0
    hyperlink = '=HYPERLINK("http://evil.example/x","open me")'
    rows = (
        ("-5", "+d1", -1, "@eve", hyperlink),
        ("q1", "d2", 2, "=bob", "+1 agreed"),
        ("q1", "d3", 0, "carol", "'quoted already"),
        ("q1", "d4", 1, "dave", "-\tdash then tab"),
        ("q1", "d5", 3, "erin", "plain = fine"),
    )
    with open_workspace(path) as workspace:
        from judgepool.services.judging import judge

        for query, doc, value, who, note in rows:
            judge(workspace, query, doc, value, annotator=who, note=note, allow_new=True)
    tsv = judgepool("export", path, "notes")
    assert tsv.returncode == 0, tsv.stderr
    fields = [line.split("\t") for line in tsv.stdout.splitlines()[1:]]
    assert [(f[0], f[1], f[2], f[3], f[5], f[7]) for f in fields] == [
        ("'-5", "'+d1", "'@eve", "-1", "human", "'" + hyperlink),
        ("q1", "d2", "'=bob", "2", "human", "'+1 agreed"),
        ("q1", "d3", "carol", "0", "human", "''quoted already"),
        ("q1", "d4", "dave", "1", "human", "'-\\x09dash then tab"),
        ("q1", "d5", "erin", "3", "human", "plain = fine"),
    ]
    assert all(
        not cell.startswith(("=", "+", "-", "@")) or cell == "-1" for f in fields for cell in f
    )
    jsonl = judgepool("export", path, "notes", "--format", "jsonl")
    records = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert [
        (r["query_id"], r["doc_id"], r["annotator"], r["grade"], r["note"]) for r in records
    ] == [(query, doc, who, value, note) for query, doc, value, who, note in rows]
    help_text = run("export", "--help").output
    assert "single quote" in help_text and "spreadsheet" in help_text


def test_blind_grading_is_on_by_default_and_can_be_turned_off(ws: Path) -> None:
    with open_workspace(ws) as workspace:
        assert blind_grading(workspace) is True
    shown = judgepool("settings", ws)
    assert shown.returncode == 0 and shown.stdout.startswith("blind grading: on\n")
    assert "consensus: latest" in shown.stdout
    assert run("settings", ws, "--blind", "off").stdout.startswith("blind grading: off\n")
    with open_workspace(ws) as workspace:
        assert blind_grading(workspace) is False
    assert run("settings", ws, "--blind", "on").exit_code == 0
    with open_workspace(ws) as workspace:
        assert blind_grading(workspace) is True
    assert "'maybe' is not one of 'on', 'off'" in refused(
        judgepool("settings", ws, "--blind", "maybe")
    )
