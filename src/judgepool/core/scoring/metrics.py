"""The reference implementation of every per-query measure of the contract.

Plain and readable on purpose: `core.fast` computes the same numbers on whole
runs at once, and the tests hold it to this module on random inputs. The
discount is 1 / log2(i + 1) at 1-based position i; DCG is reported in base 2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import assert_never

from judgepool.core.scoring.ranking import FormedList, RankedDoc, compared_score
from judgepool.core.terms.contract import Contract, ScorePrecision, ZeroIdcgPolicy
from judgepool.core.terms.types import QueryResult


def discount(position: int) -> float:
    """The discount at 1-based ``position``."""
    return 1.0 / math.log2(position + 1)


def dcg(gains: Sequence[float], k: int) -> float:
    """DCG of gains in ranked order, cut at k. Positions beyond the list add 0."""
    return sum((gain * discount(i) for i, gain in enumerate(gains[:k], start=1)), 0.0)


def ideal_dcg(gains: Sequence[float], k: int) -> float:
    """DCG of the best ordering of ``gains`` (the universe's gains), cut at k."""
    return dcg(sorted(gains, reverse=True), k)


def normalise(dcg_value: float, idcg_value: float, zero_idcg: ZeroIdcgPolicy) -> float | None:
    """nDCG, with the ``zero_idcg`` policy deciding a query whose ideal is 0.
    None means the query is left out of the mean."""
    if idcg_value > 0:
        return dcg_value / idcg_value
    match zero_idcg:
        case "zero":
            return 0.0
        case "one":
            return 1.0
        case "exclude":
            return None
        case _:
            assert_never(zero_idcg)


def _gains(docs: Sequence[RankedDoc], contract: Contract) -> list[float]:
    return [contract.gain_of(doc.grade) for doc in docs]


def _universe_idcg(
    docs: Sequence[RankedDoc], judged: Mapping[str, int], contract: Contract
) -> float:
    """IDCG under the contract's universe: every judged document of the query,
    or only the documents of the (formed) list."""
    match contract.universe:
        case "judged":
            return ideal_dcg([contract.gain_of(g) for g in judged.values()], contract.k)
        case "candidates":
            return ideal_dcg(_gains(docs, contract), contract.k)
        case _:
            assert_never(contract.universe)


def tie_groups(docs: Sequence[RankedDoc], precision: ScorePrecision) -> list[list[RankedDoc]]:
    """Maximal runs of adjacent documents with equal scores (compared at
    ``precision``): the orders any tie policy could have produced differ only
    inside these groups."""
    groups: list[list[RankedDoc]] = []
    for doc in docs:
        if groups and compared_score(groups[-1][-1].score, precision) == compared_score(
            doc.score, precision
        ):
            groups[-1].append(doc)
        else:
            groups.append([doc])
    return groups


def tie_range_gains(
    docs: Sequence[RankedDoc], contract: Contract
) -> tuple[list[float], list[float]]:
    """Gains in the worst and best order of every tie group."""
    worst: list[float] = []
    best: list[float] = []
    for group in tie_groups(docs, contract.score_precision):
        gains = _gains(group, contract)
        worst.extend(sorted(gains))
        best.extend(sorted(gains, reverse=True))
    return worst, best


def unjudged_scenario(
    formed: FormedList, judged: Mapping[str, int], contract: Contract, grade: int
) -> float | None:
    """nDCG if every unjudged document in the top k had ``grade``: the ideal is
    recomputed with those documents added to the universe."""
    k = contract.k
    docs = [
        RankedDoc(doc.doc_id, doc.entity, grade, doc.score, doc.line)
        if place < k and doc.grade is None
        else doc
        for place, doc in enumerate(formed.deduplicated)
    ]
    match contract.unjudged:
        case "condense":
            # the documents given a grade are judged now: only those beyond k go
            docs = [doc for doc in docs if doc.grade is not None]
        case "reject" | "zero":
            pass
        case _:
            assert_never(contract.unjudged)
    match contract.universe:
        case "judged":
            universe = [contract.gain_of(g) for g in judged.values()]
            universe += [contract.gain_of(grade)] * len(formed.unjudged_in_top_k)
            idcg_value = ideal_dcg(universe, k)
        case "candidates":
            idcg_value = ideal_dcg(_gains(docs, contract), k)
        case _:
            assert_never(contract.universe)
    return normalise(dcg(_gains(docs, contract), k), idcg_value, contract.zero_idcg)


def score_query(
    query_id: str, formed: FormedList, judged: Mapping[str, int], contract: Contract
) -> QueryResult:
    """Every per-query measure for a query the run returned (possibly nothing)."""
    k = contract.k
    final = formed.final
    gains = _gains(final, contract)
    dcg_value = dcg(gains, k)
    idcg_value = _universe_idcg(final, judged, contract)
    candidate_idcg = ideal_dcg(gains, k)
    ndcg_value = normalise(dcg_value, idcg_value, contract.zero_idcg)

    top = formed.deduplicated[:k]
    returned = len(formed.deduplicated)
    judged_in_top = sum(1 for doc in top if doc.grade is not None)
    judged_at_k = judged_in_top / min(k, returned) if returned else None

    def relevant(grade: int | None) -> bool:
        return grade is not None and grade >= contract.relevant_from

    total_relevant = sum(1 for g in judged.values() if relevant(g))
    relevant_in_top = sum(1 for doc in final[:k] if relevant(doc.grade))
    first_relevant = next((i for i, doc in enumerate(final, start=1) if relevant(doc.grade)), None)

    worst, best = tie_range_gains(final, contract)
    has_unjudged = bool(formed.unjudged_in_top_k)
    return QueryResult(
        query_id=query_id,
        ndcg=ndcg_value,
        dcg=dcg_value,
        idcg=idcg_value,
        candidate_ndcg=normalise(dcg_value, candidate_idcg, contract.zero_idcg),
        returned=returned,
        judged_at_k=judged_at_k,
        unjudged_at_k=len(formed.unjudged_in_top_k),
        duplicates=sum(len(d.lines) - 1 for d in formed.duplicates),
        zero_idcg=idcg_value == 0,
        excluded=ndcg_value is None,
        missing=False,
        recall=relevant_in_top / total_relevant if total_relevant else None,
        precision=relevant_in_top / k,
        rr=1.0 / first_relevant if first_relevant else 0.0,
        ndcg_tie_min=normalise(dcg(worst, k), idcg_value, contract.zero_idcg),
        ndcg_tie_max=normalise(dcg(best, k), idcg_value, contract.zero_idcg),
        ndcg_if_unjudged_irrelevant=(
            unjudged_scenario(formed, judged, contract, contract.scale.minimum)
            if has_unjudged
            else None
        ),
        ndcg_if_unjudged_max=(
            unjudged_scenario(formed, judged, contract, contract.scale.maximum)
            if has_unjudged
            else None
        ),
    )


def score_missing_query(
    query_id: str, judged: Mapping[str, int], contract: Contract
) -> QueryResult:
    """A judged query the run did not return at all.

    Under the judged universe, zero IDCG is a property of the judgments, so the
    ``zero_idcg`` policy decides such a query even when it is absent; otherwise
    ``missing`` decides (0, or left out).
    """
    k = contract.k
    judged_idcg = ideal_dcg([contract.gain_of(g) for g in judged.values()], k)
    match contract.universe:
        case "judged":
            idcg, zero = judged_idcg, judged_idcg == 0
        case "candidates":
            idcg, zero = 0.0, False  # no list, no candidates: not a zero-IDCG query
        case _:
            assert_never(contract.universe)
    absent: float | None
    match contract.missing:
        case "zero":
            absent = 0.0
        case "skip":
            absent = None
        case _:
            assert_never(contract.missing)
    ndcg_value = normalise(0.0, 0.0, contract.zero_idcg) if zero and absent is not None else absent
    has_relevant = any(g >= contract.relevant_from for g in judged.values())
    return QueryResult(
        query_id=query_id,
        ndcg=ndcg_value,
        dcg=0.0,
        idcg=idcg,
        candidate_ndcg=absent,
        returned=0,
        judged_at_k=None,
        unjudged_at_k=0,
        duplicates=0,
        zero_idcg=zero,
        excluded=ndcg_value is None,
        missing=True,
        recall=0.0 if has_relevant else None,
        precision=0.0,
        rr=0.0,
        ndcg_tie_min=ndcg_value,
        ndcg_tie_max=ndcg_value,
        ndcg_if_unjudged_irrelevant=None,
        ndcg_if_unjudged_max=None,
    )
