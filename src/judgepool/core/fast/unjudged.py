"""The unjudged documents of a top k: found, checked exactly, listed for the
``unjudged=reject`` refusal, and priced in the two scenarios (every one of
them at the scale's lowest grade, then at its highest)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

import numpy as np

from judgepool.core.fast.arrays import IntArray, ranges
from judgepool.core.fast.judged import JudgedUniverse, ListSizes, Matched, RankedJudged
from judgepool.core.fast.matching import confirm_unjudged
from judgepool.core.fast.measures import AddedCopies, Cutoff, ideal, normalised, sum_in_order
from judgepool.core.scoring.arrow import take
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import UnjudgedEntry
from judgepool.core.terms.types import Judgments

Scenario = tuple[float | None, float | None]


@dataclass(frozen=True, eq=False)
class UnjudgedTop:
    """The unjudged lines in the top k of some segments, in ranked order: their
    segment, place in the deduplicated list, ranked position and run row."""

    segments: IntArray
    places: IntArray
    positions: IntArray
    rows: IntArray


def unjudged_in_top(
    matched: Matched,
    lines: RankedJudged,
    wanted_segments: IntArray,
    judgments: Judgments,
    k: int,
) -> UnjudgedTop:
    """The unjudged lines in the top k of ``wanted_segments`` (ascending), each
    checked exactly to be unjudged (`matching.confirm_unjudged`)."""
    layout, copies = matched.layout, matched.duplicates
    starts = layout.starts
    wanted = np.minimum(k, matched.returned[wanted_segments])
    # the first `wanted` lines that were not dropped lie within this span
    span = np.minimum(wanted + copies.per_segment[wanted_segments], layout.lengths[wanted_segments])
    positions = ranges(starts[wanted_segments], span)
    owner = np.repeat(wanted_segments, span)
    places = matched.places(positions, owner)
    if copies.dropped.size:
        kept = matched.kept(positions)
        positions, owner, places = positions[kept], owner[kept], places[kept]
    limit = np.zeros(layout.count, dtype=np.int64)
    limit[wanted_segments] = wanted
    judged = np.zeros(layout.segment_starts[-1], dtype=bool)
    judged[lines.positions] = True
    chosen = (places < limit[owner]) & ~judged[positions]
    owner, places, positions = owner[chosen], places[chosen], positions[chosen]
    rows = layout.order.rows_at(positions)
    confirm_unjudged(matched.indexed, matched.lookup, judgments, (owner, rows))
    return UnjudgedTop(owner, places, positions, rows)


def unjudged_entries(matched: Matched, top: UnjudgedTop) -> list[UnjudgedEntry]:
    """The lines of ``top`` as the refusal lists them: by query ID, then rank."""
    docs = take(matched.indexed.run.doc_ids, top.rows).to_pylist()
    query_ids = matched.layout.query_ids
    entries = [
        UnjudgedEntry(query_ids[segment], doc, place + 1)
        for segment, doc, place in zip(
            top.segments.tolist(), docs, top.places.tolist(), strict=True
        )
    ]
    entries.sort(key=lambda entry: (entry.query_id, entry.rank))
    return entries


def scenarios(
    contract: Contract,
    wanted_segments: IntArray,
    lines: RankedJudged,
    universe: JudgedUniverse,
    sizes: ListSizes,
    cutoff: Cutoff,
) -> dict[int, Scenario]:
    """nDCG if every unjudged document in the top k had the scale's lowest, then
    highest grade (`metrics.unjudged_scenario`), for ``wanted_segments``.

    The unjudged places add ``gain`` times their discounts: the discounts of the
    whole top k (a prefix sum) less those of the judged places."""
    k, discounts, count = cutoff.k, cutoff.discounts, lines.count
    judged_top = lines.places < k
    top_segments, top_places = lines.segments[judged_top], lines.places[judged_top]
    judged_dcg = sum_in_order(
        top_segments, top_places, lines.gains[judged_top] * discounts[top_places], count
    )
    unjudged_discounts = cutoff.prefix_sums()[np.minimum(k, sizes.returned)] - np.bincount(
        top_segments, weights=discounts[top_places], minlength=count
    )
    added_counts = np.zeros(count, dtype=np.int64)
    added_counts[wanted_segments] = sizes.unjudged_in_top[wanted_segments]
    values: list[list[float | None]] = []
    for grade in (contract.scale.minimum, contract.scale.maximum):
        gain = contract.gain_of(grade)
        dcg = judged_dcg + gain * unjudged_discounts if gain > 0 else judged_dcg
        added = AddedCopies(added_counts, gain)
        match contract.universe:
            case "judged":
                idcg = ideal(universe.segments, universe.gains, count, cutoff, added)
            case "candidates":
                idcg = ideal(lines.segments, lines.gains, count, cutoff, added)
            case _:
                assert_never(contract.universe)
        values.append(normalised(dcg[wanted_segments], idcg[wanted_segments], contract.zero_idcg))
    return {
        segment: (low, high)
        for segment, low, high in zip(wanted_segments.tolist(), values[0], values[1], strict=True)
    }
