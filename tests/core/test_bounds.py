"""Exact bounds under unjudged documents: the contract's reference values, and
both implementations (`ratio_range`, the enumeration of compositions, and
`ratio_ranges`, Dinkelbach's method) equal to brute force over every
assignment of grades to the holes, computed with the reference metrics."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgepool.core.comparing.bounds import (
    GainLevels,
    HoleQuery,
    TopK,
    query_problem,
    ratio_range,
    ratio_ranges,
)
from judgepool.core.scoring.metrics import dcg, ideal_dcg, normalise
from judgepool.core.terms.contract import Contract, Scale

TOLERANCE = 1e-12


def brute_force(
    lists: list[tuple[float, TopK]], judged: dict[str, int], contract: Contract
) -> tuple[float | None, float | None]:
    """Σ sign · nDCG over every assignment of the scale's grades to the holes,
    each list scored from scratch by the reference metrics."""
    holes = sorted({doc for _, top in lists for doc, grade in top if grade is None})
    values = []
    for grades in itertools.product(contract.scale.grades, repeat=len(holes)):
        assigned = dict(zip(holes, grades, strict=True))
        universe = [contract.gain_of(g) for g in [*judged.values(), *assigned.values()]]
        idcg = ideal_dcg(universe, contract.k)
        total = 0.0
        left_out = False
        for sign, top in lists:
            gains = [contract.gain_of(assigned[d] if g is None else g) for d, g in top]
            value = normalise(dcg(gains, contract.k), idcg, contract.zero_idcg)
            if value is None:
                left_out = True
                break
            total += sign * value
        if not left_out:
            values.append(total)
    return (min(values), max(values)) if values else (None, None)


def assert_close(got: tuple[float | None, float | None], want: tuple[float | None, float | None]):
    for g, w in zip(got, want, strict=True):
        if w is None:
            assert g is None or (isinstance(g, float) and math.isnan(g)), (got, want)
        else:
            assert g is not None and abs(g - w) <= TOLERANCE, (got, want)


# ----------------------------------------------------------------------- reference values

REF = Contract(k=2, scale=Scale(0, 3))
JUDGED = {"A": 3, "B": 0}
A_U: TopK = [("A", 3), ("U", None)]
U_A: TopK = [("U", None), ("A", 3)]


@pytest.mark.parametrize(
    ("lists", "expected"),
    [
        ([(1.0, A_U)], (1.0, 1.0)),
        ([(1.0, U_A)], ((3 / math.log2(3)) / 3, 1.0)),
        ([(1.0, A_U), (-1.0, U_A)], (0.0, 1 - 1 / math.log2(3))),
    ],
    ids=["[A,U]", "[U,A]", "[A,U]-[U,A]"],
)
def test_the_contracts_reference_values(
    lists: list[tuple[float, TopK]], expected: tuple[float, float]
) -> None:
    problem = query_problem(lists, JUDGED, REF)
    levels = GainLevels.of(REF)
    assert_close(ratio_range(problem, levels, REF.k), expected)
    low, high = ratio_ranges([problem], levels, REF.k)
    assert_close((float(low[0]), float(high[0])), expected)
    assert_close(brute_force(lists, JUDGED, REF), expected)


def test_twenty_holes_over_four_grades_are_1771_compositions() -> None:
    assert math.comb(20 + 4 - 1, 4 - 1) == 1771


# ----------------------------------------------------------------------- random cases

SCALES = [Scale(0, 3), Scale(0, 1), Scale(-1, 2), Scale(1, 3), Scale(0, 4), Scale(-2, 0)]


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[float, TopK]], dict[str, int], Contract]:
    scale = draw(st.sampled_from(SCALES))
    gain = draw(st.sampled_from(["linear", "exponential", "map"]))
    if gain == "map":
        gain = (
            ",".join(
                f"{g}={draw(st.sampled_from([0, 1, 2, 2.5, 7]))}" for g in scale.grades if g > 0
            )
            or "linear"
        )
    contract = Contract(
        k=draw(st.integers(1, 6)),
        scale=scale,
        gain=gain,
        zero_idcg=draw(st.sampled_from(["zero", "one", "exclude"])),
    )
    docs = [f"d{i}" for i in range(draw(st.integers(1, 9)))]
    judged_docs = draw(st.lists(st.sampled_from(docs), unique=True))
    judged = {d: draw(st.integers(scale.minimum, scale.maximum)) for d in judged_docs}
    # judged documents the runs never return
    for extra in range(draw(st.integers(0, 2))):
        judged[f"j{extra}"] = draw(st.integers(scale.minimum, scale.maximum))
    runs = []
    for _ in range(draw(st.integers(1, 2))):
        chosen = draw(st.lists(st.sampled_from(docs), unique=True, max_size=contract.k))
        runs.append([(d, judged.get(d)) for d in chosen])
    # at most 6 holes in all, so brute force stays small
    holes = {d for top in runs for d, g in top if g is None}
    if len(holes) > 6:
        keep = sorted(holes)[:6]
        runs = [[(d, g) for d, g in top if g is not None or d in keep] for top in runs]
    signs = [1.0] if len(runs) == 1 else [1.0, -1.0]
    return list(zip(signs, runs, strict=False)), judged, contract


@settings(deadline=None, max_examples=1200)
@given(case=cases())
@pytest.mark.slow
def test_both_implementations_equal_brute_force(
    case: tuple[list[tuple[float, TopK]], dict[str, int], Contract],
) -> None:
    lists, judged, contract = case
    want = brute_force(lists, judged, contract)
    problem = query_problem(lists, judged, contract)
    levels = GainLevels.of(contract)
    assert_close(ratio_range(problem, levels, contract.k), want)
    low, high = ratio_ranges([problem], levels, contract.k)
    assert_close((float(low[0]), float(high[0])), want)


def test_many_queries_at_once_equal_one_at_a_time() -> None:
    rng = random.Random(3)
    contract = Contract(k=10, scale=Scale(0, 3))
    levels = GainLevels.of(contract)
    problems = []
    for _ in range(300):
        holes = rng.randint(0, 20)
        problems.append(
            HoleQuery(
                constant=rng.uniform(-3, 3),
                coefficients=tuple(rng.uniform(-1, 1) for _ in range(holes)),
                judged_gains=tuple(rng.choice([1.0, 2.0, 3.0]) for _ in range(rng.randint(0, 4))),
                zero_value=rng.choice([0.0, 1.0, None]),
            )
        )
    low, high = ratio_ranges(problems, levels, contract.k)
    for row, problem in enumerate(problems[:120]):  # the enumeration is the slow one
        assert_close((float(low[row]), float(high[row])), ratio_range(problem, levels, 10))
    assert np.all(low <= high + TOLERANCE)
