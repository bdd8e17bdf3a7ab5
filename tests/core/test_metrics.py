"""The reference measures (`core.scoring.metrics`) on short literal lists, worked by hand.

The teaching judgments: A=3, B=2, C=1, D=0 (linear gain, so gain = grade).
With k = 2 the ideal list is A, B: IDCG = 3 + 2/log2(3).
"""

from __future__ import annotations

import math

import pytest

from judgepool.core.scoring.metrics import (
    dcg,
    discount,
    ideal_dcg,
    normalise,
    score_missing_query,
    score_query,
    tie_groups,
    tie_range_gains,
    unjudged_scenario,
)
from judgepool.core.scoring.ranking import FormedList, RankedDoc, form_list
from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.types import RunEntry

TEACHING = {"A": 3, "B": 2, "C": 1, "D": 0}
LOG3 = math.log2(3)
IDCG_AT_2 = 3 + 2 / LOG3


def formed(docs: list[tuple[str, float]], judged: dict[str, int], contract: Contract) -> FormedList:
    lines = [RunEntry("q", doc, rank, score, rank) for rank, (doc, score) in enumerate(docs, 1)]
    return form_list("q", lines, judged, contract)


def ranked(pairs: list[tuple[float, int | None]]) -> list[RankedDoc]:
    """Documents with these (score, grade), in this order."""
    return [RankedDoc(f"d{i}", f"d{i}", grade, score, i) for i, (score, grade) in enumerate(pairs)]


# ----------------------------------------------------------------------- sums


def test_the_discount_is_one_over_log2_of_position_plus_one() -> None:
    assert discount(1) == 1.0
    assert discount(2) == 1 / LOG3
    assert discount(3) == 0.5
    assert discount(7) == 1 / 3


def test_dcg_sums_gain_times_discount_up_to_k() -> None:
    assert dcg([3, 2, 1], 2) == 3 + 2 / LOG3
    assert dcg([0, 5], 1) == 0.0  # cut at k
    assert dcg([1], 10) == 1.0  # positions beyond the list add nothing
    empty = dcg([], 3)
    assert empty == 0.0 and isinstance(empty, float)


def test_the_ideal_dcg_sorts_the_gains_best_first() -> None:
    assert ideal_dcg([1, 3, 2], 2) == IDCG_AT_2
    assert ideal_dcg([2, 3, 1], 2) == ideal_dcg([3, 2, 1], 2)
    assert ideal_dcg([0, 0], 5) == 0.0
    assert ideal_dcg([], 5) == 0.0


def test_normalise_divides_and_lets_the_policy_decide_a_zero_ideal() -> None:
    assert normalise(1.0, 2.0, "zero") == 0.5
    assert normalise(1.0, 2.0, "exclude") == 0.5  # the policy only speaks for IDCG 0
    assert normalise(0.0, 0.0, "zero") == 0.0
    assert normalise(0.0, 0.0, "one") == 1.0
    assert normalise(0.0, 0.0, "exclude") is None
    with pytest.raises(AssertionError):
        normalise(0.0, 0.0, "nan")


# ----------------------------------------------------------------------- ties


def test_tie_groups_are_runs_of_adjacent_equal_scores() -> None:
    docs = ranked([(3.0, 0), (2.0, 3), (2.0, 1), (1.0, 2), (2.0, None)])
    groups = tie_groups(docs, "double")
    assert [[doc.doc_id for doc in group] for group in groups] == [
        ["d0"],
        ["d1", "d2"],
        ["d3"],
        ["d4"],  # equal to d1's score, but not adjacent: another group
    ]
    assert tie_groups([], "double") == []


def test_tie_groups_compare_scores_at_the_contracts_precision() -> None:
    # 68.41769638061524 and 68.41769618988037 (real scores printed with 14
    # decimals) differ as doubles and are one 32-bit float
    docs = ranked([(68.41769638061524, 3), (68.41769618988037, 0), (68.4176, 1)])
    assert [len(group) for group in tie_groups(docs, "double")] == [1, 1, 1]
    assert [len(group) for group in tie_groups(docs, "single")] == [2, 1]
    worst, best = tie_range_gains(docs, Contract(score_precision="single"))
    assert (worst, best) == ([0.0, 3.0, 1.0], [3.0, 0.0, 1.0])
    assert tie_range_gains(docs, Contract())[0] == [3.0, 0.0, 1.0]


def test_the_tie_range_orders_every_group_worst_and_best() -> None:
    docs = ranked([(3.0, 0), (2.0, 3), (2.0, 1), (2.0, None), (1.0, 2)])
    worst, best = tie_range_gains(docs, Contract())
    assert worst == [0.0, 0.0, 1.0, 3.0, 2.0]
    assert best == [0.0, 3.0, 1.0, 0.0, 2.0]


# ----------------------------------------------------------------------- one query


def test_score_query_on_the_teaching_example() -> None:
    contract = Contract(k=2)
    result = score_query(
        "q", formed([("B", 2.0), ("C", 1.0)], TEACHING, contract), TEACHING, contract
    )
    assert result.dcg == 2 + 1 / LOG3
    assert result.idcg == IDCG_AT_2
    assert result.ndcg == pytest.approx(0.617320, abs=1e-6)
    assert result.candidate_ndcg == 1.0  # B, C is the best order of B and C
    assert (result.returned, result.judged_at_k, result.unjudged_at_k) == (2, 1.0, 0)
    assert result.recall == 2 / 3  # A, B, C are relevant; B and C were returned
    assert (result.precision, result.rr) == (1.0, 1.0)
    assert result.ndcg_tie_min == result.ndcg_tie_max == result.ndcg
    assert result.ndcg_if_unjudged_irrelevant is None and result.ndcg_if_unjudged_max is None
    assert not (result.zero_idcg or result.excluded or result.missing)


def test_score_query_tie_range_spans_both_orders_of_a_tie() -> None:
    contract = Contract(k=2)
    result = score_query(
        "q", formed([("B", 1.0), ("C", 1.0)], TEACHING, contract), TEACHING, contract
    )
    assert result.ndcg_tie_min == (1 + 2 / LOG3) / IDCG_AT_2  # C, B
    assert result.ndcg_tie_max == (2 + 1 / LOG3) / IDCG_AT_2  # B, C
    assert result.ndcg_tie_min == pytest.approx(0.530721, abs=1e-6)


def test_score_query_of_an_empty_list() -> None:
    contract = Contract(k=2)
    result = score_query("q", formed([], TEACHING, contract), TEACHING, contract)
    assert (result.ndcg, result.dcg, result.idcg) == (0.0, 0.0, IDCG_AT_2)
    assert result.returned == 0 and result.judged_at_k is None
    assert (result.recall, result.precision, result.rr) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("policy", "ndcg", "excluded"),
    [("zero", 0.0, False), ("one", 1.0, False), ("exclude", None, True)],
)
def test_score_query_with_a_zero_ideal(policy: str, ndcg: float | None, excluded: bool) -> None:
    judged = {"D": 0}
    contract = Contract(k=2, zero_idcg=policy)
    result = score_query("q", formed([("D", 1.0)], judged, contract), judged, contract)
    assert result.zero_idcg and result.idcg == 0.0
    assert (result.ndcg, result.candidate_ndcg, result.excluded) == (ndcg, ndcg, excluded)
    assert result.recall is None  # nothing relevant to recall


def test_relevant_from_moves_recall_precision_and_rank_but_not_ndcg() -> None:
    contract = Contract(k=2, relevant_from=3)
    docs = [("B", 3.0), ("C", 2.0), ("A", 1.0)]
    result = score_query("q", formed(docs, TEACHING, contract), TEACHING, contract)
    baseline = score_query("q", formed(docs, TEACHING, Contract(k=2)), TEACHING, Contract(k=2))
    assert result.ndcg == baseline.ndcg
    assert (result.recall, result.precision) == (0.0, 0.0)  # only A counts, at rank 3
    assert result.rr == 1 / 3  # the reciprocal rank looks past k


def test_a_negative_grade_is_judged_but_gains_nothing() -> None:
    judged = {"N": -1}
    contract = Contract(k=2, scale=Scale(-1, 3))
    result = score_query("q", formed([("N", 1.0)], judged, contract), judged, contract)
    assert (result.judged_at_k, result.unjudged_at_k) == (1.0, 0)
    assert result.zero_idcg and result.ndcg == 0.0


# ----------------------------------------------------------------------- unjudged


def test_unjudged_scenarios_under_the_judged_universe() -> None:
    contract = Contract(k=2, unjudged="zero")
    lists = formed([("X", 2.0), ("B", 1.0)], TEACHING, contract)
    # X at grade 0: DCG 2/log2(3), universe unchanged
    low = unjudged_scenario(lists, TEACHING, contract, 0)
    assert low == (2 / LOG3) / IDCG_AT_2
    # X at grade 3: DCG 3 + 2/log2(3); the universe gains a 3, so IDCG = 3 + 3/log2(3)
    high = unjudged_scenario(lists, TEACHING, contract, 3)
    assert high == (3 + 2 / LOG3) / (3 + 3 / LOG3)
    result = score_query("q", lists, TEACHING, contract)
    assert (result.ndcg_if_unjudged_irrelevant, result.ndcg_if_unjudged_max) == (low, high)
    assert result.unjudged_at_k == 1 and result.judged_at_k == 0.5


def test_unjudged_scenarios_under_the_candidate_universe() -> None:
    contract = Contract(k=2, unjudged="zero", universe="candidates")
    lists = formed([("X", 2.0), ("B", 1.0)], TEACHING, contract)
    assert unjudged_scenario(lists, TEACHING, contract, 0) == (2 / LOG3) / 2  # ideal: B, X
    assert unjudged_scenario(lists, TEACHING, contract, 3) == 1.0  # X, B is the best order


def test_a_condensed_list_scores_without_its_unjudged_documents_but_not_its_scenarios() -> None:
    contract = Contract(k=2, unjudged="condense")
    lists = formed([("X", 2.0), ("B", 1.0)], TEACHING, contract)
    result = score_query("q", lists, TEACHING, contract)
    assert result.ndcg == 2 / IDCG_AT_2  # B moves up to rank 1
    # given a grade, X is judged and keeps its place
    assert result.ndcg_if_unjudged_irrelevant == (2 / LOG3) / IDCG_AT_2


# ----------------------------------------------------------------------- missing


def test_a_missing_query_scores_zero_or_is_skipped() -> None:
    judged = {"A": 3, "D": 0}
    zero = score_missing_query("q", judged, Contract(k=2))
    assert (zero.ndcg, zero.candidate_ndcg, zero.idcg, zero.dcg) == (0.0, 0.0, 3.0, 0.0)
    assert zero.missing and not zero.excluded and not zero.zero_idcg
    assert (zero.recall, zero.precision, zero.rr, zero.returned) == (0.0, 0.0, 0.0, 0)
    assert zero.ndcg_tie_min == zero.ndcg_tie_max == 0.0
    skipped = score_missing_query("q", judged, Contract(k=2, missing="skip"))
    assert (skipped.ndcg, skipped.candidate_ndcg, skipped.excluded) == (None, None, True)
    assert skipped.ndcg_tie_min is None and skipped.ndcg_tie_max is None


def test_a_missing_query_with_a_zero_ideal_follows_the_zero_idcg_policy() -> None:
    judged = {"D": 0}
    one = score_missing_query("q", judged, Contract(zero_idcg="one"))
    assert (one.ndcg, one.zero_idcg, one.excluded) == (1.0, True, False)
    assert one.recall is None  # nothing relevant to recall
    # skipping the missing queries wins over the policy's value
    skipped = score_missing_query("q", judged, Contract(zero_idcg="one", missing="skip"))
    assert (skipped.ndcg, skipped.zero_idcg, skipped.excluded) == (None, True, True)


def test_a_missing_query_under_the_candidate_universe_has_no_ideal() -> None:
    # no list, no candidates: IDCG 0, yet not a zero-IDCG query, so `missing` decides
    contract = Contract(universe="candidates", zero_idcg="one")
    for judged in ({"A": 3}, {"D": 0}):
        result = score_missing_query("q", judged, contract)
        assert (result.ndcg, result.idcg, result.zero_idcg) == (0.0, 0.0, False)
