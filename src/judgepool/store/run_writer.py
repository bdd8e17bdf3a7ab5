"""Writing a run into the workspace a chunk at a time: `RunWriter`.

`runs.insert_run` takes a whole run as Python lists, which for millions of
lines costs gigabytes; this writes the same rows (``run_lines``) and the same
column snapshot (``run_columns``: zstd-compressed Arrow IPC, here one record
batch per chunk) from the columns of one chunk at a time, inside the caller's
write transaction. The run's record is written first, from its digest and line
count (known from a first reading of the file), and `finish` checks that the
chunks held exactly that many lines.

Only the compressed snapshot grows with the run (about 16 bytes a line); one
larger than SQLite's largest blob is left out (`finish`).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.ipc as ipc

from judgepool.core.scoring.arrow import arrow_numbers
from judgepool.store.bulk import insert_flat
from judgepool.store.runs import SNAPSHOT_FORMAT
from judgepool.store.workspace import now

# the columns `runs.encode_snapshot` writes, in its order
_SCHEMA: Final = pa.schema(
    [
        ("query_id", pa.string()),
        ("doc_id", pa.string()),
        ("rank", pa.int64()),
        ("score", pa.float64()),
        ("line", pa.int64()),
    ]
)
_NAMES: Final = "line, query_id, doc_id, rank, score"


class RunWriter:
    """One run's record, rows and snapshot, written chunk by chunk (`add`),
    then completed (`finish`), all in the caller's write transaction."""

    def __init__(
        self, conn: sqlite3.Connection, *, name: str, source: str, digest: str, total: int
    ) -> None:
        self._conn = conn
        self._total = total
        self._written = 0
        # Rowids continue from the largest, and no one else writes during our
        # transaction: the run's lines get exactly base + 1 .. base + total.
        self._base = conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM run_lines").fetchone()[0]
        cursor = conn.execute(
            "INSERT INTO runs (name, source, digest, imported_at, lines, first_row, last_row) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, source, digest, now(), total, self._base + 1, self._base + total),
        )
        assert cursor.lastrowid is not None  # set by every INSERT into a rowid table
        self.run_id: int = cursor.lastrowid
        self._head = f"INSERT INTO run_lines (run_id, {_NAMES}) VALUES"
        self._row = f"({self.run_id}, ?, ?, ?, ?, ?)"
        compression = "zstd" if pa.Codec.is_available("zstd") else None
        self._sink = pa.BufferOutputStream()
        self._snapshot: ipc.RecordBatchStreamWriter | None = ipc.new_stream(
            self._sink, _SCHEMA, options=ipc.IpcWriteOptions(compression=compression)
        )

    @property
    def written(self) -> int:
        """The lines written so far."""
        return self._written

    def add(
        self,
        query_ids: pa.Array,
        doc_ids: pa.Array,
        ranks: npt.NDArray[np.int64],
        scores: npt.NDArray[np.float64],
        lines: npt.NDArray[np.int64],
    ) -> None:
        """Write one chunk of lines (in file order, after the previous chunk's)."""
        count = len(scores)
        if not count:
            return
        if self._written + count > self._total:
            raise ValueError(f"more than the {self._total} lines the run's record says")
        # tolist(): sqlite3 binds Python values only, not numpy scalars
        columns: list[list[Any]] = [
            lines.tolist(),
            query_ids.to_pylist(),
            doc_ids.to_pylist(),
            ranks.tolist(),
            scores.tolist(),
        ]
        flat: list[Any] = [None] * (count * len(columns))
        for offset, column in enumerate(columns):
            flat[offset :: len(columns)] = column
        del columns
        insert_flat(self._conn, self._head, self._row, 5, flat)
        del flat
        self._written += count
        if self._snapshot is None:
            return
        self._snapshot.write_batch(
            pa.record_batch(
                [
                    query_ids.cast(pa.string()),
                    doc_ids.cast(pa.string()),
                    arrow_numbers(ranks),
                    arrow_numbers(scores),
                    arrow_numbers(lines),
                ],
                schema=_SCHEMA,
            )
        )
        if self._sink.tell() > self._conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH):
            # beyond SQLite's largest blob (1 GB: some 60 M lines): the run is
            # kept without a snapshot, and read from its rows, as a run
            # imported before snapshots were; its memory goes now
            self._snapshot.close()
            self._snapshot = None
            self._sink = pa.BufferOutputStream()

    def finish(self) -> int:
        """Check that every line the record counts was written, store the
        snapshot, and return the run's ID."""
        if self._written != self._total:
            raise ValueError(f"{self._written} lines written, the record says {self._total}")
        last = self._conn.execute("SELECT MAX(rowid) FROM run_lines").fetchone()[0]
        if self._total and last != self._base + self._total:
            raise RuntimeError(
                f"run lines were given rowids up to {last}, not {self._base + self._total}"
            )
        if self._snapshot is None:
            return self.run_id  # too large to keep (`add`)
        self._snapshot.close()
        data = self._sink.getvalue()
        if data.size > self._conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH):
            return self.run_id  # the end-of-stream mark took it over the limit
        self._conn.execute(
            "INSERT INTO run_columns (run_id, format, data) VALUES (?, ?, ?)",
            # a view of the snapshot's buffer, bound as a blob without a copy
            (self.run_id, SNAPSHOT_FORMAT, memoryview(data)),
        )
        return self.run_id
