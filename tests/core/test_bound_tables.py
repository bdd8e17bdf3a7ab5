"""The comparison's bounds problems built as one table (`HoleTable`), and the
solver's sharing of equal problems, held bit for bit to the plain reference:
`query_problem` per query, one list at a time, and `_highest` on every row."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from judgepool.core.comparing import bounds
from judgepool.core.comparing.bound_tables import BoundsArrays, HoleTable
from judgepool.core.comparing.bounds import (
    GainLevels,
    TopK,
    bound_arrays,
    query_problem,
    ratio_ranges,
)
from judgepool.core.terms.contract import Contract, Scale

SCALES = [Scale(0, 3), Scale(0, 1), Scale(-1, 2), Scale(1, 3), Scale(0, 4)]


def random_case(
    rng: random.Random,
) -> tuple[list[dict[str, TopK]], list[str], dict[str, dict[str, int]], Contract]:
    scale = rng.choice(SCALES)
    contract = Contract(
        k=rng.randint(1, 8),
        scale=scale,
        gain=rng.choice(["linear", "exponential"]),
        unjudged="zero",
        zero_idcg=rng.choice(["zero", "one", "exclude"]),
    )
    queries = [f"q{i}" for i in range(rng.randint(1, 12))]
    judgments: dict[str, dict[str, int]] = {}
    tops: list[dict[str, TopK]] = [{} for _ in range(rng.randint(1, 4))]
    for query in queries:
        docs = [f"d{i}" for i in range(rng.randint(1, 14))]
        judged = rng.sample(docs, rng.randint(0, len(docs)))
        judgments[query] = {d: rng.randint(scale.minimum, scale.maximum) for d in judged}
        judgments[query].update({"never-returned": rng.randint(scale.minimum, scale.maximum)})
        for top in tops:
            if rng.random() < 0.1:
                continue  # the run did not return the query
            # longer than k at times: only the first k count
            chosen = rng.sample(docs, rng.randint(0, min(len(docs), contract.k + 2)))
            top[query] = tuple((d, judgments[query].get(d)) for d in chosen)
    return tops, queries, judgments, contract


def reference(
    lists_of: list[list[tuple[float, TopK]]],
    queries: list[str],
    judgments: dict[str, dict[str, int]],
    contract: Contract,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    problems = [
        query_problem(lists, dict(judgments[q]), contract)
        for lists, q in zip(lists_of, queries, strict=True)
    ]
    low, high = ratio_ranges(problems, GainLevels.of(contract), contract.k)
    return low, high, [len(p.coefficients) for p in problems]


def solve(arrays: BoundsArrays, contract: Contract) -> tuple[np.ndarray, np.ndarray]:
    return bound_arrays(
        arrays.constants,
        arrays.coefficients,
        arrays.holes,
        arrays.judged,
        arrays.zero_values,
        GainLevels.of(contract),
        contract.k,
    )


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True), (got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("seed", range(300))
def test_the_table_gives_query_problems_answers_bit_for_bit(seed: int) -> None:
    rng = random.Random(seed)
    tops, queries, judgments, contract = random_case(rng)
    table = HoleTable.build(tops, queries, judgments, contract, GainLevels.of(contract).gains)
    for r, top in enumerate(tops):
        # a run's own problem: every run's list, the others with sign 0
        lists_of = [
            [(1.0, top.get(q, ())), *((0.0, o.get(q, ())) for o in tops if o is not top)]
            for q in queries
        ]
        low, high, _ = reference(lists_of, queries, judgments, contract)
        got_low, got_high = solve(table.run(r), contract)
        assert_same_bits(got_low, low)
        assert_same_bits(got_high, high)
    for a, b in itertools.permutations(range(len(tops)), 2):
        # a pair's problem: its two lists, every other run's with sign 0
        others = [r for r in range(len(tops)) if r not in (a, b)]
        lists_of = [
            [
                (1.0, tops[a].get(q, ())),
                (-1.0, tops[b].get(q, ())),
                *((0.0, tops[r].get(q, ())) for r in others),
            ]
            for q in queries
        ]
        low, high, holes = reference(lists_of, queries, judgments, contract)
        arrays = table.pair(a, b)
        got_low, got_high = solve(arrays, contract)
        assert_same_bits(got_low, low)
        assert_same_bits(got_high, high)
        assert arrays.holes.tolist() == holes
        own = [
            len({d for r in (a, b) for d, g in tops[r].get(q, ())[: contract.k] if g is None})
            for q in queries
        ]
        assert table.own_holes(a, b).tolist() == own


def repeated_rows(seed: int) -> BoundsArrays:
    """Problems drawn from a small set, so that most rows repeat another."""
    rng = np.random.default_rng(seed)
    distinct = 12
    holes = rng.integers(0, 9, size=distinct)
    coefficients = np.round(rng.uniform(-1, 1, size=(distinct, 8)), 1)
    coefficients[rng.random((distinct, 8)) < 0.3] = 0.0
    coefficients[0, :2] = [-0.0, 0.0]  # zeros of both signs
    judged = np.sort(rng.integers(0, 3, size=(distinct, 3)), axis=1)
    constants = np.round(rng.uniform(-2, 2, size=distinct), 1)
    zero_values = rng.choice([0.0, 1.0, np.nan], size=distinct)
    pick = rng.integers(0, distinct, size=400)
    return BoundsArrays(
        constants[pick], coefficients[pick], holes[pick], judged[pick], zero_values[pick]
    )


@pytest.mark.parametrize("seed", range(20))
def test_equal_problems_solved_once_give_every_rows_own_answer(seed: int) -> None:
    contract = Contract(k=6, scale=Scale(0, 3))
    arrays = repeated_rows(seed)
    low, high = solve(arrays, contract)
    for row in range(arrays.constants.size):  # one row alone: no sharing at all
        alone = BoundsArrays(
            arrays.constants[row : row + 1],
            arrays.coefficients[row : row + 1],
            arrays.holes[row : row + 1],
            arrays.judged[row : row + 1],
            arrays.zero_values[row : row + 1],
        )
        one_low, one_high = solve(alone, contract)
        assert_same_bits(low[row : row + 1], one_low)
        assert_same_bits(high[row : row + 1], one_high)


def test_rows_whose_hashes_collide_are_still_solved_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    contract = Contract(k=6, scale=Scale(0, 3))
    arrays = repeated_rows(7)
    want = solve(arrays, contract)
    # every row hashes alike: all but the rows equal to the first are collisions
    monkeypatch.setattr(bounds, "_row_hash", lambda key: np.zeros(key.shape[0], np.uint64))
    got = solve(arrays, contract)
    assert_same_bits(got[0], want[0])
    assert_same_bits(got[1], want[1])


def test_forty_holes_over_four_grades_equal_the_enumeration() -> None:
    # the six runs' union of holes at dev-small scale: about 30, up to 60 at k = 10
    rng = random.Random(5)
    contract = Contract(k=10, scale=Scale(0, 3))
    levels = GainLevels.of(contract)
    problems = []
    for holes in (36, 40, 44):
        for share in (0.25, 1.0):  # few of the holes in this run's list, or all
            listed = [c for c in range(holes) if rng.random() < share]
            problems.append(
                bounds.HoleQuery(
                    constant=rng.choice([0.0, 1.0, 3 / math.log2(4)]),
                    coefficients=tuple(
                        (1 / math.log2(c + 2) if c in listed else 0.0)
                        - (1 / math.log2(c % 10 + 2) if rng.random() < 0.3 else 0.0)
                        for c in range(holes)
                    ),
                    judged_gains=tuple(
                        rng.choice([1.0, 2.0, 3.0]) for _ in range(rng.randint(0, 2))
                    ),
                    zero_value=rng.choice([0.0, None]),
                )
            )
    low, high = ratio_ranges(problems, levels, contract.k)
    for row, problem in enumerate(problems):
        want_low, want_high = bounds.ratio_range(problem, levels, contract.k)
        assert want_low is not None and want_high is not None
        assert abs(low[row] - want_low) <= 1e-12 and abs(high[row] - want_high) <= 1e-12


@pytest.mark.parametrize("seed", range(100))
def test_every_run_and_blocks_of_pairs_at_once_equal_one_at_a_time(seed: int) -> None:
    # the stacked problems `verdicts._bounds` solves in one call: each row the
    # same bits as `run` and `pair` give, and so the same answers
    rng = random.Random(1000 + seed)
    tops, queries, judgments, contract = random_case(rng)
    table = HoleTable.build(tops, queries, judgments, contract, GainLevels.of(contract).gains)
    constants = table.run_constants()
    runs = len(tops)
    stacked = table.every_run(constants)
    low, high = solve(stacked, contract)
    for r in range(runs):
        alone = table.run(r)
        rows = slice(r * len(queries), (r + 1) * len(queries))
        for name in ("constants", "coefficients", "holes", "judged", "zero_values"):
            assert_same_bits(getattr(stacked, name)[rows], getattr(alone, name))
        want_low, want_high = solve(alone, contract)
        assert_same_bits(low[rows], want_low)
        assert_same_bits(high[rows], want_high)
    pairs = list(itertools.permutations(range(runs), 2))
    if not pairs:
        return
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    alone = [table.pair(first, second) for first, second in pairs]
    answers = [solve(arrays, contract) for arrays in alone]
    for q in range(len(queries)):
        # each query's rows as wide as its own holes: the same numbers, the
        # columns past them (zeros in the table's rows) left out
        stacked = table.pairs_at(q, a, b, constants)
        width = int(table.union[q])
        assert stacked.coefficients.shape == (len(pairs), width)
        low, high = solve(stacked, contract)
        for p, arrays in enumerate(alone):
            assert_same_bits(stacked.constants[p : p + 1], arrays.constants[q : q + 1])
            assert_same_bits(stacked.coefficients[p], arrays.coefficients[q, :width])
            assert not arrays.coefficients[q, width:].any()
            assert stacked.holes[p] == arrays.holes[q]
            assert stacked.judged[p].tolist() == arrays.judged[q].tolist()
            assert_same_bits(stacked.zero_values[p : p + 1], arrays.zero_values[q : q + 1])
            assert_same_bits(low[p : p + 1], answers[p][0][q : q + 1])
            assert_same_bits(high[p : p + 1], answers[p][1][q : q + 1])
    own = table.own_holes_of(a, b)
    for p, (first, second) in enumerate(pairs):
        assert own[p] == table.own_holes(first, second).sum()
