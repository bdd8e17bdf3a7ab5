"""The pairs view's points: per-query differences sorted, and which the holes
could reverse (the per-query bounds of the comparison)."""

from __future__ import annotations

import math

import pytest

from judgepool.core.comparing.query_differences import could_reverse, sorted_differences
from judgepool.core.comparing.verdicts import compare
from judgepool.core.terms.contract import Contract
from tests.core.test_verdicts import ranked, run_input


def test_a_sign_is_reversible_only_when_the_bounds_cross_zero_against_it() -> None:
    assert could_reverse(0.2, (-0.1, 0.3))
    assert not could_reverse(0.2, (0.0, 0.3))  # at best a tie, not reversed
    assert could_reverse(-0.2, (-0.4, 0.05))
    assert not could_reverse(-0.2, (-0.4, -0.1))
    assert not could_reverse(0.0, (-0.5, 0.5))  # a tie has no sign to reverse
    assert not could_reverse(0.3, None)
    assert not could_reverse(0.3, (math.nan, math.nan))


def test_the_differences_are_sorted_lowest_first_ties_by_query() -> None:
    rows = sorted_differences(
        ["q2", "q1", "q3", "q0"],
        [0.5, -0.25, 0.5, 0.0],
        [(0.4, 0.6), (-0.3, 0.1), (-0.2, 0.6), (-0.1, 0.1)],
    )
    assert [r.query_id for r in rows] == ["q1", "q0", "q2", "q3"]
    assert [r.diff for r in rows] == [-0.25, 0.0, 0.5, 0.5]
    assert [r.reversible for r in rows] == [True, False, False, True]


def test_without_bounds_nothing_is_marked() -> None:
    rows = sorted_differences(["a", "b"], [0.1, -0.1])
    assert not any(r.reversible for r in rows) and all(r.bounds is None for r in rows)
    with pytest.raises(ValueError):
        sorted_differences(["a"], [0.1, 0.2])


def test_the_comparison_gives_each_querys_bounds_whose_mean_is_the_pairs() -> None:
    # q1: first ahead, but second's hole U, judged highly relevant, puts second
    # ahead; q2: settled (no hole)
    judgments = {"q1": {"A": 1, "X": 0}, "q2": {"A": 2, "C": 0}}
    contract = Contract(k=2, unjudged="zero")
    first = run_input(
        "first", ranked("q1", ["A", "X"]) + ranked("q2", ["A", "C"]), judgments, contract
    )
    second = run_input(
        "second", ranked("q1", ["U", "A"]) + ranked("q2", ["C", "A"]), judgments, contract
    )
    report = compare([first, second], judgments, contract, [(0, 1)], permutations=64)
    bounds = report.per_query_bounds[("first", "second")]
    assert len(bounds) == len(report.population) == 2
    pair_low, pair_high = report.pairs[0].diff_bounds or (0.0, 0.0)
    assert sum(low for low, _ in bounds) / 2 == pytest.approx(pair_low, abs=1e-12)
    assert sum(high for _, high in bounds) / 2 == pytest.approx(pair_high, abs=1e-12)
    rows = sorted_differences(
        report.population, report.per_query_diffs[("first", "second")], bounds
    )
    marked = {row.query_id: row.reversible for row in rows}
    assert marked == {"q1": True, "q2": False}


def test_no_bounds_under_universe_candidates() -> None:
    judgments = {"q1": {"A": 3}}
    contract = Contract(k=2, unjudged="zero", universe="candidates")
    first = run_input("a", ranked("q1", ["A", "U"]), judgments, contract)
    second = run_input("b", ranked("q1", ["U", "A"]), judgments, contract)
    report = compare([first, second], judgments, contract, [(0, 1)], permutations=64)
    assert report.per_query_bounds == {}
