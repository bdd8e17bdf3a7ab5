"""The columns every tier of the run reader produces, and how they are joined.

The reader's memory comes from one pool (`POOL`): after a parse, large
buffers are handed back to the system (`release`) before the next column is
copied out, which keeps the peak near one copy of the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from judgepool.core.scoring.arrow import combine_strings, numpy_of


def _reader_pool() -> pa.MemoryPool:
    # jemalloc, where pyarrow has it: after a parse, the default (mimalloc)
    # spent ~0.15 s handing the parser's memory back on the next large
    # allocation; jemalloc does not (measured on the 7-million-line run).
    # (pa.jemalloc_set_decay_ms(0) would lower the peak by ~100 MB, returning
    # freed pages at once, but is process-wide and cost read time here.)
    try:
        return pa.jemalloc_memory_pool()
    except (pa.ArrowNotImplementedError, NotImplementedError):
        return pa.default_memory_pool()


POOL = _reader_pool()


def release() -> None:
    """Ask the reader's pool to hand freed memory back to the system (mimalloc
    does so at once; jemalloc after its decay time)."""
    POOL.release_unused()


@dataclass(frozen=True, eq=False)
class ParsedRun:
    """The columns of `RunColumns` without path and digest (see there)."""

    query_ids: pa.Array
    doc_ids: pa.Array
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64]
    lines: npt.NDArray[np.int64] | None


@dataclass(eq=False)
class Block:
    """Columns of one stretch of the file; ``lines`` None means consecutive
    lines from the stretch's first line."""

    query_ids: Sequence[pa.Array]
    doc_ids: Sequence[pa.Array]
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64] | list[int]
    lines: npt.NDArray[np.int64] | None


def block_as_run(block: Block) -> ParsedRun:
    """The run of a block that is the whole file."""
    return ParsedRun(
        combine(block.query_ids),
        combine(block.doc_ids),
        block.scores,
        combine_ranks([block.ranks]),
        None,
    )


def combine(parts: Sequence[pa.Array] | pa.ChunkedArray) -> pa.Array:
    """One contiguous string array from parts, in the reader's pool
    (large_string beyond 2 GB of text)."""
    return combine_strings(parts, memory_pool=POOL)


def combine_ranks(parts: Sequence[npt.NDArray[np.int64] | list[int]]) -> npt.NDArray[np.int64]:
    """The rank column as one int64 array (every reader refuses a rank beyond int64)."""
    arrays = [np.asarray(part, dtype=np.int64) for part in parts]
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)


def numeric(chunks: list[pa.Array], dtype: type[np.generic]) -> npt.NDArray[Any]:
    """A null-free numeric column as one numpy array (a view of arrow memory).
    ``chunks`` is emptied, so that the parsed pieces can go once joined."""
    if not chunks:
        return np.zeros(0, dtype=dtype)
    joined = chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks, memory_pool=POOL)
    chunks.clear()
    if len(joined) == 0:
        return np.zeros(0, dtype=dtype)
    release()
    return numpy_of(joined)
