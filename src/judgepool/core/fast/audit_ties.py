"""The audit's tie groups, for every query at once (`audit._tie_groups` is the
reference, query by query).

A tie group is the documents of one query's deduplicated list with exactly
equal scores, at least two of them and at least one in the top k; groups are
by score value, not adjacency. Where a list is in descending score order
(always under ``ties=trec_eval`` or ``docid``, and in most runs under
``rank`` or ``input``), equal scores are neighbours and a group is a run of
equal neighbours; only the lists that are not are sorted (by score, then
place), and their groups found the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgepool.core.auditing.audit import TieGroup
from judgepool.core.fast.arrays import (
    EMPTY_INTS,
    FloatArray,
    IntArray,
    ranges,
    runs_of_pairs,
    segment_of,
)
from judgepool.core.fast.judged import Matched
from judgepool.core.scoring.arrow import take
from judgepool.core.terms.contract import TiePolicy


@dataclass(frozen=True, eq=False)
class KeptLists:
    """Every query's deduplicated list, all of them end to end: entry ``i`` is
    the ranked position ``positions[i]`` (None: position ``i``, nothing was
    dropped), segment ``s``'s list starts at entry ``starts[s]``."""

    size: int
    positions: IntArray | None
    scores: FloatArray
    starts: IntArray

    @classmethod
    def of(cls, matched: Matched) -> KeptLists:
        layout, dropped = matched.layout, matched.duplicates.dropped
        size = int(layout.segment_starts[-1])
        if dropped.size == 0:
            return cls(size, None, layout.ordered_scores, layout.starts)
        kept = np.ones(size, dtype=bool)
        kept[dropped] = False
        positions = np.flatnonzero(kept).astype(np.int64)
        starts = layout.starts - np.searchsorted(dropped, layout.starts)
        return cls(positions.size, positions, layout.ordered_scores[positions], starts)

    def positions_of(self, entries: IntArray) -> IntArray:
        """The ranked position of each entry."""
        return entries.copy() if self.positions is None else self.positions[entries]

    def inside(self) -> np.ndarray:
        """``inside[i]``: entries ``i`` and ``i + 1`` belong to one list."""
        inside = np.ones(max(self.size - 1, 0), dtype=bool)
        inside[self.starts[1:] - 1] = False  # every list holds at least one entry
        return inside


def tie_groups(matched: Matched, k: int, ties: TiePolicy) -> list[TieGroup]:
    """Every query's tie groups touching its top k: by query ID, then by the
    place of the group's first member."""
    lists = KeptLists.of(matched)
    if lists.size < 2:
        return []
    scores, starts = lists.scores, lists.starts
    inside = lists.inside()
    equal = np.flatnonzero((scores[1:] == scores[:-1]) & inside).astype(np.int64)
    # each group as the entries `members[low:high]`
    member_parts: list[IntArray] = []
    lows: list[IntArray] = []
    highs: list[IntArray] = []
    unsorted = EMPTY_INTS
    if ties in ("rank", "input"):
        rises = np.flatnonzero((scores[1:] > scores[:-1]) & inside)
        if rises.size:
            unsorted = np.unique(segment_of(starts, rises))
            in_unsorted = np.zeros(starts.size, dtype=bool)
            in_unsorted[unsorted] = True
            equal = equal[~in_unsorted[segment_of(starts, equal)]]
    first, last = runs_of_pairs(equal)
    member_parts.append(ranges(first, last - first + 1))
    sizes = last - first + 1
    lows.append(np.cumsum(sizes) - sizes)
    highs.append(np.cumsum(sizes))
    if unsorted.size:
        ends = np.append(starts[1:], lists.size)
        lengths = ends[unsorted] - starts[unsorted]
        entries = ranges(starts[unsorted], lengths)
        owner = np.repeat(unsorted, lengths)
        order = np.lexsort((entries, -scores[entries], owner))
        entries, owner = entries[order], owner[order]
        pairs = np.flatnonzero(
            (scores[entries[1:]] == scores[entries[:-1]]) & (owner[1:] == owner[:-1])
        )
        first, last = runs_of_pairs(pairs)
        offset = int(highs[0][-1]) if highs[0].size else 0
        sizes = last - first + 1
        member_parts.append(entries[ranges(first, sizes)])
        lows.append(np.cumsum(sizes) - sizes + offset)
        highs.append(np.cumsum(sizes) + offset)
    members = np.concatenate(member_parts)
    low, high = np.concatenate(lows), np.concatenate(highs)
    if low.size == 0:
        return []
    # members ascend within a group: the first is the group's first place
    head, tail = members[low], members[high - 1]
    segment = segment_of(starts, head)
    first_place, last_place = head - starts[segment], tail - starts[segment]
    touching = np.flatnonzero(first_place < k)
    if touching.size == 0:
        return []
    low, high, head, segment = low[touching], high[touching], head[touching], segment[touching]
    crosses = (last_place[touching] >= k).tolist()
    first_place = first_place[touching]
    chosen = members[ranges(low, high - low)]
    rows = matched.layout.order.rows_at(lists.positions_of(chosen))
    docs = take(matched.indexed.run.doc_ids, rows).to_pylist()
    query_ids = matched.layout.query_ids
    bounds = np.append(0, np.cumsum(high - low)).tolist()
    groups = [
        (query_ids[seg], place, TieGroup(query_ids[seg], score, tuple(docs[b0:b1]), cross))
        for seg, place, score, cross, b0, b1 in zip(
            segment.tolist(),
            first_place.tolist(),
            scores[head].tolist(),
            crosses,
            bounds[:-1],
            bounds[1:],
            strict=True,
        )
    ]
    groups.sort(key=lambda item: (item[0], item[1]))
    return [group for _, _, group in groups]
