"""The run grouped by query and put in ranked order, touching as little as it can.

Most runs keep each query's lines together: adjacent query IDs are compared
once, and only a run that splits a query is dictionary-encoded and sorted.
Most runs are already in score order: that is checked pair by pair, only the
queries out of order are sorted (pyarrow's stable multi-key sort), and
elsewhere only the groups of equal scores, by document ID.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

import numpy as np
import pyarrow.compute as pc

from judgepool.core.fast.arrays import (
    EMPTY_INTS,
    BoolArray,
    FloatArray,
    IntArray,
    equal_neighbours,
    ranges,
    runs_of_pairs,
    segment_of,
)
from judgepool.core.fast.order import Order, sorted_subset
from judgepool.core.fast.run import Run
from judgepool.core.scoring.arrow import numpy_of, take
from judgepool.core.terms.contract import TiePolicy


@dataclass(frozen=True, eq=False)
class Queries:
    """The run's queries: each query's lines form one segment. Grouped: the
    lines of a query are contiguous in the file and segments are numbered in
    file order; otherwise segments are numbered by dictionary code (first
    appearance) and ``codes`` gives each row's segment."""

    query_ids: list[str]  # of each segment
    grouped: bool
    boundary: BoolArray  # grouped: row i + 1 starts a new segment
    starts: IntArray  # grouped: the first row of every segment
    codes: IntArray | None

    @property
    def count(self) -> int:
        return len(self.query_ids)

    def segment_ids(self, low: int, high: int) -> IntArray:
        """The segment of every row in ``low..high - 1``."""
        if self.codes is not None:
            return self.codes[low:high]
        first = int(np.searchsorted(self.starts, low, side="right")) - 1
        last = int(np.searchsorted(self.starts, high - 1, side="right")) - 1
        bounds = np.clip(np.append(self.starts[first + 1 : last + 1], high), low, high)
        lengths = np.diff(np.concatenate(([low], bounds)))
        ids: IntArray = np.repeat(np.arange(first, last + 1, dtype=np.int64), lengths)
        return ids


def find_queries(run: Run) -> Queries:
    """The run's segments: by adjacency when every query's lines are together."""
    if run.size == 0:
        return Queries([], True, np.zeros(0, dtype=bool), EMPTY_INTS, None)
    query_ids = run.query_ids
    boundary = numpy_of(pc.not_equal(query_ids.slice(1), query_ids.slice(0, run.size - 1)))
    starts = np.concatenate(([0], np.flatnonzero(boundary) + 1)).astype(np.int64)
    segment_query_ids: list[str] = take(query_ids, starts).to_pylist()
    if len(set(segment_query_ids)) == len(segment_query_ids):
        return Queries(segment_query_ids, True, boundary, starts, None)
    encoded = pc.dictionary_encode(query_ids)
    codes = numpy_of(encoded.indices).astype(np.int64)
    return Queries(encoded.dictionary.to_pylist(), False, boundary, starts, codes)


@dataclass(frozen=True, eq=False)
class Layout:
    """The run grouped by query (segments in ranked-order space) and ordered."""

    query_ids: list[str]  # of each segment
    segment_starts: IntArray  # length count + 1; positions in ranked order
    order: Order
    grouped: bool  # each query's lines are contiguous in the file
    codes: IntArray | None  # ungrouped: each row's query code, which is its segment
    ordered_scores: FloatArray  # scores in ranked order
    # pairs (i, i+1) of ranked positions with equal scores inside one segment
    equal_pairs: IntArray

    @property
    def count(self) -> int:
        """The number of segments (the run's distinct queries)."""
        return len(self.query_ids)

    @property
    def starts(self) -> IntArray:
        """The first ranked position of every segment."""
        return self.segment_starts[:-1]

    @property
    def lengths(self) -> IntArray:
        """The lines of every segment (duplicates included)."""
        lengths: IntArray = np.diff(self.segment_starts)
        return lengths

    def segment_of_rows(self, rows: IntArray) -> IntArray:
        """The segment (query) of each run row."""
        if self.grouped:
            return segment_of(self.starts, rows)
        assert self.codes is not None
        segments: IntArray = self.codes[rows]  # segment k is the query of code k
        return segments


def build_layout(run: Run, queries: Queries, ties: TiePolicy) -> Layout:
    """The run's segments and ranked order under the tie policy."""
    if run.size == 0:
        return Layout(
            [],
            np.zeros(1, dtype=np.int64),
            Order.identity_of(0),
            True,
            None,
            run.scores,
            EMPTY_INTS,
        )
    if queries.grouped:
        return _grouped_layout(run, ties, queries)
    assert queries.codes is not None
    return _ungrouped_layout(run, ties, queries.codes, queries.query_ids)


def _out_of_order(run: Run, inside: BoolArray, ties: TiePolicy) -> IntArray:
    """The pairs (i, i + 1) of rows of one query in the wrong order for the tie
    policy's first key (ties within the key are set right apart)."""
    match ties:
        case "trec_eval" | "docid":
            return np.flatnonzero((run.scores[1:] > run.scores[:-1]) & inside)
        case "rank":
            return np.flatnonzero((run.ranks[1:] < run.ranks[:-1]) & inside)
        case "input":
            return EMPTY_INTS
        case _:
            assert_never(ties)


def _orders_equal_scores(ties: TiePolicy) -> bool:
    """Whether lines of equal score are ordered by a second key (the document ID)."""
    match ties:
        case "trec_eval" | "docid":
            return True
        case "rank" | "input":
            return False
        case _:
            assert_never(ties)


def _grouped_layout(run: Run, ties: TiePolicy, queries: Queries) -> Layout:
    """A run whose queries are contiguous: segments are file stretches, and only
    the queries out of order and the groups of equal scores are sorted."""
    size, starts = run.size, queries.starts
    segment_starts = np.append(starts, size)
    scores = run.scores
    inside = ~queries.boundary
    wrong_pairs = _out_of_order(run, inside, ties)
    # the order as patches: (ranked positions, the rows that go there)
    patch_positions: list[IntArray] = []
    patch_rows: list[IntArray] = []
    resorted = np.zeros(queries.count, dtype=bool)
    if wrong_pairs.size:
        segments = np.unique(segment_of(starts, wrong_pairs))
        resorted[segments] = True
        lengths = segment_starts[segments + 1] - segment_starts[segments]
        rows = ranges(segment_starts[segments], lengths)
        patch_positions.append(rows)
        patch_rows.append(sorted_subset(run, rows, np.repeat(segments, lengths), ties))
    equal_pairs = equal_neighbours(scores, inside)
    if _orders_equal_scores(ties) and equal_pairs.size:
        pairs = equal_pairs
        if wrong_pairs.size:  # the queries sorted whole already have their ties in order
            pairs = pairs[~resorted[segment_of(starts, pairs)]]
        if pairs.size:
            first, last = runs_of_pairs(pairs)
            lengths = last - first + 1
            rows = ranges(first, lengths)
            group = np.repeat(np.arange(first.size, dtype=np.int64), lengths)
            patch_positions.append(rows)
            patch_rows.append(sorted_subset(run, rows, group, ties, equal_scores=True))
    if patch_positions:
        positions = np.concatenate(patch_positions)
        rows = np.concatenate(patch_rows)
        if len(patch_positions) > 1:  # each patch on its own is in position order
            by_position = np.argsort(positions, kind="stable")
            positions, rows = positions[by_position], rows[by_position]
        moved = positions != rows
        order = Order(size, positions[moved], rows[moved])
    else:
        order = Order.identity_of(size)
    ordered_scores = scores
    # moving equal scores changes nothing, but for the sign of a zero (0.0 ==
    # -0.0): a tie group's score is its first member's, as the reference's
    if not order.identity and (wrong_pairs.size or _moves_a_negative_zero(scores, order)):
        ordered_scores = scores.copy()
        ordered_scores[order.moved_positions] = scores[order.moved_rows]
        equal_pairs = equal_neighbours(ordered_scores, inside)
    return Layout(queries.query_ids, segment_starts, order, True, None, ordered_scores, equal_pairs)


def _moves_a_negative_zero(scores: FloatArray, order: Order) -> bool:
    """Whether the order moves a -0.0 (ties by document ID may put it
    before an equal 0.0)."""
    moved = scores[order.moved_rows]
    return bool(np.any((moved == 0.0) & np.signbit(moved)))


def _ungrouped_layout(run: Run, ties: TiePolicy, codes: IntArray, query_ids: list[str]) -> Layout:
    """A run that splits queries: every line sorted, by query code first, which
    makes segment k the query of code k."""
    size = run.size
    rows = np.arange(size, dtype=np.int64)
    ordered_rows = sorted_subset(run, rows, codes, ties)
    ordered_codes = codes[ordered_rows]
    change = np.flatnonzero(ordered_codes[1:] != ordered_codes[:-1]) + 1
    segment_starts = np.concatenate(([0], change, [size])).astype(np.int64)
    ordered_scores = run.scores[ordered_rows]
    inside = ordered_codes[1:] == ordered_codes[:-1]
    return Layout(
        query_ids,
        segment_starts,
        Order(size, rows, ordered_rows),
        False,
        codes,
        ordered_scores,
        equal_neighbours(ordered_scores, inside),
    )
