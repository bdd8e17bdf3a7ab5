"""A run's rows grouped by query through temporary files: `QueryPartitions`.

For a run that does not keep each query's lines together, in bounded memory:
every row goes to one of ``count`` partition files chosen by a hash of its
query ID (Arrow IPC streams, written as the chunks come), so each query's rows
end up whole in one partition, in source order, with their line numbers. Each
partition is then read back alone: a chunk of whole queries, about the run's
size over ``count``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa

from judgepool.core.scoring.arrow import arrow_numbers, numpy_of, take
from judgepool.formats.fast_run.chunks import RunChunk
from judgepool.formats.fast_run.columns import combine

_SCHEMA = pa.schema(
    [
        ("query", pa.large_string()),
        ("doc", pa.large_string()),
        ("score", pa.float64()),
        ("rank", pa.int64()),
        ("line", pa.int64()),
    ]
)


class QueryPartitions:
    """``count`` partition files in ``directory`` (which the caller owns and
    removes): `add` rows, then take the partitions back with `chunks`."""

    def __init__(self, count: int, directory: Path) -> None:
        self.count = max(1, count)
        self._paths = [directory / f"partition-{index}.arrow" for index in range(self.count)]
        self._writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}

    def add(self, chunk: RunChunk) -> None:
        """Append every row of ``chunk`` to its query's partition."""
        if not len(chunk):
            return
        encoded = chunk.query_ids.dictionary_encode()
        # Python's string hash: fixed within the process, which is all it must be
        of_value = np.array(
            [hash(value) % self.count for value in encoded.dictionary.to_pylist()],
            dtype=np.int64,
        )
        partition = of_value[numpy_of(encoded.indices)]
        order = np.argsort(partition, kind="stable")  # source order within a partition
        found, starts = np.unique(partition[order], return_index=True)
        bounds = [*starts.tolist(), len(order)]
        for at, index in enumerate(found.tolist()):
            rows = order[bounds[at] : bounds[at + 1]]
            batch = pa.record_batch(
                [
                    take(chunk.query_ids, rows).cast(pa.large_string()),
                    take(chunk.doc_ids, rows).cast(pa.large_string()),
                    arrow_numbers(chunk.scores[rows]),
                    arrow_numbers(chunk.ranks[rows]),
                    arrow_numbers(chunk.lines[rows]),
                ],
                schema=_SCHEMA,
            )
            self._writer(index).write_batch(batch)

    def _writer(self, index: int) -> pa.ipc.RecordBatchStreamWriter:
        writer = self._writers.get(index)
        if writer is None:
            writer = pa.ipc.new_stream(str(self._paths[index]), _SCHEMA)
            self._writers[index] = writer
        return writer

    def chunks(self) -> Iterator[RunChunk]:
        """Each partition's rows (whole queries, in source order), one partition
        at a time; a partition's file is removed once read."""
        for writer in self._writers.values():
            writer.close()
        for index in sorted(self._writers):
            path = self._paths[index]
            with pa.OSFile(str(path)) as source:
                table = pa.ipc.open_stream(source).read_all()
            chunk = RunChunk(
                combine(table.column("query")),
                combine(table.column("doc")),
                np.array(numpy_of(table.column("score")), dtype=np.float64),
                np.array(numpy_of(table.column("rank")), dtype=np.int64),
                np.array(numpy_of(table.column("line")), dtype=np.int64),
            )
            del table
            path.unlink()
            yield chunk
        self._writers.clear()
