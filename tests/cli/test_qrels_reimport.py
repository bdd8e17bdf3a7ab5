"""Importing qrels again: a corrected file's dropped lines are kept and counted,
or withdrawn with ``--replace`` (appended withdrawal events: the ledger keeps
everything); an empty file is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgepool.cli import main
from judgepool.services.workspace import open_workspace
from judgepool.store.ledger import current_judgments, list_events


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "w.sqlite"
    assert run("init", str(path)).exit_code == 0
    return path


def _held(ws: Path, annotator: str) -> dict[tuple[str, str], int | None]:
    with open_workspace(ws) as workspace:
        return {
            (c.query_id, c.doc_id): c.grade
            for c in current_judgments(workspace, annotator=annotator)
        }


def test_an_empty_qrels_file_is_refused(ws: Path, tmp_path: Path) -> None:
    for text in ("", "\n\n", "# only a comment\n"):
        empty = tmp_path / "empty.qrels"
        empty.write_text(text)
        result = run("import", str(ws), "qrels", str(empty))
        assert result.exit_code == 2, result.output
        assert "has no judgments" in result.stderr and "Traceback" not in result.output
        result = run("import", str(ws), "qrels", str(empty), "--replace")
        assert result.exit_code == 2
    with open_workspace(ws) as workspace:
        assert list_events(workspace) == []


def test_a_corrected_file_keeps_dropped_judgments_unless_replace(ws: Path, tmp_path: Path) -> None:
    qrels = tmp_path / "nist.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d1 3\n")
    first = run("import", str(ws), "qrels", str(qrels))
    assert "4 recorded, 0 unchanged" in first.stdout
    assert "the annotator holds nothing the file does not have" in first.stdout
    annotator = "import:nist.qrels"

    # the corrected file drops two lines and changes one grade
    qrels.write_text("q1 0 d1 1\nq2 0 d1 2\n")
    kept = run("import", str(ws), "qrels", str(qrels))
    assert kept.exit_code == 0, kept.output
    assert "1 recorded, 1 unchanged" in kept.stdout
    assert "2 held by the annotator but not in the file kept (--replace withdraws them)" in (
        kept.stdout
    )
    assert _held(ws, annotator) == {
        ("q1", "d1"): 1,
        ("q1", "d2"): 2,
        ("q1", "d3"): 0,
        ("q2", "d1"): 2,
    }

    replaced = run("import", str(ws), "qrels", str(qrels), "--replace")
    assert replaced.exit_code == 0, replaced.output
    assert "0 recorded, 2 unchanged; 2 not in the file withdrawn (--replace)" in replaced.stdout
    assert _held(ws, annotator) == {("q1", "d1"): 1, ("q2", "d1"): 2}
    assert run("export", str(ws), "qrels").stdout == "q1 0 d1 1\nq2 0 d1 2\n"

    with open_workspace(ws) as workspace:
        events = list_events(workspace)
    # nothing deleted: 4 + 1 grade events, then the 2 withdrawals appended
    assert len(events) == 7
    withdrawals = events[-2:]
    assert [(e.query_id, e.doc_id) for e in withdrawals] == [("q1", "d2"), ("q1", "d3")]
    assert all(e.withdrawn and e.source == annotator for e in withdrawals)
    assert [e.previous_grade for e in withdrawals] == [2, 0]

    again = run("import", str(ws), "qrels", str(qrels), "--replace")
    assert "0 recorded, 2 unchanged; the annotator holds nothing" in again.stdout


def test_replace_touches_only_the_annotator_of_the_import(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "a.qrels").write_text("q1 0 d1 1\nq1 0 d2 1\n")
    assert (
        run("import", str(ws), "qrels", str(tmp_path / "a.qrels"), "--annotator", "nist").exit_code
        == 0
    )
    assert run("judge", str(ws), "q1", "d2", "3", "--annotator", "alice").exit_code == 0
    (tmp_path / "b.qrels").write_text("q1 0 d1 2\n")
    result = run(
        "import", str(ws), "qrels", str(tmp_path / "b.qrels"), "--annotator", "nist", "--replace"
    )
    assert result.exit_code == 0, result.output
    assert "1 not in the file withdrawn" in result.stdout
    assert _held(ws, "nist") == {("q1", "d1"): 2}
    assert _held(ws, "alice") == {("q1", "d2"): 3}


def test_replace_applies_to_qrels_only(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n")
    result = run("import", str(ws), "run", str(tmp_path / "r.run"), "--replace")
    assert result.exit_code == 2 and "--replace applies to qrels only" in result.output


def test_the_ledger_still_refuses_deletion_after_a_replace(ws: Path, tmp_path: Path) -> None:
    qrels = tmp_path / "x.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\n")
    run("import", str(ws), "qrels", str(qrels))
    qrels.write_text("q1 0 d1 1\n")
    run("import", str(ws), "qrels", str(qrels), "--replace")
    conn = sqlite3.connect(ws)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM judgment_events")
    conn.close()
