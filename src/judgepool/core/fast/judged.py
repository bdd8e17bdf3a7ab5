"""What every measure reads: the run matched against the judgments, its judged
lines in ranked order, the sizes of every query's lists, and the judged
universe of every judged query the run returned."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import assert_never

import numpy as np

from judgepool.core.fast.arrays import BoolArray, FloatArray, IntArray, first_of_each, segment_of
from judgepool.core.fast.duplicates import Duplicates
from judgepool.core.fast.indexed import IndexedRun
from judgepool.core.fast.layout import Layout
from judgepool.core.fast.matching import JudgedLines
from judgepool.core.fast.measures import GainTable
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import Judgments


def keeps_unjudged(contract: Contract) -> bool:
    """Whether the final list keeps the unjudged documents (at gain 0), or holds
    the judged ones only (``condense``). Under ``reject`` a run with unjudged
    documents in the top k is refused, and those beyond it stay in the list."""
    match contract.unjudged:
        case "reject" | "zero":
            return True
        case "condense":
            return False
        case _:
            assert_never(contract.unjudged)


@dataclass(frozen=True, eq=False)
class Matched:
    """The run matched against the judgments: its judged lines and the
    duplicate copies, which every query's deduplicated list leaves out."""

    indexed: IndexedRun
    lookup: JudgedLines
    duplicates: Duplicates

    @property
    def layout(self) -> Layout:
        return self.indexed.layout

    @property
    def returned(self) -> IntArray:
        """Every segment's deduplicated list length."""
        returned: IntArray = self.layout.lengths - self.duplicates.per_segment
        return returned

    def kept(self, positions: IntArray) -> BoolArray:
        """Which ranked positions are not dropped copies."""
        dropped = self.duplicates.dropped
        if dropped.size == 0:
            return np.ones(positions.size, dtype=bool)
        at = np.minimum(np.searchsorted(dropped, positions), dropped.size - 1)
        kept: BoolArray = dropped[at] != positions
        return kept

    def places(self, positions: IntArray, segments: IntArray) -> IntArray:
        """The place of kept ranked positions (of the given segments) in their
        deduplicated list: the position less the copies dropped before it."""
        starts = self.layout.starts
        places: IntArray = positions - starts[segments]
        dropped = self.duplicates.dropped
        if dropped.size:
            places -= (
                np.searchsorted(dropped, positions) - np.searchsorted(dropped, starts)[segments]
            )
        return places


@dataclass(frozen=True, eq=False)
class RankedJudged:
    """The judged lines that survive deduplication, in ranked order (so by
    segment, then place), in a run of ``count`` segments."""

    count: int
    rows: IntArray
    segments: IntArray
    positions: IntArray  # in the ranked order of the whole run
    places: IntArray  # in the query's deduplicated list
    final_places: IntArray  # in the query's final list (see `keeps_unjudged`)
    grades: IntArray
    gains: FloatArray


def rank_judged_lines(matched: Matched, contract: Contract) -> RankedJudged:
    """The judged lines the measures see, in ranked order."""
    lookup, layout = matched.lookup, matched.layout
    positions = layout.order.positions_of(lookup.rows)
    grades, rows = lookup.grades, lookup.rows
    if matched.duplicates.dropped.size:
        kept = matched.kept(positions)
        positions, grades, rows = positions[kept], grades[kept], rows[kept]
    in_order = np.argsort(positions, kind="stable")
    positions, grades, rows = positions[in_order], grades[in_order], rows[in_order]
    segments = segment_of(layout.starts, positions)
    places = matched.places(positions, segments)
    gains = GainTable(contract)(grades)
    if keeps_unjudged(contract):
        final_places = places
    else:
        # the final list is the judged lines only: place = rank among them
        final_places = (
            np.arange(segments.size, dtype=np.int64)
            - first_of_each(segments, layout.count)[segments]
        )
    return RankedJudged(
        layout.count, rows, segments, positions, places, final_places, grades, gains
    )


@dataclass(frozen=True, eq=False)
class ListSizes:
    """Per segment: the lengths of its lists and how its top k splits."""

    returned: IntArray  # the deduplicated list
    final: IntArray  # the final list
    judged_in_top: IntArray  # judged lines among the first k of the deduplicated list
    unjudged_in_top: IntArray  # unjudged lines among them


def list_sizes(matched: Matched, lines: RankedJudged, contract: Contract) -> ListSizes:
    """Every segment's list lengths under the contract."""
    k = contract.k
    returned = matched.returned
    final = (
        returned
        if keeps_unjudged(contract)
        else np.bincount(lines.segments, minlength=lines.count).astype(np.int64)
    )
    judged_in_top = np.bincount(lines.segments[lines.places < k], minlength=lines.count).astype(
        np.int64
    )
    return ListSizes(returned, final, judged_in_top, np.minimum(k, returned) - judged_in_top)


@dataclass(frozen=True, eq=False)
class JudgedUniverse:
    """Every judgment of the judged queries the run returned, segment by segment."""

    segments: IntArray
    grades: IntArray
    gains: FloatArray
    sizes: IntArray  # judgments per segment


def judged_universe(
    indexed: IndexedRun, judgments: Judgments, contract: Contract
) -> JudgedUniverse:
    """The grades (and gains) of every judged query of the run, as the ideal
    under ``universe=judged`` and recall's denominator see them."""
    count = indexed.layout.count
    judged_segments = [index for index, known in enumerate(indexed.judged) if known]
    grades_of = [
        list(judgments[indexed.layout.query_ids[index]].values()) for index in judged_segments
    ]
    sizes = np.zeros(count, dtype=np.int64)
    sizes[judged_segments] = [len(grades) for grades in grades_of]
    segments = np.repeat(np.arange(count, dtype=np.int64), sizes)
    grades = np.fromiter(chain.from_iterable(grades_of), dtype=np.int64, count=segments.size)
    return JudgedUniverse(segments, grades, GainTable(contract)(grades), sizes)
