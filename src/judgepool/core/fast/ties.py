"""The tie range: DCG@k of every final list with each group of equal scores in
its worst and in its best order (`metrics.tie_range_gains` is the reference).

Only the judged lines carry gain, so a group's worst order puts its positive
gains at its end, in ascending order, and its best order at its start, in
descending order; the other lines keep their places.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgepool.core.fast.arrays import (
    FloatArray,
    IntArray,
    equal_neighbours,
    first_of_each,
    runs_of_pairs,
    segment_of,
)
from judgepool.core.fast.judged import Matched, RankedJudged, keeps_unjudged
from judgepool.core.fast.measures import Cutoff, sum_in_order
from judgepool.core.terms.contract import Contract


@dataclass(frozen=True, eq=False)
class FinalTies:
    """The equal scores of the final lists, all queries' lists end to end:
    ``pairs`` the indices i where entries i and i + 1 of one list have equal
    scores, ``index`` the entry of every judged line (`RankedJudged` order)
    and ``starts`` the first entry of every segment's list."""

    pairs: IntArray
    index: IntArray
    starts: IntArray


def final_ties(matched: Matched, lines: RankedJudged, contract: Contract) -> FinalTies:
    """The tie groups of the final lists under the contract's unjudged policy."""
    if not keeps_unjudged(contract):
        # the final lists are the judged lines; groups among consecutive ones
        scores = matched.indexed.run.scores[lines.rows]
        segments = lines.segments
        pairs = equal_neighbours(scores, segments[1:] == segments[:-1])
        index = np.arange(segments.size, dtype=np.int64)
        return FinalTies(pairs, index, first_of_each(segments, lines.count))
    layout, dropped = matched.layout, matched.duplicates.dropped
    if not dropped.size:
        return FinalTies(layout.equal_pairs, lines.positions, layout.starts)
    kept = np.ones(layout.segment_starts[-1], dtype=bool)
    kept[dropped] = False
    kept_positions = np.flatnonzero(kept)
    kept_scores = layout.ordered_scores[kept_positions]
    kept_segments = segment_of(layout.starts, kept_positions)
    pairs = equal_neighbours(kept_scores, kept_segments[1:] == kept_segments[:-1])
    # a kept position's entry: the position less the copies dropped before it
    index = lines.positions - np.searchsorted(dropped, lines.positions)
    starts = layout.starts - np.searchsorted(dropped, layout.starts)
    return FinalTies(pairs, index, starts)


def tie_range(
    ties: FinalTies, lines: RankedJudged, cutoff: Cutoff
) -> tuple[FloatArray, FloatArray]:
    """DCG@k of every segment's final list with each tie group in its worst
    order, and in its best."""
    k, discounts, count = cutoff.k, cutoff.discounts, lines.count
    segments, places, gains = lines.segments, lines.final_places, lines.gains
    in_top = places < k
    # tie groups: runs of consecutive equal pairs, as [first, last] entries
    group_first, group_last = runs_of_pairs(ties.pairs)
    # the starts ascend (empty segments of the condensed lists share a start:
    # side="right" picks the last of them, the one the entry belongs to)
    group_segment = segment_of(ties.starts, group_first)
    group_place = group_first - ties.starts[group_segment]
    touching = group_place < k  # the groups that reach into the top k
    group_first, group_last, group_segment, group_place = (
        group_first[touching],
        group_last[touching],
        group_segment[touching],
        group_place[touching],
    )
    if group_first.size == 0:
        top_places = places[in_top]
        base = sum_in_order(
            segments[in_top], top_places, gains[in_top] * discounts[top_places], count
        )
        return base, base
    # which judged line sits in which (touching) group
    group_of_line = np.searchsorted(group_first, ties.index, side="right") - 1
    member = (group_of_line >= 0) & (ties.index <= group_last[np.maximum(group_of_line, 0)])
    # the lines outside every group keep their place
    outside = ~member & in_top
    base_segments = segments[outside]
    base_places = places[outside]
    base_terms = gains[outside] * discounts[places[outside]]
    # the group members with gain move: sorted by group, then ascending gain
    positive = member & (gains > 0)
    member_groups, member_gains = group_of_line[positive], gains[positive]
    by_group_and_gain = np.lexsort((member_gains, member_groups))
    member_groups = member_groups[by_group_and_gain]
    member_gains = member_gains[by_group_and_gain]
    rank_up = (
        np.arange(member_groups.size, dtype=np.int64)
        - first_of_each(member_groups, group_first.size)[member_groups]
    )
    positive_count = np.bincount(member_groups, minlength=group_first.size).astype(np.int64)
    length = group_last - group_first + 1
    start = group_place[member_groups]
    # worst: the gains last in the group, ascending; best: first, descending
    worst_place = start + (length[member_groups] - positive_count[member_groups]) + rank_up
    best_place = start + (positive_count[member_groups] - 1 - rank_up)
    results = []
    for moved_place in (worst_place, best_place):
        inside = moved_place < k
        results.append(
            sum_in_order(
                np.concatenate((base_segments, group_segment[member_groups][inside])),
                np.concatenate((base_places, moved_place[inside])),
                np.concatenate((base_terms, member_gains[inside] * discounts[moved_place[inside]])),
                count,
            )
        )
    return results[0], results[1]
