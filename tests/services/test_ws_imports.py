"""Imports into a workspace: queries, documents, qrels and runs. A bad line
anywhere refuses the whole file, naming file and line, and changes nothing."""

from __future__ import annotations

import gzip
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.services.consensus import workspace_judgments
from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.judging import judge
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.corpus import get_document, get_query, list_queries
from judgepool.store.ledger import list_events
from judgepool.store.runs import get_run, list_runs, run_columns, run_entries


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with init_workspace(tmp_path / "w.sqlite") as workspace:
        yield workspace


def snapshot(ws: Workspace) -> list[str]:
    """Every row of every table (and the schema), to compare before and after."""
    return list(ws.conn.iterdump())


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


RUN = """q1 Q0 d1 1 3.5 bm25
q1 Q0 d2 2 2.0 bm25
# a comment
q1 Q0 d1 3 1.0 bm25
q2\tQ0\td3\t1\t9\tbm25\textra

q2 Q0 d4 2 9 bm25
"""


# -- runs -------------------------------------------------------------------------


def test_a_run_is_kept_as_imported_duplicates_included(ws: Workspace, tmp_path: Path) -> None:
    result = import_run(ws, write(tmp_path / "bm25.run.txt", RUN))
    assert (result.name, result.lines, result.already_present) == ("bm25", 5, False)
    entries, stored = run_entries(ws, "bm25"), get_run(ws, "bm25")
    assert [(e.query_id, e.doc_id, e.rank, e.score, e.line) for e in entries] == [
        ("q1", "d1", 1, 3.5, 1),
        ("q1", "d2", 2, 2.0, 2),
        ("q1", "d1", 3, 1.0, 4),  # the duplicate stays, with its own line number
        ("q2", "d3", 1, 9.0, 5),
        ("q2", "d4", 2, 9.0, 7),
    ]
    assert stored.lines == 5
    from judgepool.formats.trec import read_run

    assert stored.digest == read_run(tmp_path / "bm25.run.txt").digest
    columns = run_columns(ws, "bm25")
    assert columns.query_ids.to_pylist() == ["q1", "q1", "q1", "q2", "q2"]
    assert columns.doc_ids.to_pylist() == ["d1", "d2", "d1", "d3", "d4"]
    assert columns.scores.tolist() == [3.5, 2.0, 1.0, 9.0, 9.0]
    assert columns.ranks.tolist() == [1, 2, 3, 1, 2]
    assert columns.lines.tolist() == [1, 2, 4, 5, 7]
    assert columns.digest == stored.digest


def test_gzip_run_named_and_reimported(ws: Workspace, tmp_path: Path) -> None:
    path = tmp_path / "system.trec.gz"
    path.write_bytes(gzip.compress(RUN.encode()))
    first = import_run(ws, path, name="sys-A")
    assert first.name == "sys-A"
    again = import_run(ws, path, name="sys-A")
    assert again.already_present
    plain = write(tmp_path / "other.txt", "q1 Q0 d9 1 1.0 x\n")
    with pytest.raises(InputError, match="already has a different run named 'sys-A'"):
        import_run(ws, plain, name="sys-A")
    assert [r.name for r in list_runs(ws)] == ["sys-A"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("q1 Q0 d1 1 1.0 x\nq1 Q0 d2 1 x\n", 2, "expected 6 columns"),
        ("q1 Q0 d1 1 1.0 x\nq1 Q0 d2 2 1.0 x\nq1 Q0 d3 3 nan x\n", 3, "not a finite number"),
        ("q1 Q0 d1 one 1.0 x\n" + "q1 Q0 d2 2 1.0 x\n" * 3, 1, "rank"),
        ("q1 Q0 d1 1 1.0 x\nq1 Q0 d2 2 1.0 x\nq1 Q0 d3", 3, "expected 6 columns"),  # last, no EOL
    ],
    ids=["middle", "last", "first", "last-without-newline"],
)
def test_a_bad_run_line_refuses_the_import_and_changes_nothing(
    ws: Workspace, tmp_path: Path, text: str, line: int, message: str
) -> None:
    import_run(ws, write(tmp_path / "good.run", "q9 Q0 d9 1 1.0 x\n"))
    before = snapshot(ws)
    path = write(tmp_path / "bad.run", text)
    with pytest.raises(InputError, match=message) as caught:
        import_run(ws, path)
    assert (caught.value.path, caught.value.line) == (str(path), line)
    assert snapshot(ws) == before


def test_an_empty_run_and_a_bad_name_are_refused(ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no run lines"):
        import_run(ws, write(tmp_path / "empty.run", "# nothing\n\n"))
    with pytest.raises(InputError, match="run name"):
        import_run(ws, write(tmp_path / "r.run", "q Q0 d 1 1 x\n"), name="a,b")
    assert list_runs(ws) == []


def test_run_import_reports_progress_up_to_the_total(ws: Workspace, tmp_path: Path) -> None:
    lines = "".join(
        f"q{i // 1000} Q0 d{i} {i % 1000 + 1} {1000 - i % 1000} x\n" for i in range(250_000)
    )
    seen: list[tuple[int, int]] = []
    import_run(ws, write(tmp_path / "big.run", lines), on_progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, 250_000)
    assert seen[-1] == (250_000, 250_000)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) >= 3
    assert ws.conn.execute("SELECT COUNT(*) FROM run_lines").fetchone()[0] == 250_000


# -- qrels ----------------------------------------------------------------------------


def test_qrels_become_judgment_events_from_the_import(ws: Workspace, tmp_path: Path) -> None:
    path = write(tmp_path / "dl.qrels", "q1 0 d1 3\nq1 0 d2 0\n\nq2 Q0 d1 1\n")
    result = import_qrels(ws, path)
    assert (result.judgments, result.added, result.unchanged) == (3, 3, 0)
    assert result.annotator == result.source == "import:dl.qrels"
    events = list_events(ws)
    assert [(e.query_id, e.doc_id, e.grade, e.source) for e in events] == [
        ("q1", "d1", 3, "import:dl.qrels"),
        ("q1", "d2", 0, "import:dl.qrels"),
        ("q2", "d1", 1, "import:dl.qrels"),
    ]
    from judgepool.formats.trec import read_qrels

    expected = read_qrels(path, ws.scale)
    assert workspace_judgments(ws) == (expected.judgments, expected.digest)
    # importing the same file again records nothing new
    again = import_qrels(ws, path)
    assert (again.added, again.unchanged) == (0, 3)
    assert len(list_events(ws)) == 3
    # a corrected file records only the change, with the previous grade
    import_qrels(ws, write(tmp_path / "dl.qrels", "q1 0 d1 2\nq1 0 d2 0\nq2 Q0 d1 1\n"))
    last = list_events(ws)[-1]
    assert (last.doc_id, last.grade, last.previous_grade) == ("d1", 2, 3)


def test_qrels_annotator_option(ws: Workspace, tmp_path: Path) -> None:
    import_qrels(ws, write(tmp_path / "a.qrels", "q1 0 d1 3\n"), annotator="nist")
    judge(ws, "q1", "d1", 1, annotator="alice", allow_new=True)
    import_qrels(ws, write(tmp_path / "it's.qrels", "q1 0 d2 0\n"), annotator="o'brien")
    events = list_events(ws)
    assert [(e.annotator, e.source) for e in events] == [
        ("nist", "import:a.qrels"),
        ("alice", "human"),
        ("o'brien", "import:it's.qrels"),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "q1 0 d1 1\nq1 0 d2 4\nq1 0 d3 1\n",
            2,
            "grade 4 is outside the scale 0..3; it is the workspace's scale",
        ),
        ("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 -1\n", 3, "grade -1 is outside"),
        ("q1 0 d1 1\nq1 0 d2 1.5\n", 2, "not an integer"),
        ("q1 0 d1 1\nq1 0 d2\n", 2, "expected 4 columns"),
        ("q1 0 d1 1\nq1 0 d1 2\n", 2, "judged twice"),
        ("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 7", 3, "outside"),  # last line without newline
    ],
    ids=["scale", "negative-last", "fraction", "columns", "twice", "last-no-eol"],
)
def test_a_bad_qrels_line_refuses_the_import_and_changes_nothing(
    ws: Workspace, tmp_path: Path, text: str, line: int, message: str
) -> None:
    judge(ws, "q0", "d0", 1, annotator="alice", allow_new=True)
    before = snapshot(ws)
    path = write(tmp_path / "bad.qrels", text)
    with pytest.raises(InputError, match=message) as caught:
        import_qrels(ws, path)
    assert (caught.value.path, caught.value.line) == (str(path), line)
    assert snapshot(ws) == before


def test_a_wider_scale_accepts_its_grades(tmp_path: Path) -> None:
    with init_workspace(tmp_path / "wide.sqlite", scale="-1..4") as ws:
        import_qrels(ws, write(tmp_path / "q.qrels", "q1 0 d1 -1\nq1 0 d2 4\n"))
        assert workspace_judgments(ws)[0] == {"q1": {"d1": -1, "d2": 4}}


# -- queries and documents -----------------------------------------------------------


def test_queries_and_documents_from_tsv_and_jsonl(ws: Workspace, tmp_path: Path) -> None:
    queries = write(tmp_path / "topics.tsv", "q1\twhat is a pool\nq2\tdepth k\tnarrative two\n")
    result = import_queries(ws, queries)
    assert (result.rows, result.counts.added) == (2, 2)
    assert get_query(ws, "q2") is not None
    assert get_query(ws, "q2").narrative == "narrative two"  # type: ignore[union-attr]
    docs = tmp_path / "corpus.jsonl.gz"
    docs.write_bytes(
        gzip.compress(
            b'{"_id": "d1", "title": "Pools", "text": "a pool is [bold]x[/bold]"}\n'
            b'{"id": "d2", "text": "\\u00e9t\\u00e9 \\u001b[31m"}\n'
        )
    )
    import_documents(ws, docs)
    assert get_document(ws, "d1").title == "Pools"  # type: ignore[union-attr]
    assert get_document(ws, "d1").text == "a pool is [bold]x[/bold]"  # type: ignore[union-attr]
    assert get_document(ws, "d2").text == "été \x1b[31m"  # type: ignore[union-attr]
    # re-importing corrected text updates it; identical rows are counted unchanged
    again = import_queries(
        ws, write(tmp_path / "t2.tsv", "q1\twhat is a pool?\nq2\tdepth k\tnarrative two\n")
    )
    assert (again.counts.added, again.counts.updated, again.counts.unchanged) == (0, 1, 1)
    assert [q.text for q in list_queries(ws)] == ["what is a pool?", "depth k"]


@pytest.mark.parametrize(
    ("name", "text", "line", "message"),
    [
        ("q.tsv", "q1\tfine\nq2 only one column\n", 2, "expected 2 or 3"),
        ("q.tsv", "q1\tfine\nq2\tfine\n\tno id", 3, "id column is empty"),
        ("q.tsv", "q1\tfine\nq1\tagain\n", 2, "appears twice"),
        ("q.jsonl", '{"id": "q1", "text": "a"}\n{"id": "q2", "text": "b"\n', 2, "not valid JSON"),
        ("q.jsonl", '{"id": "q1", "text": "a"}\n{"id": "q2"}\n', 2, "no 'text'"),
        ("q.jsonl", '{"id": "q1", "text": "a"}\n[1, 2]\n', 2, "JSON object"),
    ],
    ids=[
        "tsv-columns",
        "tsv-last-empty-id",
        "tsv-twice",
        "jsonl-syntax",
        "jsonl-text",
        "jsonl-array",
    ],
)
def test_a_bad_table_line_refuses_the_import_and_changes_nothing(
    ws: Workspace, tmp_path: Path, name: str, text: str, line: int, message: str
) -> None:
    import_queries(ws, write(tmp_path / "first.tsv", "q0\tkept\n"))
    before = snapshot(ws)
    path = write(tmp_path / name, text)
    with pytest.raises(InputError, match=message) as caught:
        import_queries(ws, path)
    assert (caught.value.path, caught.value.line) == (str(path), line)
    assert snapshot(ws) == before


def test_invalid_utf8_names_the_line(ws: Workspace, tmp_path: Path) -> None:
    path = tmp_path / "docs.tsv"
    path.write_bytes(b"d1\tok\nd2\t\xff\xfe\n")
    with pytest.raises(InputError, match="UTF-8") as caught:
        import_documents(ws, path)
    assert caught.value.line == 2


def test_a_missing_file_is_an_input_error(ws: Workspace, tmp_path: Path) -> None:
    for importer in (import_queries, import_documents, import_qrels, import_run):
        with pytest.raises(InputError, match="no such file"):
            importer(ws, tmp_path / "absent")  # type: ignore[operator]


def test_an_import_is_one_transaction_visible_only_when_complete(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with init_workspace(path) as ws:
        seen_by_other: list[int] = []
        other = sqlite3.connect(path)

        def watch(done: int, total: int) -> None:
            seen_by_other.append(other.execute("SELECT COUNT(*) FROM run_lines").fetchone()[0])

        run = "".join(f"q1 Q0 d{i} {i + 1} {-i} x\n" for i in range(250_000))
        import_run(ws, write(tmp_path / "r.run", run), on_progress=watch)
        other.close()
    assert seen_by_other and set(seen_by_other) == {0}


def test_each_run_reads_back_only_its_own_lines(ws: Workspace, tmp_path: Path) -> None:
    import_run(ws, write(tmp_path / "a.run", "q1 Q0 a1 1 2 a\nq1 Q0 a2 2 1 a\n"))
    with pytest.raises(InputError):
        import_run(ws, write(tmp_path / "b.run", "q1 Q0 b1 1 2 b\nq1 Q0 b2 2\n"))
    import_run(ws, write(tmp_path / "c.run", "q2 Q0 c1 1 2 c\nq2 Q0 c2 2 1 c\nq3 Q0 c3 1 1 c\n"))
    assert [e.doc_id for e in run_entries(ws, "a")] == ["a1", "a2"]
    assert [e.doc_id for e in run_entries(ws, "c")] == ["c1", "c2", "c3"]
    assert run_columns(ws, "c").doc_ids.to_pylist() == ["c1", "c2", "c3"]
    rows = ws.conn.execute("SELECT run_id, line, doc_id FROM run_lines ORDER BY rowid").fetchall()
    assert [row[0] for row in rows] == [1, 1, 2, 2, 2]


def test_the_column_snapshot_holds_the_same_lines_as_the_rows(
    ws: Workspace, tmp_path: Path
) -> None:
    import_run(ws, write(tmp_path / "r.run", RUN))
    from_snapshot = run_entries(ws, "r")
    columns = run_columns(ws, "r")
    ws.conn.execute("DELETE FROM run_columns")  # a run without snapshot: read from rows
    assert run_entries(ws, "r") == from_snapshot
    rows = run_columns(ws, "r")
    for field in ("query_ids", "doc_ids"):
        assert getattr(rows, field).to_pylist() == getattr(columns, field).to_pylist()
    for field in ("scores", "ranks", "lines"):
        assert getattr(rows, field).tolist() == getattr(columns, field).tolist()
    assert rows.digest == columns.digest
