"""The runs prior (`judgepool.core.holes.hole_prior`): its signals, its gradient,
that a fit recovers a known model, and the draws of its parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import check_grad

from judgepool.core.holes import hole_prior as hp


def test_signals_are_each_runs_discount_and_the_share_of_runs() -> None:
    tops = [
        {"q": (("a", 3), ("b", None))},
        {"q": (("b", None), ("c", 0), ("a", 3))},
    ]
    found = hp.signals_of(tops, ["q"], k=2)["q"]
    assert sorted(found) == ["a", "b", "c"]  # a is third in the second run: past k
    assert found["a"].tolist() == [1.0, 0.0, 0.5]
    assert found["b"].tolist() == pytest.approx([1 / math.log2(3), 1.0, 1.0])
    assert found["c"].tolist() == pytest.approx([0.0, 1 / math.log2(3), 0.5])


def test_the_gradient_is_the_objectives() -> None:
    rng = np.random.default_rng(4)
    data = hp._Data(rng.random((150, 5)), rng.integers(0, 6, 150), rng.integers(0, 4, 150), 6)
    for _ in range(5):
        params = rng.standard_normal(3 + 5 + 6)
        error = check_grad(
            lambda p: hp._objective(p, data, 4, 1.3)[0],
            lambda p: hp._objective(p, data, 4, 1.3)[1],
            params,
        )
        assert error < 1e-4


Simulated = tuple[
    dict[str, dict[str, np.ndarray]], dict[str, dict[str, int]], np.ndarray, dict[str, float]
]


def _simulated(seed: int, queries: int = 40, per_query: int = 30) -> Simulated:
    """Documents with two signals, graded by a known cumulative-logit model."""
    rng = np.random.default_rng(seed)
    weights = np.array([2.5, -1.0])
    cuts = np.array([0.0, 1.0, 2.0])
    effects = {f"q{i}": float(rng.normal(0, 0.8)) for i in range(queries)}
    signals: dict[str, dict[str, np.ndarray]] = {}
    judged: dict[str, dict[str, int]] = {}
    for query, effect in effects.items():
        signals[query], judged[query] = {}, {}
        for d in range(per_query):
            x = rng.random(2)
            above = 1 / (1 + np.exp(-(x @ weights + effect - cuts)))
            grade = int((rng.random() < above).sum())  # P(grade ≥ j) = above[j-1], nested
            signals[query][f"d{d}"] = x
            judged[query][f"d{d}"] = grade
    return signals, judged, weights, effects


def test_a_fit_recovers_the_model_that_graded_the_documents() -> None:
    signals, judged, weights, effects = _simulated(1)
    fit = hp.fit_ordinal(signals, judged, (0, 1, 2, 3))
    assert fit is not None and fit.documents == 40 * 30
    assert fit.weights == pytest.approx(weights, abs=0.6)
    assert fit.cuts == pytest.approx([0.0, 1.0, 2.0], abs=0.5)
    # the queries' effects: correlated with the true ones, and shrunk
    found = np.array([fit.query_effects[q] for q in effects])
    true = np.array(list(effects.values()))
    assert np.corrcoef(found, true)[0, 1] > 0.6
    assert 0.25 <= fit.sigma <= 1.6
    assert all(0 < sd < fit.sigma for sd in fit.query_sd.values())


def test_too_few_judged_documents_or_one_grade_make_no_fit() -> None:
    signals, judged, _, _ = _simulated(2, queries=6, per_query=12)
    assert hp.fit_ordinal(signals, judged, (0, 1, 2, 3)) is None  # 72 < 150
    signals, judged, _, _ = _simulated(2, queries=8, per_query=40)
    assert hp.fit_ordinal(signals, judged, (0, 1, 2, 3)) is None  # 320, but 8 queries < 10
    signals, judged, _, _ = _simulated(2)
    one_grade = {q: {d: 1 for d in docs} for q, docs in judged.items()}
    assert hp.fit_ordinal(signals, one_grade, (0, 1, 2, 3)) is None


def test_the_table_is_of_for_every_hole_and_sums_to_one() -> None:
    signals, judged, _, _ = _simulated(3)
    fit = hp.fit_ordinal(signals, judged, (0, 1, 2, 3))
    assert fit is not None
    prior = hp.RunsPrior(signals, fit)
    holes = [(q, d) for q in sorted(signals)[:5] for d in sorted(signals[q])[:4]]
    table = prior.table(holes)
    assert table.shape == (20, 4)
    for row, (q, d) in zip(table, holes, strict=True):
        assert row.tolist() == pytest.approx(prior.of(q, d))
        assert row.sum() == pytest.approx(1.0)
    assert prior.table([]).shape == (0, 4)


def test_drawn_parameters_move_with_the_seed_and_centre_on_the_fit() -> None:
    signals, judged, _, _ = _simulated(5)
    fit = hp.fit_ordinal(signals, judged, (0, 1, 2, 3))
    assert fit is not None
    first = fit.drawn(np.random.default_rng(9))
    again = fit.drawn(np.random.default_rng(9))
    assert first.weights.tolist() == again.weights.tolist()
    assert first.query_effects == again.query_effects
    draws = [fit.drawn(np.random.default_rng(s)) for s in range(300)]
    mean_weights = np.mean([d.weights for d in draws], axis=0)
    assert mean_weights == pytest.approx(fit.weights, abs=0.15)
    spread = np.std([d.query_effects["q0"] for d in draws])
    assert spread == pytest.approx(fit.query_sd["q0"], rel=0.25)
