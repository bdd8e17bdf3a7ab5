"""Run imports in chunks (`services.streamed_import`) do what the whole-file
import does: every run test of test_ws_imports.py runs again here with every
run file imported in chunks of a few lines, and a file imported both ways
leaves the same rows, record and column snapshot."""

from __future__ import annotations

import gzip
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import judgepool.formats.fast_run.chunks as chunk_reader
import judgepool.services.streamed_import as streamed_import
from judgepool.core.terms.errors import InputError
from judgepool.services.imports import import_run
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.runs import run_columns
from tests.services.test_ws_imports import (  # every run test, run again in chunks
    RUN,
    snapshot,
    test_a_bad_run_line_refuses_the_import_and_changes_nothing,
    test_a_run_is_kept_as_imported_duplicates_included,
    test_an_empty_run_and_a_bad_name_are_refused,
    test_an_import_is_one_transaction_visible_only_when_complete,
    test_each_run_reads_back_only_its_own_lines,
    test_gzip_run_named_and_reimported,
    test_run_import_reports_progress_up_to_the_total,
    test_the_column_snapshot_holds_the_same_lines_as_the_rows,
    write,
    ws,
)
from tests.store.test_ws_open_files import (  # a workspace's own files: refused unopened
    pooled,
    test_an_open_workspaces_own_files_are_refused_as_input,
)

__all__ = [
    "pooled",
    "test_a_bad_run_line_refuses_the_import_and_changes_nothing",
    "test_a_run_is_kept_as_imported_duplicates_included",
    "test_an_empty_run_and_a_bad_name_are_refused",
    "test_an_import_is_one_transaction_visible_only_when_complete",
    "test_an_open_workspaces_own_files_are_refused_as_input",
    "test_each_run_reads_back_only_its_own_lines",
    "test_gzip_run_named_and_reimported",
    "test_run_import_reports_progress_up_to_the_total",
    "test_the_column_snapshot_holds_the_same_lines_as_the_rows",
    "ws",
]


# the two tests of 250,000 lines: 64 kB chunks (over a hundred of them)
_LONG_RUNS = ("progress", "one_transaction")


@pytest.fixture(autouse=True)
def in_chunks(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[None]:
    """Every run file imported in chunks, of 40 bytes (a few lines) each."""
    long_run = any(part in request.node.name for part in _LONG_RUNS)
    monkeypatch.setattr(streamed_import, "IMPORT_STREAM_FROM_BYTES", 0)
    monkeypatch.setattr(chunk_reader, "CHUNK_BYTES", 1 << 16 if long_run else 40)
    yield


def _stored(ws: Workspace) -> tuple[list[object], list[object], list[object]]:
    """The run's record (without its import time), rows and snapshot columns."""
    record = ws.conn.execute(
        "SELECT id, name, source, digest, lines, first_row, last_row FROM runs"
    ).fetchall()
    rows = ws.conn.execute("SELECT * FROM run_lines ORDER BY rowid").fetchall()
    columns = run_columns(ws, "r")
    values = [
        columns.query_ids.to_pylist(),
        columns.doc_ids.to_pylist(),
        columns.scores.tolist(),
        columns.ranks.tolist(),
        columns.lines.tolist(),
    ]
    return record, rows, values


@pytest.mark.parametrize(
    "data",
    [
        RUN.encode(),
        RUN.replace("\n", "\r\n").encode(),
        b"\xef\xbb\xbf" + RUN.encode(),
        gzip.compress(RUN.encode() * 30),
        "".join(f"q{i % 7} Q0 d{i} {i} {-i} x\n" for i in range(500)).encode(),
    ],
    ids=["plain", "crlf", "bom", "gzip", "interleaved"],
)
def test_a_file_imported_in_chunks_is_stored_as_when_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes
) -> None:
    path = tmp_path / "r.run"
    path.write_bytes(data)
    calls: list[str] = []
    writing = streamed_import.import_run_in_chunks
    monkeypatch.setattr(
        streamed_import,
        "import_run_in_chunks",
        lambda *args, **kwargs: calls.append("chunks") or writing(*args, **kwargs),
    )
    with init_workspace(tmp_path / "chunks.sqlite") as ws:
        import_run(ws, path)
        chunked = _stored(ws)
    assert calls == ["chunks"]
    monkeypatch.setattr(streamed_import, "IMPORT_STREAM_FROM_BYTES", 1 << 60)
    with init_workspace(tmp_path / "whole.sqlite") as ws:
        import_run(ws, path)
        whole = _stored(ws)
    assert chunked == whole


def test_a_file_that_changes_between_the_readings_is_refused(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "r.run", RUN)
    before = snapshot(ws)
    checked = streamed_import.check_run_file

    def check_then_append(file: str | Path) -> tuple[str, int]:
        result = checked(file)
        with open(file, "a", encoding="utf-8") as handle:  # written to meanwhile
            handle.write("q3 Q0 d5 1 1.0 bm25\n")
        return result

    monkeypatch.setattr(streamed_import, "check_run_file", check_then_append)
    with pytest.raises(InputError, match="changed while it was being imported") as caught:
        import_run(ws, path)
    assert caught.value.path == str(path)
    assert snapshot(ws) == before


def test_a_snapshot_beyond_sqlites_largest_blob_is_left_out(ws: Workspace, tmp_path: Path) -> None:
    path = write(tmp_path / "r.run", RUN * 40)
    # SQLite's limit on one blob, lowered for this connection to less than the snapshot
    ws.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2000)
    import_run(ws, path)
    ws.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1_000_000_000)
    assert ws.conn.execute("SELECT COUNT(*) FROM run_columns").fetchone()[0] == 0
    # read from its rows instead: the same lines
    assert len(run_columns(ws, "r")) == 200
