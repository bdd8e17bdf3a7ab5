"""Runs in the workspace: their lines kept as imported, and reading them back
as `RunEntry` lines (the reference path) or as columns (the fast path)."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from judgepool.core.errors import InputError
from judgepool.core.types import RunEntry
from judgepool.store.workspace import Workspace, now

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

ProgressCallback = Callable[[int, int], None]

# Rows per executemany() call: small enough for a lively progress bar, large
# enough that the per-call overhead does not show.
CHUNK: Final = 100_000


@dataclass(frozen=True)
class StoredRun:
    """A run's record: the name it is known by, where it came from, its digest."""

    id: int
    name: str
    source: str
    digest: str
    imported_at: str
    lines: int


@dataclass(frozen=True)
class StoredRunColumns:
    """A stored run as columns, in line order, with the attribute names of the
    fast reader's ``RunColumns``: ``query_ids``/``doc_ids`` are pyarrow string
    arrays, ``scores`` float64 and ``ranks``/``lines`` int64 numpy arrays."""

    query_ids: pa.Array
    doc_ids: pa.Array
    scores: np.ndarray[Any, np.dtype[np.float64]]
    ranks: np.ndarray[Any, np.dtype[np.int64]]
    lines: np.ndarray[Any, np.dtype[np.int64]]
    digest: str
    path: str


_RUN_COLUMNS: Final = "id, name, source, digest, imported_at, lines"


def _stored(row: tuple[Any, ...]) -> StoredRun:
    return StoredRun(int(row[0]), row[1], row[2], row[3], row[4], int(row[5]))


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
            f"; known runs: {', '.join(known)}" if known else "; import one with: judgepool import"
        )
        raise InputError(f"no run named {name!r} in the workspace{hint}", str(ws.path))
    return run


def insert_run(
    conn: sqlite3.Connection,
    *,
    name: str,
    source: str,
    digest: str,
    query_ids: Iterable[str],
    doc_ids: Iterable[str],
    ranks: Iterable[int],
    scores: Iterable[float],
    lines: Iterable[int],
    total: int,
    tags: Iterable[str | None] | None = None,
    on_progress: ProgressCallback | None = None,
) -> int:
    """Insert a run and its lines inside the caller's write transaction; returns its ID.

    The columns are consumed in step; they must be plain Python values
    (sqlite3 cannot bind numpy scalars).
    """
    cursor = conn.execute(
        "INSERT INTO runs (name, source, digest, imported_at, lines) VALUES (?, ?, ?, ?, ?)",
        (name, source, digest, now(), total),
    )
    run_id = cursor.lastrowid
    assert run_id is not None  # set by every INSERT into a rowid table
    rows: Iterable[tuple[Any, ...]]
    if tags is None:
        sql = (
            f"INSERT INTO run_lines (run_id, line, query_id, doc_id, rank, score) "
            f"VALUES ({run_id}, ?, ?, ?, ?, ?)"
        )
        rows = zip(lines, query_ids, doc_ids, ranks, scores, strict=False)
    else:
        sql = (
            f"INSERT INTO run_lines (run_id, line, query_id, doc_id, rank, score, tag) "
            f"VALUES ({run_id}, ?, ?, ?, ?, ?, ?)"
        )
        rows = zip(lines, query_ids, doc_ids, ranks, scores, tags, strict=False)
    iterator = iter(rows)
    done = 0
    if on_progress is not None:
        on_progress(0, total)
    while done < total:
        size = min(CHUNK, total - done)
        conn.executemany(sql, itertools.islice(iterator, size))
        done += size
        if on_progress is not None:
            on_progress(done, total)
    return run_id


def run_entries(ws: Workspace, name: str) -> list[RunEntry]:
    """The stored run's lines as `RunEntry`, in file order."""
    run = get_run(ws, name)
    cursor = ws.conn.execute(
        "SELECT query_id, doc_id, rank, score, line FROM run_lines WHERE run_id = ? ORDER BY line",
        (run.id,),
    )
    return list(map(RunEntry._make, cursor))


def run_columns(ws: Workspace, name: str) -> StoredRunColumns:
    """The stored run as columns (see `StoredRunColumns`), in file order."""
    import numpy as np
    import pyarrow as pa

    run = get_run(ws, name)
    rows = ws.conn.execute(
        "SELECT query_id, doc_id, rank, score, line FROM run_lines WHERE run_id = ? ORDER BY line",
        (run.id,),
    ).fetchall()
    if rows:
        query_ids, doc_ids, ranks, scores, lines = zip(*rows, strict=True)
    else:
        query_ids = doc_ids = ranks = scores = lines = ()
    return StoredRunColumns(
        query_ids=pa.array(query_ids, type=pa.string()),
        doc_ids=pa.array(doc_ids, type=pa.string()),
        scores=np.asarray(scores, dtype=np.float64),
        ranks=np.asarray(ranks, dtype=np.int64),
        lines=np.asarray(lines, dtype=np.int64),
        digest=run.digest,
        path=f"{ws.path}#{run.name}",
    )


def run_query_ids(ws: Workspace, name: str) -> list[str]:
    run = get_run(ws, name)
    return [
        row[0]
        for row in ws.conn.execute(
            "SELECT DISTINCT query_id FROM run_lines WHERE run_id = ? ORDER BY query_id",
            (run.id,),
        )
    ]


def run_names(ws: Workspace, names: Sequence[str] | None) -> list[StoredRun]:
    """The named runs (every run when ``names`` is None), each checked to exist."""
    if names is None:
        return list_runs(ws)
    return [get_run(ws, name) for name in names]
