"""Comparing runs: the population, the paired statistics' inputs, and the bounds
and verdicts held to brute force — every assignment of grades to the holes,
each run re-scored from scratch by the reference engine."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgepool.core.comparing.bounds import TopK
from judgepool.core.comparing.verdicts import RunInput, compare, population, verdict_of
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.ranking import form_list
from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.types import RunEntry

TOLERANCE = 1e-12
Judged = dict[str, dict[str, int]]


def run_input(name: str, lines: list[RunEntry], judgments: Judged, contract: Contract) -> RunInput:
    grouped = group_by_query(lines)
    evaluation = evaluate(grouped, judgments, contract)
    top: dict[str, TopK] = {}
    for query_id, entries in grouped.items():
        if query_id in judgments:
            formed = form_list(query_id, entries, judgments[query_id], contract)
            top[query_id] = tuple((d.entity, d.grade) for d in formed.deduplicated[: contract.k])
    return RunInput(name, evaluation, top)


def ranked(query: str, docs: list[str]) -> list[RunEntry]:
    return [RunEntry(query, d, i + 1, float(len(docs) - i), i + 1) for i, d in enumerate(docs)]


def mean_ndcg(lines: list[RunEntry], judgments: Judged, contract: Contract, queries: list[str]):
    evaluation = evaluate(group_by_query(lines), judgments, contract)
    values = [evaluation.query(q).ndcg for q in queries]
    return sum(v for v in values if v is not None) / len(queries)


# ----------------------------------------------------------------------- reference values


def test_the_contracts_reference_pair_could_flip() -> None:
    judgments: Judged = {"q": {"A": 3, "B": 0}}
    contract = Contract(k=2, unjudged="zero")
    first = run_input("AU", ranked("q", ["A", "U"]), judgments, contract)
    second = run_input("UA", ranked("q", ["U", "A"]), judgments, contract)
    result = compare([first, second], judgments, contract, [(0, 1)], permutations=100)
    pair = result.pairs[0]
    assert pair.diff_bounds == pytest.approx((0.0, 1 - 1 / math.log2(3)), abs=TOLERANCE)
    assert pair.verdict == "could flip" and pair.holes == 1  # U, one document in both
    assert result.runs[0].bounds == pytest.approx((1.0, 1.0), abs=TOLERANCE)
    assert result.runs[1].bounds == pytest.approx((1 / math.log2(3), 1.0), abs=TOLERANCE)


def test_verdicts() -> None:
    assert verdict_of(0.1, 0.3) == "settled" and verdict_of(-0.3, -0.01) == "settled"
    assert verdict_of(0.0, 0.0) == "tied"
    assert verdict_of(0.0, 0.2) == "could flip" and verdict_of(-0.1, 0.2) == "could flip"


def test_population_leaves_out_excluded_queries_and_says_why() -> None:
    judgments: Judged = {"q1": {"A": 1}, "q2": {"B": 0}, "q3": {"C": 2}}
    contract = Contract(k=2, unjudged="zero", zero_idcg="exclude", missing="skip")
    runs = [
        run_input(
            "r1",
            ranked("q1", ["A"]) + ranked("q2", ["B"]) + ranked("q3", ["C"]),
            judgments,
            contract,
        ),
        run_input("r2", ranked("q1", ["A"]) + ranked("q2", ["B"]), judgments, contract),
    ]
    queries, left_out = population(runs)
    assert queries == ["q1"]
    assert left_out == {
        "q2": "r1: zero IDCG, excluded",
        "q3": "r2: absent from the run (missing=skip), excluded",
    }


# ----------------------------------------------------------------------- brute force


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[list[RunEntry]], Judged, Contract]:
    scale = draw(st.sampled_from([Scale(0, 1), Scale(0, 2), Scale(0, 3), Scale(1, 2)]))
    contract = Contract(
        k=draw(st.integers(1, 4)),
        scale=scale,
        gain=draw(st.sampled_from(["linear", "exponential"])),
        unjudged=draw(st.sampled_from(["zero", "condense"])),
        zero_idcg=draw(st.sampled_from(["zero", "one"])),
    )
    docs = [f"d{i}" for i in range(6)]
    queries = ["q1", "q2"][: draw(st.integers(1, 2))]
    judgments: Judged = {}
    for query in queries:
        chosen = draw(st.lists(st.sampled_from(docs), unique=True, max_size=4))
        judgments[query] = {d: draw(st.integers(scale.minimum, scale.maximum)) for d in chosen}
    runs = []
    for _ in range(draw(st.integers(2, 3))):
        lines: list[RunEntry] = []
        for query in queries:
            lines += ranked(query, draw(st.lists(st.sampled_from(docs), unique=True, max_size=4)))
        runs.append(lines)
    return runs, judgments, contract


def holes_of(runs: list[RunInput], queries: list[str], k: int) -> list[tuple[str, str]]:
    return sorted(
        {(q, d) for run in runs for q in queries for d, g in run.top.get(q, ())[:k] if g is None}
    )


def brute_means(
    lines: list[list[RunEntry]],
    holes: list[tuple[str, str]],
    judgments: Judged,
    contract: Contract,
    queries: list[str],
) -> list[list[float]]:
    """For every assignment of grades to ``holes``, each run's mean nDCG under
    ``unjudged="zero"`` (bounds are defined as under zero): computed once, and
    read by every range `brute_range` is asked for."""
    zero = contract.with_changes(unjudged="zero")
    means = []
    for grades in itertools.product(contract.scale.grades, repeat=len(holes)):
        completed = {q: dict(docs) for q, docs in judgments.items()}
        for (query, doc), grade in zip(holes, grades, strict=True):
            completed[query][doc] = grade
        means.append([mean_ndcg(run, completed, zero, queries) for run in lines])
    return means


def brute_range(
    means: list[list[float]], signs: list[float], runs: list[int]
) -> tuple[float, float]:
    """The least and greatest signed sum of the ``runs``' means over every assignment."""
    values = [
        sum(sign * assignment[run] for sign, run in zip(signs, runs, strict=True))
        for assignment in means
    ]
    return min(values), max(values)


@settings(deadline=None, max_examples=400)
@given(case=cases())
@pytest.mark.slow
def test_bounds_and_verdicts_hold_over_every_assignment(
    case: tuple[list[list[RunEntry]], Judged, Contract],
) -> None:
    lines, judgments, contract = case
    inputs = [run_input(f"r{i}", run, judgments, contract) for i, run in enumerate(lines)]
    result = compare(inputs, judgments, contract, [(0, 1)], permutations=64, bootstrap=50)
    queries = list(result.population)
    if not queries:
        return
    # per query, one pair of bounds per query of the population, whose means
    # are the pair's bounds (queries are independent). (They need not hold the
    # observed difference: a hole scored 0 may be no grade of the scale.)
    per_query = result.per_query_bounds[("r0", "r1")]
    assert len(per_query) == len(queries)
    pair_bounds = result.pairs[0].diff_bounds
    assert pair_bounds is not None
    assert sum(low for low, _ in per_query) / len(queries) == pytest.approx(
        pair_bounds[0], abs=1e-9
    )
    assert sum(high for _, high in per_query) / len(queries) == pytest.approx(
        pair_bounds[1], abs=1e-9
    )
    # every compared run's holes: a third run's, judged, rescales the pair's
    # per-query differences and can move the mean's sign
    all_holes = holes_of(inputs, queries, contract.k)
    if len(all_holes) <= 5:
        means = brute_means(lines, all_holes, judgments, contract, queries)
        low, high = brute_range(means, [1.0, -1.0], [0, 1])
        bounds = result.pairs[0].diff_bounds
        assert bounds is not None
        assert bounds[0] == pytest.approx(low, abs=1e-9) and bounds[1] == pytest.approx(
            high, abs=1e-9
        )
        if result.pairs[0].verdict == "settled":
            assert (low > 0) or (high < 0)  # never contradicted by any assignment
        assert result.pairs[0].holes == len(holes_of(inputs[:2], queries, contract.k))
        for index in range(len(lines)):
            low, high = brute_range(means, [1.0], [index])
            bounds = result.runs[index].bounds
            assert bounds is not None
            assert bounds[0] == pytest.approx(low, abs=1e-9)
            assert bounds[1] == pytest.approx(high, abs=1e-9)


def test_bounds_computed_a_few_queries_at_a_time_are_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import random

    from judgepool.core.comparing import verdicts

    rng = random.Random(11)
    contract = Contract(k=5, unjudged="zero")
    judgments: Judged = {}
    lines: list[list[RunEntry]] = [[], [], []]
    for q in range(40):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(12)]
        judgments[query] = {d: rng.randint(0, 3) for d in rng.sample(docs, rng.randint(1, 5))}
        for run in lines:
            run.extend(ranked(query, rng.sample(docs, rng.randint(1, 8))))
    inputs = [run_input(f"r{i}", run, judgments, contract) for i, run in enumerate(lines)]
    pairs = [(0, 1), (0, 2), (1, 2)]
    whole = compare(inputs, judgments, contract, pairs, permutations=200, bootstrap=100)
    monkeypatch.setattr(verdicts, "_TABLE_CELLS", 1)  # one query per table
    piecewise = compare(inputs, judgments, contract, pairs, permutations=200, bootstrap=100)
    assert piecewise == whole
    assert any(pair.holes for pair in whole.pairs)


def test_pairs_solved_one_at_a_time_or_in_blocks_are_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import random

    from judgepool.core.comparing import verdicts

    rng = random.Random(12)
    contract = Contract(k=5, unjudged="zero")
    judgments: Judged = {}
    lines: list[list[RunEntry]] = [[] for _ in range(6)]
    for q in range(15):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(12)]
        judgments[query] = {d: rng.randint(0, 3) for d in rng.sample(docs, rng.randint(1, 6))}
        for run in lines:
            run.extend(ranked(query, rng.sample(docs, rng.randint(1, 8))))
    inputs = [run_input(f"r{i}", run, judgments, contract) for i, run in enumerate(lines)]
    pairs = [(a, b) for a in range(6) for b in range(a + 1, 6)]
    whole = compare(inputs, judgments, contract, pairs, permutations=200, bootstrap=100)
    monkeypatch.setattr(verdicts, "_SOLVE_CELLS", 1)  # one pair per solver call
    one_by_one = compare(inputs, judgments, contract, pairs, permutations=200, bootstrap=100)
    assert one_by_one == whole
    monkeypatch.setattr(verdicts, "_TABLE_CELLS", 1)  # and one query per table
    piecewise = compare(inputs, judgments, contract, pairs, permutations=200, bootstrap=100)
    assert piecewise == whole
    assert sum(pair.holes for pair in whole.pairs) > 0
