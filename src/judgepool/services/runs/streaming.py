"""Scoring a large run file in chunks of whole queries, in bounded memory.

A run file of at least `STREAM_FROM_BYTES` (plain, or gzip) is read and scored
chunk by chunk (`formats.fast_run.chunks.RunChunks`, then
`core.fast.chunked.ChunkedQueries`): the memory held is that of a chunk, not of
the file, and the numbers are those of the whole-file fast engine, bit for bit.
Smaller files are read whole, as before: a little faster (the whole-file
reader overlaps its work better), for at most about three times the file's
size in memory (under 1.5 GB). So are streams that cannot be read twice (a
FIFO, ``/dev/stdin``): a run that splits a query could not be read again.

A run that does not keep each query's lines together is found out on the way
(a query comes back in a later chunk). It is then read a second time, its rows
grouped by query through temporary files (`formats.fast_run.partitions`), and
scored partition by partition: still bounded memory, about twice the time and
the run's size on disk for a while; a note on stderr says so.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Final

from judgepool.core.contract import Contract
from judgepool.core.fast.chunked import ChunkedQueries, QuerySplit
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.types import Judgments
from judgepool.formats.fast_run.chunks import RunBlocks, RunChunks
from judgepool.formats.fast_run.partitions import QueryPartitions
from judgepool.formats.source import GZIP_MAGIC, is_regular_file

# Below this (the file's size, or a gzip file's estimated size), the run is read
# whole: measured on the 6.98 M-line run (276 MB), see tests/benchmarks/bench_scale.py.
STREAM_FROM_BYTES: Final = 512 << 20
# A gzip run is taken to be this many times its compressed size (TREC runs
# compress 4 to 6 times): only to choose between the two readings.
GZIP_RATIO: Final = 4
MAX_PARTITIONS: Final = 1024


def stderr_note(text: str) -> None:
    """Say ``text`` on stderr (the default for a note on how a run is read)."""
    print(f"judgepool: note: {text}", file=sys.stderr, flush=True)


def streams(path: str | Path, threshold: int | None = None) -> bool:
    """Whether the run file ``path`` is read in chunks: a regular file (it may be
    read twice) whose content is at least ``threshold`` bytes (default
    `STREAM_FROM_BYTES`)."""
    if not is_regular_file(path):
        return False
    try:
        with open(path, "rb") as handle:
            gzipped = handle.read(2) == GZIP_MAGIC
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return False  # the whole-file reader says what is wrong
    estimate = size * GZIP_RATIO if gzipped else size
    return estimate >= (STREAM_FROM_BYTES if threshold is None else threshold)


def score_in_chunks(
    path: str | Path,
    name: str,
    judgments: Judgments,
    contract: Contract,
    *,
    with_tops: bool = False,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback = stderr_note,
) -> tuple[ChunkedQueries, str]:
    """The run file's queries scored chunk by chunk (`ChunkedQueries`: its
    ``evaluation`` and ``tops``; ``rows``, the lines read) and the file's digest.

    Raises the `InputError` of the run's first bad line, as the whole-file
    reader does.
    """
    chunks = RunChunks(path, chunk_bytes)
    merged = ChunkedQueries(judgments, contract, with_tops=with_tops)
    try:
        # closed on the way out, whatever stops the loop: the reading thread
        # and the file go now, not when the generator is collected
        with closing(iter(chunks)) as reading:
            for chunk in reading:
                merged.add(chunk)
                on_progress(f"reading and scoring {name} ({chunks.rows:,} lines)")
        return merged, chunks.digest
    except QuerySplit as split:
        count = grouping_partitions(path, name, split.query_id, chunks.blocks, on_note)
    return _score_grouped(path, name, judgments, contract, with_tops, chunk_bytes, count)


def grouping_partitions(
    path: str | Path, name: str, query_id: str, blocks: RunBlocks, on_note: StageCallback
) -> int:
    """How many partitions to group a run that splits ``query_id`` into
    (about a chunk each), from how far ``blocks`` got; says so with ``on_note``."""
    # the whole run's size, from how far into the file the reading got
    read_share = blocks.raw_position / max(1, os.path.getsize(path))
    estimate = blocks.bytes_read / max(read_share, 1e-9)
    count = min(MAX_PARTITIONS, max(1, math.ceil(estimate / blocks.chunk_bytes)))
    on_note(
        f"{name} does not keep each query's lines together (query {query_id!r} "
        "comes back after other queries): reading it again, grouped by query through "
        f"{count} temporary file{'' if count == 1 else 's'} in {tempfile.gettempdir()} "
        "(about the run's size on "
        "disk, for as long as it is scored): about twice the time"
    )
    return count


def _score_grouped(
    path: str | Path,
    name: str,
    judgments: Judgments,
    contract: Contract,
    with_tops: bool,
    chunk_bytes: int | None,
    count: int,
) -> tuple[ChunkedQueries, str]:
    """The second reading: rows to partitions by query, then each partition
    (whole queries) scored."""
    blocks = RunBlocks(path, chunk_bytes)
    merged = ChunkedQueries(judgments, contract, with_tops=with_tops)
    with tempfile.TemporaryDirectory(prefix="judgepool-groups-") as directory:
        partitions = QueryPartitions(count, Path(directory))
        with closing(iter(blocks)) as reading:
            for block in reading:
                partitions.add(block)
        for partition in partitions.chunks():
            merged.add(partition)  # whole queries: never QuerySplit
    return merged, blocks.digest
