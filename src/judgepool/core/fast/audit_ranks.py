"""Rank disagreements for every query at once (`audit._rank_disagreement` is
the reference, query by query).

Two lines of one query disagree when one has the strictly smaller rank and
the strictly smaller score. A query whose lines, in file order, have ranks
that never fall and scores that never rise has no such pair (a smaller rank
comes earlier in the file, so its score is not smaller): that is checked for
every query in one pass. Only the other queries (all of them in a run that
splits queries) are sorted by rank, and each line compared with the lowest
score of the strictly smaller ranks and the highest of the strictly greater
ones: running minima and maxima over groups of equal rank, made segmented
by turning scores into ordinals and offsetting each query's.
"""

from __future__ import annotations

import numpy as np

from judgepool.core.auditing.audit import MAX_DISAGREEMENT_LINES, RankDisagreement
from judgepool.core.fast.arrays import IntArray, ranges, segment_of
from judgepool.core.fast.indexed import IndexedRun


def _suspect_segments(indexed: IndexedRun) -> IntArray:
    """The segments that may hold a disagreement (every one when ungrouped)."""
    run, layout = indexed.run, indexed.layout
    if not layout.grouped:
        return np.arange(layout.count, dtype=np.int64)
    if run.size < 2:
        return np.zeros(0, dtype=np.int64)
    starts = layout.starts  # grouped: segments are stretches of rows
    inside = np.ones(run.size - 1, dtype=bool)
    inside[starts[1:] - 1] = False
    wrong = ((run.ranks[1:] < run.ranks[:-1]) | (run.scores[1:] > run.scores[:-1])) & inside
    return np.unique(segment_of(starts, np.flatnonzero(wrong))).astype(np.int64)


def rank_disagreements(indexed: IndexedRun) -> list[RankDisagreement]:
    """Every query's rank disagreement, by query ID."""
    run, layout = indexed.run, indexed.layout
    suspects = _suspect_segments(indexed)
    if suspects.size == 0:
        return []
    if layout.grouped:
        lengths = layout.lengths[suspects]
        rows = ranges(layout.starts[suspects], lengths)
        dense = np.repeat(np.arange(suspects.size, dtype=np.int64), lengths)
    else:
        assert layout.codes is not None
        rows = np.arange(run.size, dtype=np.int64)
        dense = layout.codes  # every segment is a suspect: its code is its number
    ranks = run.ranks[rows]
    order = np.lexsort((ranks, dense))
    rows, dense, ranks = rows[order], dense[order], ranks[order]
    # scores as ordinals: comparisons unchanged, and integers can be offset
    _, ordinal = np.unique(run.scores[rows], return_inverse=True)
    ordinal = ordinal.reshape(-1).astype(np.int64)
    span = int(ordinal.max()) + 1
    new_group = np.ones(rows.size, dtype=bool)
    new_group[1:] = (dense[1:] != dense[:-1]) | (ranks[1:] != ranks[:-1])
    group_starts = np.flatnonzero(new_group)
    group_of = np.cumsum(new_group) - 1
    group_dense = dense[group_starts]
    group_low = np.minimum.reduceat(ordinal, group_starts)
    group_high = np.maximum.reduceat(ordinal, group_starts)
    # later queries are offset lower, so a running minimum starts afresh in
    # each, and so does a running maximum taken backwards
    offset = group_dense * span
    running_low = np.minimum.accumulate(group_low - offset) + offset
    running_high = (np.maximum.accumulate((group_high - offset)[::-1]) + offset[::-1])[::-1]
    same_before = np.zeros(group_starts.size, dtype=bool)
    same_before[1:] = group_dense[1:] == group_dense[:-1]
    same_after = np.zeros(group_starts.size, dtype=bool)
    same_after[:-1] = group_dense[1:] == group_dense[:-1]
    # the lowest score of the strictly smaller ranks (none: above every ordinal)
    low_before = np.full(group_starts.size, span, dtype=np.int64)
    low_before[1:][same_before[1:]] = running_low[:-1][same_before[1:]]
    high_after = np.full(group_starts.size, -1, dtype=np.int64)
    high_after[:-1][same_after[:-1]] = running_high[1:][same_after[:-1]]
    involved = (low_before[group_of] < ordinal) | (high_after[group_of] > ordinal)
    if not involved.any():
        return []
    at = np.flatnonzero(involved)
    lines = np.array(run.line_numbers(rows[at]), dtype=np.int64)
    owners = dense[at]
    by_line = np.lexsort((lines, owners))
    lines, owners = lines[by_line], owners[by_line]
    found, first, counts = np.unique(owners, return_index=True, return_counts=True)
    segments = suspects[found] if layout.grouped else found
    listed = [
        RankDisagreement(
            layout.query_ids[segment],
            tuple(lines[start : start + min(count, MAX_DISAGREEMENT_LINES)].tolist()),
            count,
        )
        for segment, start, count in zip(
            segments.tolist(), first.tolist(), counts.tolist(), strict=True
        )
    ]
    listed.sort(key=lambda item: item.query_id)
    return listed
