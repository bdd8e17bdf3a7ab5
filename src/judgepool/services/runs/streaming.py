"""Reading a large run file in chunks of whole queries, in bounded memory.

A run file of at least `STREAM_FROM_BYTES` (plain, or gzip) is read chunk by
chunk (`formats.fast_run.chunks.RunChunks`) into a pass that scores it, audits
it or both (`read_in_chunks`; the pass is `core.fast.run_pass.RunPass`, which
`judgepool.services.runs.passes` hands it): the memory held is that of a chunk,
not of the file, and the numbers and findings are those of the whole-file fast
engine, bit for bit. An audit's reading lists every bad line with its line in
the file and counts the file's lines as the whole-file reader does. Smaller
files are read whole, as before: a little faster (the whole-file reader
overlaps its work better), for at most about three times the file's size in
memory (under 1.5 GB). So are streams that cannot be read twice (a FIFO,
``/dev/stdin``): a run that splits a query could not be read again. Whether
a run is read in chunks is `streams`, which the passes ask once.

A run that does not keep each query's lines together is found out on the way
(a query comes back in a later chunk). It is then read a second time, its rows
grouped by query through temporary files (`formats.fast_run.partitions`), and
passed partition by partition: still bounded memory, about twice the time and
the run's size on disk for a while; a note on stderr says so.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Final, Protocol, TypeVar

from judgepool.core.fast.chunked import ChunkedQueries, QuerySplit
from judgepool.core.fast.run import ColumnarRun
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import Judgments
from judgepool.formats.fast_run.chunks import RunBlocks, RunChunks
from judgepool.formats.fast_run.partitions import QueryPartitions
from judgepool.formats.source import GZIP_MAGIC, is_regular_file
from judgepool.formats.trec import BadLine

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


class ChunkPass(Protocol):
    """What a run read in chunks is handed to: `core.fast.run_pass.RunPass`, or
    `core.fast.chunked.ChunkedQueries` alone."""

    def add(self, chunk: ColumnarRun) -> None: ...


P = TypeVar("P", bound=ChunkPass)


def read_in_chunks(
    path: str | Path,
    name: str,
    start: Callable[[], P],
    *,
    bad_lines: list[BadLine] | None = None,
    stage: str = "scoring",
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback = stderr_note,
) -> tuple[P, RunBlocks]:
    """The run file read chunk by chunk of whole queries into a pass that
    ``start`` gives (a new one if the run must be read again, grouped by
    query), and the blocks it was read from (its ``digest`` and
    ``physical_lines``).

    Given ``bad_lines`` (an audit's reading), the bad lines go there with
    their line in the file and the reading goes on; without, the first raises
    its `InputError`, as the whole-file reader does. ``stage`` names what the
    pass does, in the progress ("reading and scoring NAME (N lines)").
    """
    chunks = RunChunks(path, chunk_bytes, bad_lines)
    chunk_pass = start()
    try:
        # closed on the way out, whatever stops the loop: the reading thread
        # and the file go now, not when the generator is collected
        with closing(iter(chunks)) as reading:
            for chunk in reading:
                chunk_pass.add(chunk)
                on_progress(f"reading and {stage} {name} ({chunks.rows:,} lines)")
        return chunk_pass, chunks.blocks
    except QuerySplit as split:
        count = grouping_partitions(path, name, split.query_id, chunks.blocks, on_note)
    # the second reading: rows to partitions by query, then each partition
    # (whole queries) into a new pass
    if bad_lines is not None:
        bad_lines.clear()
    blocks = RunBlocks(path, chunk_bytes, bad_lines)
    chunk_pass = start()
    with tempfile.TemporaryDirectory(prefix="judgepool-groups-") as directory:
        partitions = QueryPartitions(count, Path(directory))
        with closing(iter(blocks)) as reading:
            for block in reading:
                partitions.add(block)
        for partition in partitions.chunks():
            chunk_pass.add(partition)  # whole queries: never QuerySplit
    return chunk_pass, blocks


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
    reader does. (Scoring a run goes through `judgepool.services.runs.passes`,
    which reads a large file this way; this is the chunked reading alone, for
    the tests that hold it to the whole-file one.)
    """
    merged, blocks = read_in_chunks(
        path,
        name,
        lambda: ChunkedQueries(judgments, contract, with_tops=with_tops),
        chunk_bytes=chunk_bytes,
        on_progress=on_progress,
        on_note=on_note,
    )
    return merged, blocks.digest


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
