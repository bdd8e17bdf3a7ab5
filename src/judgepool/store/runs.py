"""Runs in the workspace: their lines kept as imported, and reading them back
as `RunEntry` lines (the reference path) or as columns (the fast path).

Each run's lines are stored twice, in one transaction: as rows of
``run_lines`` (the record, queryable in SQL) and as a snapshot of Arrow
columns in ``run_columns`` (zstd-compressed IPC), which loads a million lines
in about a tenth of a second where the rows take seconds. A run without a
snapshot (imported by an older schema) is read from its rows.

pyarrow is imported in the functions that write and read the snapshot: every
command that opens a workspace imports this module, and most read no run.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from judgepool.core.progress import LinesCallback
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.types import RunEntry
from judgepool.display import quoted
from judgepool.store.bulk import insert_flat
from judgepool.store.workspace import Workspace, now

if TYPE_CHECKING:
    from judgepool.formats.fast_run import RunColumns

SNAPSHOT_FORMAT: Final = "arrow-ipc-stream"
_SNAPSHOT_NAMES: Final = ("query_id", "doc_id", "rank", "score", "line")

# Rows per executemany() call: small enough for a lively progress bar, large
# enough that the per-call overhead does not show.
CHUNK: Final = 100_000


@dataclass(frozen=True)
class StoredRun:
    """A run's record: the name it is known by, where it came from, its digest,
    and the rowids of its lines in ``run_lines``."""

    id: int
    name: str
    source: str
    digest: str
    imported_at: str
    lines: int
    first_row: int
    last_row: int


_RUN_COLUMNS: Final = "id, name, source, digest, imported_at, lines, first_row, last_row"
_LINES_OF_RUN: Final = (
    "SELECT query_id, doc_id, rank, score, line FROM run_lines "
    "WHERE rowid BETWEEN ? AND ? ORDER BY rowid"
)


def _stored(row: tuple[Any, ...]) -> StoredRun:
    return StoredRun(
        int(row[0]), row[1], row[2], row[3], row[4], int(row[5]), int(row[6]), int(row[7])
    )


def list_runs(ws: Workspace) -> list[StoredRun]:
    return [
        _stored(row) for row in ws.conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY name")
    ]


def find_run(ws: Workspace, name: str) -> StoredRun | None:
    row = ws.conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE name = ?", (name,)).fetchone()
    return None if row is None else _stored(row)


def get_run(ws: Workspace, name: str) -> StoredRun:
    run = find_run(ws, name)
    if run is None:
        known = [r.name for r in list_runs(ws)]
        hint = (
            f"; known runs: {', '.join(map(quoted, known))}"
            if known
            else "; import one with: judgepool import"
        )
        raise InputError(f"no run named {quoted(name)} in the workspace{hint}", str(ws.path))
    return run


def insert_run(
    conn: sqlite3.Connection,
    *,
    name: str,
    source: str,
    digest: str,
    query_ids: Sequence[str],
    doc_ids: Sequence[str],
    ranks: Sequence[int],
    scores: Sequence[float],
    lines: Sequence[int],
    tags: Sequence[str | None] | None = None,
    snapshot: Callable[[], bytes] | None = None,
    on_progress: LinesCallback | None = None,
) -> int:
    """Insert a run and its lines inside the caller's write transaction; returns its ID.

    The columns are equally long sequences of plain Python values (sqlite3
    cannot bind numpy scalars). ``snapshot`` gives the same lines encoded by
    `encode_snapshot`; it is called only once the rows are in, so the caller
    can encode in another thread meanwhile.
    """
    total = len(scores)
    columns: list[Sequence[Any]] = [lines, query_ids, doc_ids, ranks, scores]
    names = "line, query_id, doc_id, rank, score"
    if tags is not None:
        columns.append(tags)
        names += ", tag"
    if any(len(column) != total for column in columns):
        raise ValueError("run columns of different lengths")
    # Rowids continue from the largest, and no one else writes during our
    # transaction: the run's lines get exactly base + 1 .. base + total.
    base = conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM run_lines").fetchone()[0]
    cursor = conn.execute(
        "INSERT INTO runs (name, source, digest, imported_at, lines, first_row, last_row) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (name, source, digest, now(), total, base + 1, base + total),
    )
    run_id = cursor.lastrowid
    assert run_id is not None  # set by every INSERT into a rowid table
    width = len(columns)
    head = f"INSERT INTO run_lines (run_id, {names}) VALUES"
    row = "(" + ", ".join([str(run_id)] + ["?"] * width) + ")"
    if on_progress is not None:
        on_progress(0, total)
    for start in range(0, total, CHUNK):
        stop = min(start + CHUNK, total)
        flat: list[Any] = [None] * ((stop - start) * width)
        for offset, column in enumerate(columns):
            flat[offset::width] = column[start:stop]
        insert_flat(conn, head, row, width, flat)
        if on_progress is not None:
            on_progress(stop, total)
    last = conn.execute("SELECT MAX(rowid) FROM run_lines").fetchone()[0]
    if total and last != base + total:
        raise RuntimeError(f"run lines were given rowids up to {last}, not {base + total}")
    if snapshot is not None:
        conn.execute(
            "INSERT INTO run_columns (run_id, format, data) VALUES (?, ?, ?)",
            (run_id, SNAPSHOT_FORMAT, snapshot()),
        )
    return run_id


def encode_snapshot(query_ids: Any, doc_ids: Any, ranks: Any, scores: Any, lines: Any) -> bytes:
    """A run's columns (pyarrow arrays, numpy arrays or lists) as compressed
    Arrow IPC bytes. pyarrow releases the GIL while it encodes."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    table = pa.table(
        [
            query_ids if isinstance(query_ids, pa.Array) else pa.array(query_ids, pa.string()),
            doc_ids if isinstance(doc_ids, pa.Array) else pa.array(doc_ids, pa.string()),
            pa.array(ranks, pa.int64()),
            pa.array(scores, pa.float64()),
            pa.array(lines, pa.int64()),
        ],
        names=list(_SNAPSHOT_NAMES),
    )
    compression = "zstd" if pa.Codec.is_available("zstd") else None
    sink = pa.BufferOutputStream()
    options = ipc.IpcWriteOptions(compression=compression)
    with ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def _snapshot(ws: Workspace, run: StoredRun) -> Any:
    """The run's snapshot as a pyarrow Table, or None when it has none.

    A snapshot that does not decode, or decodes to other columns or another
    number of lines than the run's record, is damaged: an InputError naming the
    run and how to import it again (its rows are kept, but a workspace whose
    stored bytes changed under it is not one to score from without a word)."""
    row = ws.conn.execute(
        "SELECT format, data FROM run_columns WHERE run_id = ?", (run.id,)
    ).fetchone()
    if row is None or row[0] != SNAPSHOT_FORMAT:
        return None
    import pyarrow as pa
    import pyarrow.ipc as ipc

    try:
        table = ipc.open_stream(row[1]).read_all()
        problem = _snapshot_shape_problem(table)
        if problem is None and table.num_rows != run.lines:
            problem = f"it holds {table.num_rows} lines where the run has {run.lines}"
    except (pa.ArrowException, OSError, ValueError, TypeError) as exc:
        problem = str(exc) or type(exc).__name__
    if problem is not None:
        raise InputError(
            f"the stored copy of run {run.name!r} is damaged ({problem}). Import its file "
            f"again under a new name, e.g. judgepool import {ws.path} run {run.source} "
            f"--name {run.name}-again, and score that run",
            str(ws.path),
        )
    return table


def _snapshot_shape_problem(table: Any) -> str | None:
    """What differs from the columns `encode_snapshot` writes, or None."""
    import pyarrow as pa

    expected = {
        "query_id": (pa.string(), pa.large_string()),
        "doc_id": (pa.string(), pa.large_string()),
        "rank": (pa.int64(),),
        "score": (pa.float64(),),
        "line": (pa.int64(),),
    }
    schema = table.schema
    if schema.names != list(expected) or any(
        field.type not in expected[field.name] for field in schema
    ):
        return "its columns are " + ", ".join(f"{f.name} {f.type}" for f in schema)
    return None


def run_entries(ws: Workspace, name: str) -> list[RunEntry]:
    """The stored run's lines as `RunEntry`, in file order."""
    run = get_run(ws, name)
    table = _snapshot(ws, run)
    if table is not None:
        return list(
            map(RunEntry._make, zip(*(table[c].to_pylist() for c in _SNAPSHOT_NAMES), strict=True))
        )
    cursor = ws.conn.execute(_LINES_OF_RUN, (run.first_row, run.last_row))
    return list(map(RunEntry._make, cursor))


def run_columns(ws: Workspace, name: str) -> RunColumns:
    """The stored run as the fast reader's `RunColumns`, in file order, with
    every line number given (``lines`` is never None here)."""
    import numpy as np
    import pyarrow as pa

    from judgepool.core.scoring.arrow import numpy_of
    from judgepool.formats.fast_run import RunColumns

    run = get_run(ws, name)
    path = f"{ws.path}#{run.name}"
    table = _snapshot(ws, run)
    if table is not None:
        return RunColumns(
            path=path,
            query_ids=table["query_id"].combine_chunks(),
            doc_ids=table["doc_id"].combine_chunks(),
            # copies: arrays over Arrow buffers are read-only; and not pyarrow's
            # to_numpy, whose first use imports pandas (half a second, in the app)
            scores=np.array(numpy_of(table["score"]), dtype=np.float64),
            ranks=np.array(numpy_of(table["rank"]), dtype=np.int64),
            lines=np.array(numpy_of(table["line"]), dtype=np.int64),
            digest=run.digest,
        )
    rows = ws.conn.execute(_LINES_OF_RUN, (run.first_row, run.last_row)).fetchall()
    if rows:
        query_ids, doc_ids, ranks, scores, lines = zip(*rows, strict=True)
    else:
        query_ids = doc_ids = ranks = scores = lines = ()
    return RunColumns(
        path=path,
        query_ids=pa.array(query_ids, type=pa.string()),
        doc_ids=pa.array(doc_ids, type=pa.string()),
        scores=np.asarray(scores, dtype=np.float64),
        ranks=np.asarray(ranks, dtype=np.int64),
        lines=np.asarray(lines, dtype=np.int64),
        digest=run.digest,
    )


def run_query_ids(ws: Workspace, name: str) -> list[str]:
    run = get_run(ws, name)
    return [
        row[0]
        for row in ws.conn.execute(
            "SELECT DISTINCT query_id FROM run_lines WHERE rowid BETWEEN ? AND ? ORDER BY query_id",
            (run.first_row, run.last_row),
        )
    ]


def get_runs(ws: Workspace, names: Sequence[str] | None) -> list[StoredRun]:
    """The named runs (every run when ``names`` is None), each checked to exist."""
    if names is None:
        return list_runs(ws)
    return [get_run(ws, name) for name in names]
