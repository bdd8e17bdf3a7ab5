"""The sample's estimators held to brute force: every sample of small random
Poisson designs enumerated with its probability, so an expectation over the
design is exact.

- The DCG and grade-count totals, HT's and prior-powered (with a random
  prior), are unbiased: their expectation is the truth to rounding.
- Where the ideal cannot move (the judged documents fill the top k with the
  top grade), the nDCG estimate is linear in the sample: its expectation is
  the truth, and its estimated variance's expectation is its variance.
- With every hole drawn for sure the estimates are the nDCG the reference
  metrics give with every hole judged, with no spread.
- ``z`` is the estimate's derivative in each sampled hole's weight.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np
import pytest

from judgepool.core.holes.sample_design import Frame, build_frame
from judgepool.core.holes.sample_estimate import Predictor, estimate, linearised, totals
from judgepool.core.scoring.metrics import dcg
from tests.core.sample_cases import Case, means_with, random_case, true_means

F64 = np.ndarray


def small_cases(seed: int, count: int, **shape: int) -> Iterator[tuple[Case, Frame, F64]]:
    """Random cases with 1 to 9 holes, each with its frame and true gains."""
    rng = random.Random(seed)
    found = 0
    while found < count:
        case = random_case(rng, **shape)
        frame = build_frame(case.tops, case.queries, case.judgments, case.contract)
        if not 1 <= frame.holes <= 9:
            continue
        found += 1
        gains = np.array([case.contract.gain_of(case.truth[item]) for item in frame.items])
        yield case, frame, gains


def random_predictor(frame: Frame, case: Case, rng: np.random.Generator) -> Predictor:
    grades = list(case.contract.scale.grades)
    table = rng.dirichlet(np.ones(len(grades)), size=frame.holes)
    return Predictor.of_probabilities(table, [case.contract.gain_of(g) for g in grades], frame)


def every_sample(probabilities: F64) -> Iterator[tuple[np.ndarray, float]]:
    """Every subset of the holes with its Poisson probability."""
    for bits in itertools.product([False, True], repeat=probabilities.size):
        drawn = np.array(bits, dtype=bool)
        yield drawn, float(np.prod(np.where(drawn, probabilities, 1 - probabilities)))


def exact_totals(case: Case, frame: Frame) -> tuple[F64, F64]:
    """Each run's DCG and each query's count per gain level with every hole
    judged, read from the case itself."""
    contract = case.contract
    numerators = np.array(
        [
            [
                dcg(
                    [contract.gain_of(case.truth[(q, d)] if g is None else g) for d, g in top[q]],
                    contract.k,
                )
                for q in case.queries
            ]
            for top in case.tops
        ]
    )
    counts = np.array(
        [
            [
                sum(
                    contract.gain_of(g) >= level
                    for g in [
                        *case.judgments[q].values(),
                        *(g for (q2, _), g in case.truth.items() if q2 == q),
                    ]
                )
                for level in frame.levels.gains
            ]
            for q in case.queries
        ],
        dtype=float,
    )
    return numerators, counts


@pytest.mark.parametrize("powered", [False, True])
def test_totals_are_unbiased_by_enumeration(powered: bool) -> None:
    rng = np.random.default_rng(11)
    for case, frame, gains in small_cases(1, 25, queries=2, runs=2, k=3):
        probabilities = rng.uniform(0.05, 1.0, frame.holes)
        predictor = random_predictor(frame, case, rng) if powered else None
        numerators = np.zeros((frame.runs, len(case.queries)))
        counts = np.zeros((len(case.queries), len(frame.levels.gains)))
        for drawn, chance in every_sample(probabilities):
            found = totals(frame, probabilities, drawn, gains, predictor)
            numerators += chance * found.numerators
            counts += chance * found.counts
        true_numerators, true_counts = exact_totals(case, frame)
        assert numerators == pytest.approx(true_numerators, abs=1e-9)
        assert counts == pytest.approx(true_counts, abs=1e-9)


def filled_ideal(case: Case) -> Case:
    """The case with k judged documents of the top grade that no run returns:
    the ideal is theirs whatever the holes get."""
    contract = case.contract
    top = max(contract.scale.grades)
    judgments = {
        q: {**docs, **{f"full{i}": top for i in range(contract.k)}}
        for q, docs in case.judgments.items()
    }
    return Case(case.tops, case.queries, judgments, case.truth, contract)


@pytest.mark.parametrize("powered", [False, True])
def test_linear_case_mean_and_variance_by_enumeration(powered: bool) -> None:
    rng = np.random.default_rng(12)
    pairs = [(0, 1), (1, 2), (0, 2)]
    for plain, _, _ in small_cases(2, 20, queries=2, runs=3, k=3):
        case = filled_ideal(plain)
        frame = build_frame(case.tops, case.queries, case.judgments, case.contract)
        gains = np.array([case.contract.gain_of(case.truth[item]) for item in frame.items])
        probabilities = rng.uniform(0.1, 1.0, frame.holes)
        predictor = random_predictor(frame, case, rng) if powered else None
        truth = np.array(true_means(case))
        values: list[np.ndarray] = []
        variances: list[np.ndarray] = []
        chances: list[float] = []
        for drawn, chance in every_sample(probabilities):
            found = estimate(frame, probabilities, drawn, gains, pairs, predictor)
            values.append(np.array([e.value for e in (*found.runs, *found.pairs)]))
            variances.append(np.array([e.se**2 for e in (*found.runs, *found.pairs)]))
            chances.append(chance)
        weights = np.array(chances)[:, None]
        mean = (weights * np.array(values)).sum(axis=0)
        target = np.concatenate([truth, [truth[a] - truth[b] for a, b in pairs]])
        assert mean == pytest.approx(target, abs=1e-9)
        spread = (weights * (np.array(values) - target) ** 2).sum(axis=0)
        assert (weights * np.array(variances)).sum(axis=0) == pytest.approx(spread, abs=1e-9)


@pytest.mark.parametrize("powered", [False, True])
def test_census_is_the_reference_ndcg(powered: bool) -> None:
    rng = np.random.default_rng(13)
    for case, frame, gains in small_cases(3, 40, queries=3, runs=3, k=4):
        predictor = random_predictor(frame, case, rng) if powered else None
        found = estimate(
            frame, np.ones(frame.holes), np.ones(frame.holes, bool), gains, [(0, 1)], predictor
        )
        assert [e.value for e in found.runs] == pytest.approx(true_means(case), abs=1e-12)
        assert all(e.se == 0 for e in (*found.runs, *found.pairs))


def test_nothing_sampled_is_the_holes_at_zero_for_ht() -> None:
    """HT with no sampled hole counts every hole as 0: the unjudged=zero score."""
    for case, frame, gains in small_cases(4, 20, queries=3, runs=2, k=3):
        found = estimate(
            frame, np.full(frame.holes, 0.5), np.zeros(frame.holes, bool), gains, [(0, 1)]
        )
        zero = means_with(case, {item: 0 for item in case.truth})
        assert [e.value for e in found.runs] == pytest.approx(zero, abs=1e-12)


def test_z_is_the_estimates_derivative_in_each_weight() -> None:
    rng = np.random.default_rng(14)
    for _, frame, gains in small_cases(5, 30, queries=3, runs=3, k=4):
        probabilities = rng.uniform(0.2, 0.9, frame.holes)
        drawn = rng.random(frame.holes) < 0.7
        means, z = linearised(frame, probabilities, drawn, gains)
        step = 1e-6
        for h in np.flatnonzero(drawn):
            moved = probabilities.copy()
            # the weight 1 / π_h up by one step
            moved[h] = 1 / (1 / probabilities[h] + step)
            shifted, _ = linearised(frame, moved, drawn, gains)
            assert (shifted - means) / step == pytest.approx(z[:, h], abs=1e-5)
