"""The draws under the runs prior (`judgepool.core.holes.prior_draws`): the holes'
order is the draws', the parameters drawn per set reproducibly, the plain
draws where there is nothing to draw, and the check's correction."""

from __future__ import annotations

import random

import numpy as np
import pytest

from judgepool.core.holes.draws import draw_means, draw_problem
from judgepool.core.holes.hole_prior import runs_prior
from judgepool.core.holes.prior_draws import (
    CHECK_SHARE,
    PARAMETER_SETS,
    PriorCheck,
    check_prior,
    corrected,
    draw_with_parameters,
    hole_ids,
)
from judgepool.core.holes.priors import Prior, rank_prior
from judgepool.core.terms.contract import Contract

CONTRACT = Contract(k=10, unjudged="zero")


def comparison(seed: int, queries: int = 20) -> tuple[list[dict], list[str], dict]:
    """Three runs over ``queries`` queries of 40 documents, graded by how
    many runs put a document high; a third of the top-10 documents unjudged."""
    rng = random.Random(seed)
    names = [f"q{i}" for i in range(queries)]
    judged: dict[str, dict[str, int]] = {}
    tops: list[dict] = [{}, {}, {}]
    for query in names:
        documents = [f"{query}-d{j}" for j in range(40)]
        quality = {d: rng.random() + (0.6 if j < 8 else 0) for j, d in enumerate(documents)}
        grades = {d: min(3, int(quality[d] * 2.2)) for d in documents}
        rankings = [
            sorted(documents, key=lambda d, r=r: -(quality[d] + rng.gauss(0, 0.3 + 0.2 * r)))
            for r in range(3)
        ]
        seen = {d: g for d, g in grades.items() if rng.random() > 0.33}
        judged[query] = seen
        for r, ranking in enumerate(rankings):
            tops[r][query] = tuple((d, seen.get(d)) for d in ranking[:10])
    return tops, names, judged


def test_the_holes_are_in_the_draws_order() -> None:
    tops, queries, judged = comparison(1)
    fitted = runs_prior(tops, queries, judged, (0, 1, 2, 3), 10)
    assert fitted is not None
    prior = Prior(rank_prior(tops, queries, CONTRACT), runs=fitted)
    problem = draw_problem(tops, queries, judged, CONTRACT, prior)
    holes = hole_ids(tops, queries, 10)
    assert len(holes) == problem.holes > 0
    expected = np.cumsum([prior.of(q, d, 1) for q, d in holes], axis=1)
    assert problem.cumulative == pytest.approx(expected)


def test_parameter_sets_are_reproducible_and_wider_than_one_prior() -> None:
    tops, queries, judged = comparison(2)
    fitted = runs_prior(tops, queries, judged, (0, 1, 2, 3), 10)
    assert fitted is not None
    prior = Prior(rank_prior(tops, queries, CONTRACT), runs=fitted)
    problem = draw_problem(tops, queries, judged, CONTRACT, prior)
    holes = hole_ids(tops, queries, 10)
    first = draw_with_parameters(problem, prior, holes, 2_000, seed=5)
    again = draw_with_parameters(problem, prior, holes, 2_000, seed=5)
    assert first.means.shape == (2_000, 3)
    assert np.array_equal(first.means, again.means)
    plain = draw_means(problem, 2_000, 5)
    # the parameters' uncertainty widens the spread of each run's mean
    assert (first.means.std(axis=0) >= plain.means.std(axis=0) * 0.95).all()
    assert first.means.std(axis=0).sum() > plain.means.std(axis=0).sum()


def test_without_a_runs_prior_the_draws_are_the_plain_ones() -> None:
    tops, queries, judged = comparison(3)
    prior = Prior(rank_prior(tops, queries, CONTRACT))
    problem = draw_problem(tops, queries, judged, CONTRACT, prior)
    holes = hole_ids(tops, queries, 10)
    found = draw_with_parameters(problem, prior, holes, 500, seed=2)
    assert np.array_equal(found.means, draw_means(problem, 500, 2).means)
    # fewer draws than parameter sets: the plain draws too
    fitted = runs_prior(tops, queries, judged, (0, 1, 2, 3), 10)
    with_runs = Prior(prior.rank, runs=fitted)
    few = draw_with_parameters(problem, with_runs, holes, PARAMETER_SETS - 1, seed=2)
    assert np.array_equal(few.means, draw_means(problem, PARAMETER_SETS - 1, 2).means)


def test_the_check_hides_a_share_of_the_judged_top_k_and_measures_the_move() -> None:
    tops, queries, judged = comparison(4, queries=24)
    fitted = runs_prior(tops, queries, judged, (0, 1, 2, 3), 10)
    assert fitted is not None
    prior = Prior(rank_prior(tops, queries, CONTRACT), runs=fitted)
    problem = draw_problem(tops, queries, judged, CONTRACT, prior)
    means = draw_with_parameters(problem, prior, hole_ids(tops, queries, 10), 2_000, seed=0)
    expected = means.means.mean(axis=0)
    check = check_prior(tops, queries, judged, CONTRACT, expected, seed=0)
    assert check is not None
    assert check.hidden == round(CHECK_SHARE * check.judged)
    assert abs(check.shift) < 0.1 and 0 <= check.spread < 0.1
    assert check_prior(tops, queries, judged, CONTRACT, expected, seed=0) == check
    # too few judged documents to hide a share of them
    small_tops, small_queries, small_judged = comparison(4, queries=2)
    assert check_prior(small_tops, small_queries, small_judged, CONTRACT, expected, 0) is None


def test_the_correction_shifts_and_widens() -> None:
    check = PriorCheck(shift=-0.01, spread=0.005, replications=3, hidden=30, judged=100)
    found = corrected(0.5, (0.48, 0.52), check)
    assert found.expected == pytest.approx(0.51)
    half = ((0.02**2) + (1.959963984540054 * 0.005) ** 2) ** 0.5
    assert found.interval == pytest.approx((0.51 - half, 0.51 + half))
    assert corrected(0.5, (0.48, 0.52), None).interval == (0.48, 0.52)
    assert "moved the expected nDCG by -0.0100" in check.line()


def test_the_problem_built_at_once_is_the_one_built_hole_by_hole() -> None:
    from judgepool.core.holes.prior_draws import problem_with

    tops, queries, judged = comparison(6)
    fitted = runs_prior(tops, queries, judged, (0, 1, 2, 3), 10)
    assert fitted is not None
    prior = Prior(rank_prior(tops, queries, CONTRACT), runs=fitted)
    by_hole = draw_problem(tops, queries, judged, CONTRACT, prior)
    at_once = problem_with(tops, queries, judged, CONTRACT, prior)
    assert at_once.cumulative == pytest.approx(by_hole.cumulative)
    assert np.array_equal(at_once.coefficients, by_hole.coefficients)
