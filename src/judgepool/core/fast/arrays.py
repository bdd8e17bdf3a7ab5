"""The array types of the fast engine and the index arithmetic its modules share.

Vocabulary used throughout `core.fast`: a *row* is a line of the run in
source order; a *position* is a place in the ranked order of the whole run
(every query's lines together, best first); a *segment* is one query's
stretch of positions; a *place* is a 0-based position inside one query's list.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
HashArray = npt.NDArray[np.uint64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

EMPTY_INTS: Final = np.zeros(0, dtype=np.int64)
EMPTY_FLOATS: Final = np.zeros(0, dtype=np.float64)


def ranges(starts: IntArray, lengths: IntArray) -> IntArray:
    """The concatenation of ``arange(start, start + length)`` for every pair."""
    lengths = np.maximum(lengths, 0)
    total = int(lengths.sum())
    if total == 0:
        return EMPTY_INTS
    ends = np.cumsum(lengths)
    shift: IntArray = np.repeat(starts - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift


def segment_of(starts: IntArray, positions: IntArray) -> IntArray:
    """Index of the segment (given by sorted start positions) holding each position."""
    return np.searchsorted(starts, positions, side="right").astype(np.int64) - 1


def first_of_each(groups: IntArray, count: int) -> IntArray:
    """For sorted group numbers, the index where each of groups ``0..count - 1``
    starts (where it would start, for a group with no entry)."""
    return np.searchsorted(groups, np.arange(count, dtype=np.int64), side="left")


def runs_of_pairs(pairs: IntArray) -> tuple[IntArray, IntArray]:
    """The maximal runs of equal neighbours, as (first, last) indices (inclusive),
    given ``pairs``: the sorted indices ``i`` where items ``i`` and ``i + 1`` are
    equal. Pairs 3, 4 and 7 make the runs 3..5 and 7..8."""
    if pairs.size == 0:
        return EMPTY_INTS, EMPTY_INTS
    starts_run = np.ones(pairs.size, dtype=bool)
    starts_run[1:] = pairs[1:] != pairs[:-1] + 1
    first = pairs[starts_run]
    last_pair = pairs[np.append(np.flatnonzero(starts_run)[1:] - 1, pairs.size - 1)]
    return first, last_pair + 1


def equal_neighbours(values: FloatArray, inside: BoolArray) -> IntArray:
    """Indices ``i`` where values ``i`` and ``i + 1`` are equal and ``inside[i]``
    (the two belong to one query)."""
    return np.flatnonzero((values[1:] == values[:-1]) & inside).astype(np.int64)
