"""The sample's frame and design: the frame held to a hand reading of the
runs, the inclusion probabilities to their definition, the draw to the
seed's documented meaning, and the weights to a plain re-computation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from judgepool.core.holes.sample_design import (
    build_frame,
    draw_sample,
    frame_digest,
    ideal_and_slopes,
    inclusion_probabilities,
)
from judgepool.core.scoring.metrics import ideal_dcg
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError
from tests.core.sample_cases import random_case


def test_frame_by_hand() -> None:
    contract = Contract(k=3, unjudged="zero")
    judgments = {"q": {"a": 3, "b": 0, "far": 2}}
    tops = [
        {"q": (("a", 3), ("u", None), ("b", 0))},
        {"q": (("v", None), ("u", None), ("a", 3))},
    ]
    frame = build_frame(tops, ["q"], judgments, contract)
    assert frame.items == (("q", "u"), ("q", "v"))
    d = [1.0, 1 / math.log2(3), 0.5]
    # u: second in both runs; v: first in the second run only
    assert frame.coefficients.tolist() == [[d[1], 0.0], [d[1], d[0]]]
    assert frame.best_rank.tolist() == [2, 1]
    assert frame.constants[:, 0].tolist() == pytest.approx([3 * d[0], 3 * d[2]])
    # every judged document counts in the ideal, the one no run returned too
    assert frame.judged.tolist() == [[1, 2, 2]]


def test_withheld_items_are_holes_again() -> None:
    contract = Contract(k=3, unjudged="zero")
    judgments = {"q": {"a": 3, "u": 2}}
    tops = [{"q": (("a", 3), ("u", 2), ("v", None))}]
    frame = build_frame(tops, ["q"], judgments, contract, withheld={("q", "u")})
    assert frame.items == (("q", "u"), ("q", "v"))
    assert frame.constants.tolist() == [[3.0]]  # u's grade left out of the DCG
    assert frame.judged.tolist() == [[1, 1, 1]]  # and of the ideal


def test_frame_does_not_depend_on_the_order_of_the_runs() -> None:
    rng = random.Random(3)
    for _ in range(20):
        case = random_case(rng)
        first = build_frame(case.tops, case.queries, case.judgments, case.contract)
        other = build_frame(case.tops[::-1], case.queries, case.judgments, case.contract)
        assert first.items == other.items and first.digest() == other.digest()
        assert np.array_equal(first.weights(), other.weights())
        assert first.digest() == frame_digest(sorted(case.truth))


def test_weights_by_a_plain_reading() -> None:
    """w_h = Σ_r |c_rh − R_rq · s_q| / D⁺_q, each term recomputed from the
    judged gains with `metrics.ideal_dcg`."""
    rng = random.Random(5)
    for _ in range(30):
        case = random_case(rng)
        contract = case.contract
        frame = build_frame(case.tops, case.queries, case.judgments, contract)
        top = max(contract.gain_of(g) for g in contract.scale.grades)
        for h, (query, _) in enumerate(frame.items):
            gains = [contract.gain_of(g) for g in case.judgments[query].values()]
            base = ideal_dcg(gains, contract.k)
            plus = ideal_dcg([*gains, top], contract.k)
            q = case.queries.index(query)
            moved = sum(
                abs(
                    frame.coefficients[r, h]
                    - min(1.0, frame.constants[r, q] / plus) * (plus - base) / top
                )
                for r in range(frame.runs)
            )
            assert frame.weights()[h] == pytest.approx(moved / plus, rel=1e-12)


def test_ideal_reads_the_prefix_sums_between_integers() -> None:
    contract = Contract(k=3)
    levels = build_frame([{}], [], {}, contract).levels
    d = [1.0, 1 / math.log2(3), 0.5]
    # one count per level (3, 2, 1): the ideal at whole counts is the ideal DCG
    ideal, slopes = ideal_and_slopes(3, levels, np.array([[1.0, 2.0, 4.0], [0.5, 0.0, -1.0]]))
    assert ideal[0] == pytest.approx(ideal_dcg([3, 2, 1, 1], 3))
    assert ideal[1] == pytest.approx(0.5 * d[0])
    assert slopes[0].tolist() == pytest.approx([d[1], d[2], 0.0])
    assert slopes[1].tolist() == pytest.approx([d[0], d[0], 0.0])


def test_inclusion_probabilities() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        weights = rng.exponential(size=rng.integers(1, 40)) + 1e-3
        size = float(rng.uniform(0.5, weights.size + 2))
        p = inclusion_probabilities(weights, size)
        assert p.sum() == pytest.approx(min(size, weights.size))
        assert ((p > 0) & (p <= 1)).all()
        # below 1, proportional to the weight, with one factor; a certain hole
        # weighs at least as much as every uncertain one
        uncertain = p < 1
        if uncertain.any():
            ratio = p[uncertain] / weights[uncertain]
            assert ratio == pytest.approx(np.full(ratio.size, ratio[0]))
            if (~uncertain).any():
                assert weights[~uncertain].min() * ratio[0] >= 1 - 1e-12
    with pytest.raises(ContractError):
        inclusion_probabilities(np.array([1.0, 0.0]), 1)
    with pytest.raises(ContractError):
        inclusion_probabilities(np.array([1.0]), 0)


def test_draw_is_the_seeds_documented_meaning() -> None:
    rng = random.Random(8)
    case = random_case(rng, queries=4)
    frame = build_frame(case.tops, case.queries, case.judgments, case.contract)
    sample = draw_sample(frame, 3.5, 42)
    uniforms = np.random.default_rng(42).random(frame.holes)
    assert np.array_equal(sample.drawn, uniforms < sample.probabilities)
    assert sample.probabilities.sum() == pytest.approx(3.5)
    assert np.array_equal(draw_sample(frame, 3.5, 42).drawn, sample.drawn)


def test_no_frame_under_universe_candidates() -> None:
    with pytest.raises(ContractError, match="candidates"):
        build_frame([{}], [], {}, Contract(universe="candidates"))
