"""Every per-query measure of the judged queries a run returned, all queries at
once: the fast engine's `aggregate.ReturnedScores` (`metrics.score_query` is
the reference, query by query)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, assert_never

import numpy as np

from judgepool.core.fast.arrays import FloatArray, IntArray
from judgepool.core.fast.judged import (
    JudgedUniverse,
    ListSizes,
    Matched,
    RankedJudged,
    judged_universe,
    list_sizes,
    rank_judged_lines,
)
from judgepool.core.fast.measures import Cutoff, ideal, normalised, sum_in_order
from judgepool.core.fast.ties import final_ties, tie_range
from judgepool.core.fast.unjudged import Scenario, scenarios, unjudged_entries, unjudged_in_top
from judgepool.core.scoring.aggregate import ReturnedScores
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.measures import (
    CANDIDATE_NDCG,
    DCG,
    DUPLICATES,
    EXCLUDED,
    IDCG,
    JUDGED_AT_K,
    MISSING,
    NDCG,
    PRECISION,
    RECALL,
    RETURNED,
    RR,
    UNJUDGED_AT_K,
    ZERO_IDCG,
)
from judgepool.core.terms.types import Judgments, QueryResult, query_results


@dataclass(frozen=True, eq=False)
class _SegmentSums:
    """Per segment: the DCG sums and relevance counts the records read."""

    dcg: FloatArray
    idcg: FloatArray  # under the contract's universe
    candidate_idcg: FloatArray
    tie_min: FloatArray
    tie_max: FloatArray
    relevant_in_top: IntArray
    first_relevant: IntArray  # 1-based rank of the first relevant line, or -1
    total_relevant: IntArray  # in the judged universe


def score_queries(matched: Matched, judgments: Judgments, contract: Contract) -> ReturnedScores:
    """The records of the judged queries the run returned; under
    ``unjudged=reject``, with unjudged documents in a top k, those only."""
    layout = matched.layout
    if layout.count == 0:
        return ReturnedScores({}, [])
    lines = rank_judged_lines(matched, contract)
    universe = judged_universe(matched.indexed, judgments, contract)
    sizes = list_sizes(matched, lines, contract)
    # no list or universe is longer: the discounts beyond it are never read
    longest = int(layout.lengths.max()) + int(universe.sizes.max()) + 1
    cutoff = Cutoff.of(contract.k, longest)
    sums = _segment_sums(matched, lines, universe, contract, cutoff)
    # the judged queries with unjudged documents in their top k
    wanted = np.flatnonzero(
        (sizes.unjudged_in_top > 0) & np.array(matched.indexed.judged, dtype=bool)
    )
    scenario: dict[int, Scenario] = {}
    if wanted.size:
        top = unjudged_in_top(matched, lines, wanted, judgments, contract.k)
        match contract.unjudged:
            case "reject":
                return ReturnedScores({}, unjudged_entries(matched, top))
            case "zero" | "condense":
                scenario = scenarios(contract, wanted, lines, universe, sizes, cutoff)
            case _:
                assert_never(contract.unjudged)
    return ReturnedScores(_records(matched, sizes, sums, scenario, contract), [])


def _segment_sums(
    matched: Matched,
    lines: RankedJudged,
    universe: JudgedUniverse,
    contract: Contract,
    cutoff: Cutoff,
) -> _SegmentSums:
    k, discounts, count = cutoff.k, cutoff.discounts, lines.count
    segments, places = lines.segments, lines.final_places
    in_top = places < k
    top_places = places[in_top]
    dcg = sum_in_order(
        segments[in_top], top_places, lines.gains[in_top] * discounts[top_places], count
    )
    candidate_idcg = ideal(segments, lines.gains, count, cutoff)
    match contract.universe:
        case "judged":
            idcg = ideal(universe.segments, universe.gains, count, cutoff)
        case "candidates":
            idcg = candidate_idcg
        case _:
            assert_never(contract.universe)
    relevant = lines.grades >= contract.relevant_from
    first_relevant = np.full(count, -1, dtype=np.int64)
    relevant_segments, relevant_places = segments[relevant], places[relevant]
    if relevant_segments.size:
        # places ascend within a segment: the first occurrence is the smallest
        found, first_at = np.unique(relevant_segments, return_index=True)
        first_relevant[found] = relevant_places[first_at] + 1
    tie_min, tie_max = tie_range(final_ties(matched, lines, contract), lines, cutoff)
    return _SegmentSums(
        dcg=dcg,
        idcg=idcg,
        candidate_idcg=candidate_idcg,
        tie_min=tie_min,
        tie_max=tie_max,
        relevant_in_top=np.bincount(segments[relevant & in_top], minlength=count),
        first_relevant=first_relevant,
        total_relevant=np.bincount(
            universe.segments[universe.grades >= contract.relevant_from], minlength=count
        ),
    )


def _records(
    matched: Matched,
    sizes: ListSizes,
    sums: _SegmentSums,
    scenario: dict[int, Scenario],
    contract: Contract,
) -> dict[str, QueryResult]:
    """One `QueryResult` per judged query the run returned, by query ID."""
    k, policy = contract.k, contract.zero_idcg
    judged_segments = [index for index, known in enumerate(matched.indexed.judged) if known]
    at = np.array(judged_segments, dtype=np.int64)
    dcg, idcg, candidate_idcg = sums.dcg[at], sums.idcg[at], sums.candidate_idcg[at]
    ndcg = normalised(dcg, idcg, policy)
    returned = sizes.returned[at]
    total = sums.total_relevant[at]
    relevant_top = sums.relevant_in_top[at]
    first = sums.first_relevant[at]
    with np.errstate(divide="ignore", invalid="ignore"):
        judged_share = (sizes.judged_in_top[at] / np.minimum(k, returned)).tolist()
        recall = np.where(total > 0, relevant_top / np.maximum(total, 1), np.nan).tolist()
        reciprocal_rank = np.where(first > 0, 1.0 / np.maximum(first, 1), 0.0).tolist()
    precision = (relevant_top / k).tolist()
    # an empty final list (every line unjudged, condensed away) has no tie to break
    empty = sizes.final[at] == 0
    lows = [scenario.get(index, (None, None))[0] for index in judged_segments]
    highs = [scenario.get(index, (None, None))[1] for index in judged_segments]
    # one column per field of the record, by name: none can land in another's place
    columns: dict[str, Sequence[Any]] = {
        "query_id": [matched.layout.query_ids[index] for index in judged_segments],
        NDCG.field: ndcg,
        DCG.field: dcg.tolist(),
        IDCG.field: idcg.tolist(),
        CANDIDATE_NDCG.field: normalised(dcg, candidate_idcg, policy),
        RETURNED.field: returned.tolist(),
        JUDGED_AT_K.field: judged_share,
        UNJUDGED_AT_K.field: sizes.unjudged_in_top[at].tolist(),
        DUPLICATES.field: matched.duplicates.per_segment[at].tolist(),
        ZERO_IDCG.field: (idcg == 0).tolist(),
        EXCLUDED.field: [value is None for value in ndcg],
        MISSING.field: [False] * len(judged_segments),
        RECALL.field: [
            None if total_value == 0 else value
            for total_value, value in zip(total.tolist(), recall, strict=True)
        ],
        PRECISION.field: precision,
        RR.field: reciprocal_rank,
        "ndcg_tie_min": normalised(np.where(empty, 0.0, sums.tie_min[at]), idcg, policy),
        "ndcg_tie_max": normalised(np.where(empty, 0.0, sums.tie_max[at]), idcg, policy),
        "ndcg_if_unjudged_irrelevant": lows,
        "ndcg_if_unjudged_max": highs,
    }
    return {record.query_id: record for record in query_results(columns)}
