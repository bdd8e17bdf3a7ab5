"""The draws of probable verdicts held to a plain sampler with the same seed
semantics (scored by the reference metrics, the ideal recomputed from the
judged and drawn grades each time), the contract's reference example within
Monte Carlo error, and the priors equal to hand counts."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from judgepool.core.comparing.bounds import TopK
from judgepool.core.holes import draws as draws_module
from judgepool.core.holes.draws import DrawnMeans, DrawProblem, draw_means, draw_problem
from judgepool.core.holes.priors import (
    MODEL_PRIOR_MINIMUM,
    Prior,
    best_ranks,
    model_prior,
    rank_prior,
    smoothed,
)
from judgepool.core.scoring.metrics import dcg, ideal_dcg, normalise
from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.errors import ContractError

Tops = Sequence[Mapping[str, TopK]]


def plain_means(
    tops: Tops,
    queries: Sequence[str],
    judgments: Mapping[str, Mapping[str, int]],
    contract: Contract,
    prior: Prior,
    draws: int,
    seed: int,
) -> list[list[float]]:
    """Every draw's mean nDCG per run, one draw and one query at a time: the
    holes in the documented order, each grade chosen by comparing its uniform
    with the cumulative sums, every list scored by `core.scoring.metrics`."""
    k = contract.k
    grades = list(contract.scale.grades)
    holes: list[tuple[str, str, int]] = []
    for query_id in queries:
        seen: dict[str, int] = {}
        for top in tops:
            for rank, (doc, grade) in enumerate(top.get(query_id, ())[:k], start=1):
                if doc not in seen:
                    seen[doc] = rank
                    if grade is None:
                        holes.append((query_id, doc, rank))
                seen[doc] = min(seen[doc], rank)
    # a document's best rank can come from a later run; take the smallest
    best = best_ranks(tops, queries, k)
    holes = [(q, d, best[q][d][0]) for q, d, _ in holes]
    uniforms = np.random.default_rng(seed).random((draws, len(holes)))
    result = []
    for row in uniforms:
        drawn: dict[tuple[str, str], int] = {}
        for (query_id, doc, rank), u in zip(holes, row, strict=True):
            sums = list(itertools.accumulate(prior.of(query_id, doc, rank)))
            drawn[(query_id, doc)] = grades[sum(1 for c in sums[:-1] if c <= u)]
        means = []
        for top in tops:
            total = 0.0
            for query_id in queries:
                universe = [
                    *judgments.get(query_id, {}).values(),
                    *(g for (q, _), g in drawn.items() if q == query_id),
                ]
                idcg = ideal_dcg([contract.gain_of(g) for g in universe], k)
                gains = [
                    contract.gain_of(drawn[(query_id, d)] if g is None else g)
                    for d, g in top.get(query_id, ())[:k]
                ]
                value = normalise(dcg(gains, k), idcg, contract.zero_idcg)
                total += 0.0 if value is None else value  # exclude: as under zero
            means.append(total / len(queries))
        result.append(means)
    return result


def reference_case() -> tuple[Tops, dict[str, dict[str, int]], Contract]:
    judgments = {"q": {"A": 3, "B": 0}}
    tops = [{"q": [("A", 3), ("U", None)]}, {"q": [("U", None), ("A", 3)]}]
    return tops, judgments, Contract(k=2, scale=Scale(0, 3), gain="linear")


def test_the_contracts_reference_example() -> None:
    tops, judgments, contract = reference_case()
    prior = Prior(rank_prior(tops, ["q"], contract))
    assert prior.rank.counts == {1: {3: 1}}
    assert prior.of("q", "U", 1) == pytest.approx((0.2, 0.2, 0.2, 0.4))
    problem = draw_problem(tops, ["q"], judgments, contract, prior)
    draws = 40_000
    drawn = draw_means(problem, draws, seed=7)
    pair = drawn.pair(0, 1)
    # the indicator of "A ahead" is 1 (p 0.6) or 1/2 (U = 3, p 0.4): variance 0.06
    error = 5 * math.sqrt(0.06 / draws)
    assert pair.p_a_ahead == pytest.approx(0.8, abs=error)
    differences = np.array([0.369070, 0.203292, 0.086598, 0.0])
    probabilities = np.array([0.2, 0.2, 0.2, 0.4])
    spread = math.sqrt(float(probabilities @ differences**2 - (probabilities @ differences) ** 2))
    assert pair.expected_diff == pytest.approx(0.131792, abs=5 * spread / math.sqrt(draws))
    expected_ndcg, (low, high) = drawn.run_expected(1)
    assert expected_ndcg == pytest.approx(0.868208, abs=5 * spread / math.sqrt(draws))
    assert drawn.run_expected(0)[0] == 1.0  # [A, U] scores 1 whatever U is
    assert low == pytest.approx(1 - 0.369070, abs=1e-6) and high == 1.0


def test_a_pair_without_holes_is_one_zero_or_a_half() -> None:
    judgments = {"q": {"A": 3, "B": 1}}
    contract = Contract(k=2)
    tops = [{"q": [("A", 3), ("B", 1)]}, {"q": [("B", 1), ("A", 3)]}, {"q": [("A", 3), ("B", 1)]}]
    prior = Prior(rank_prior(tops, ["q"], contract))
    drawn = draw_means(draw_problem(tops, ["q"], judgments, contract, prior), 50, seed=1)
    assert drawn.pair(0, 1).p_a_ahead == 1.0
    assert drawn.pair(1, 0).p_a_ahead == 0.0
    assert drawn.pair(0, 2).p_a_ahead == 0.5


IDS = ["d", "doc-1", "msmarco_v2.1_doc_29_677149#3_1487211", "https://ex.am/ple?q=1", "é文", "🙂x"]


def random_case(
    rng: random.Random,
) -> tuple[Tops, list[str], dict[str, dict[str, int]], Contract]:
    scale = rng.choice([Scale(0, 1), Scale(0, 3), Scale(-1, 2), Scale(0, 4)])
    gain = rng.choice(["linear", "exponential"])
    contract = Contract(
        k=rng.randint(1, 6), scale=scale, gain=gain,
        zero_idcg=rng.choice(["zero", "one", "exclude"]),
    )  # fmt: skip
    grades = list(scale.grades)
    queries = [f"q{i}" for i in range(rng.randint(1, 4))]
    judgments: dict[str, dict[str, int]] = {}
    pools: dict[str, list[str]] = {}
    for query_id in queries:
        pool = [rng.choice(IDS) + str(i) for i in range(rng.randint(1, 9))]
        pools[query_id] = pool
        judged = {doc: rng.choice(grades) for doc in pool if rng.random() < 0.5}
        if judged or rng.random() < 0.7:
            judgments[query_id] = judged
    tops: list[dict[str, list[tuple[str, int | None]]]] = []
    for _ in range(rng.randint(2, 4)):
        top: dict[str, list[tuple[str, int | None]]] = {}
        for query_id in queries:
            docs = rng.sample(pools[query_id], rng.randint(0, len(pools[query_id])))
            if rng.random() < 0.1 and docs:
                docs.append(docs[0])  # duplicates=keep holds a document twice
            top[query_id] = [(d, judgments.get(query_id, {}).get(d)) for d in docs]
        tops.append(top)
    return tops, queries, judgments, contract


@pytest.mark.parametrize("case", range(60))
def test_the_draws_equal_a_plain_sampler(case: int) -> None:
    rng = random.Random(case)
    tops, queries, judgments, contract = random_case(rng)
    prior = Prior(rank_prior(tops, queries, contract))
    draws = rng.choice([1, 7, 40])
    seed = rng.randrange(2**32)
    problem = draw_problem(tops, queries, judgments, contract, prior)
    # tiny chunks: the draws come in several chunks and must equal one whole draw
    got = draw_means(problem, draws, seed, chunk_cells=rng.choice([1, 5, 10_000]))
    want = plain_means(tops, queries, judgments, contract, prior, draws, seed)
    np.testing.assert_allclose(got.means, np.array(want), rtol=0, atol=1e-12)


def test_progress_is_told_after_each_chunk() -> None:
    tops, judgments, contract = reference_case()
    problem = draw_problem(
        tops, ["q"], judgments, contract, Prior(rank_prior(tops, ["q"], contract))
    )
    told: list[tuple[int, int]] = []
    draw_means(
        problem, 10, 0, on_chunk=lambda done, total: told.append((done, total)), chunk_cells=4
    )
    assert told == [(4, 10), (8, 10), (10, 10)]


def test_the_rank_prior_is_a_hand_count() -> None:
    contract = Contract(k=3, scale=Scale(0, 2))
    tops = [
        {"a": [("x", 2), ("h", None), ("y", 0)], "b": [("x", 1), ("y", None)]},
        {"a": [("y", 0), ("x", 2), ("z", 1)], "b": [("h", None)]},
    ]
    prior = rank_prior(tops, ["a", "b"], contract)
    # a: x best rank 1 (grade 2), y best rank 1 (run 2, grade 0), z rank 3 (1); b: x rank 1 (1)
    assert prior.counts == {1: {2: 1, 0: 1, 1: 1}, 3: {1: 1}}
    assert prior.items == 4
    assert prior.probabilities(1) == pytest.approx((2 / 6, 2 / 6, 2 / 6))
    assert prior.probabilities(3) == pytest.approx((1 / 4, 2 / 4, 1 / 4))
    assert prior.probabilities(2) == pytest.approx((1 / 3, 1 / 3, 1 / 3))  # nobody judged
    # only the comparison's queries count
    assert rank_prior(tops, ["b"], contract).counts == {1: {1: 1}}


def test_the_model_prior_is_a_hand_count_and_falls_back_to_rank() -> None:
    contract = Contract(k=2, scale=Scale(0, 1))
    judgments = {f"q{i}": {"d": i % 2, "e": 1} for i in range(20)}
    labels = {f"q{i}": {"d": 1, "e": 1} for i in range(20)}
    labels["q0"]["hole"] = 0
    model = model_prior("m", labels, judgments, contract)
    assert model.counts == {1: {0: 10, 1: 30}}
    assert model.items == 40
    assert model.probabilities(1) == pytest.approx((11 / 42, 31 / 42))
    assert model.probabilities(0) == pytest.approx(
        (0.5, 0.5)
    )  # the model never said 0 on a judged item
    assert model.kappa_linear is not None
    tops = [{"q0": [("hole", None), ("other", None)]}]
    prior = Prior(rank_prior(tops, ["q0"], contract), model)
    assert prior.of("q0", "hole", 1) == model.probabilities(0)
    assert prior.of("q0", "other", 2) == smoothed({}, [0, 1])
    assert prior.kind == "model:m"
    data = prior.to_dict()
    assert data["kind"] == "model:m" and data["items"] == 40
    assert data["counts"] == {"1": {"0": 10, "1": 30}}


def test_the_model_prior_refuses_too_few_items_with_the_count() -> None:
    contract = Contract(k=2, scale=Scale(0, 1))
    judgments = {"q": {f"d{i}": 1 for i in range(MODEL_PRIOR_MINIMUM - 1)}}
    labels = {"q": {f"d{i}": 1 for i in range(MODEL_PRIOR_MINIMUM + 5)}}
    with pytest.raises(ContractError, match=f"{MODEL_PRIOR_MINIMUM - 1} found"):
        model_prior("m", labels, judgments, contract)
    with pytest.raises(ContractError, match="off the scale"):
        model_prior("m", {"q": {"d0": 5}}, judgments, contract)


def test_a_model_that_agrees_with_people_decides_what_the_rank_prior_cannot() -> None:
    """Two runs differing only in their hole; a model that says the hole is
    relevant, trusted on 40 items where it always agreed with people."""
    contract = Contract(k=2, scale=Scale(0, 1))
    judgments = {"q": {"A": 1, **{f"j{i}": i % 2 for i in range(40)}}}
    tops = [{"q": [("A", 1), ("H", None)]}, {"q": [("A", 1), ("B", None)]}]
    labels = {"q": {**{f"j{i}": i % 2 for i in range(40)}, "H": 1, "B": 0}}
    rank = rank_prior(tops, ["q"], contract)
    model = Prior(rank, model_prior("m", labels, judgments, contract))
    with_rank = draw_means(draw_problem(tops, ["q"], judgments, contract, Prior(rank)), 4000, 3)
    with_model = draw_means(draw_problem(tops, ["q"], judgments, contract, model), 4000, 3)
    assert 0.3 < with_rank.pair(0, 1).p_a_ahead < 0.7
    assert with_model.pair(0, 1).p_a_ahead > 0.9


def test_an_empty_population_gives_no_means() -> None:
    tops, judgments, contract = reference_case()
    problem = draw_problem(tops, [], judgments, contract, Prior(rank_prior(tops, [], contract)))
    assert np.isnan(draw_means(problem, 3, 0).means).all()


def every_hole_means(problem: DrawProblem, draws: int, seed: int) -> np.ndarray:
    """`draw_means` as it was before it skipped the queries where a run has no
    hole: every run's sum over every hole of each query (others' at discount
    0), all draws in one chunk. The bits `draw_means` must keep."""
    runs = problem.fixed.size
    uniforms = np.random.default_rng(seed).random((draws, problem.holes))
    index = np.zeros((draws, problem.holes), dtype=np.int64)
    for g in range(problem.cumulative.shape[1] - 1):
        index += uniforms >= problem.cumulative[None, :, g]
    gains = problem.grade_gains[index]
    steps = problem.levels.steps()
    k = problem.prefix.size - 1
    idcg = np.zeros((draws, problem.starts.size), dtype=np.float64)
    for j, level in enumerate(problem.levels.gains):
        drawn = np.add.reduceat((gains >= level).astype(np.int64), problem.starts, axis=1)
        idcg += steps[j] * problem.prefix[np.minimum(k, problem.judged[None, :, j] + drawn)]
    positive = idcg > 0
    safe = np.where(positive, idcg, 1.0)
    means = np.empty((draws, runs), dtype=np.float64)
    for r in range(runs):
        added = np.add.reduceat(gains * problem.coefficients[r], problem.starts, axis=1)
        ndcg = np.where(positive, (problem.constants[r] + added) / safe, problem.zero_value)
        means[:, r] = (problem.fixed[r] + ndcg.sum(axis=1)) / problem.queries
    return means


Lists = list[dict[str, list[tuple[str, int | None]]]]


def many_runs_case(
    rng: random.Random,
) -> tuple[Lists, list[str], dict[str, dict[str, int]], Contract]:
    """Many runs over a few wide queries: each run's holes in some queries and
    not others, a query's holes from 1 to past 128 (numpy adds more than 8
    terms, and more than 128, in blocks)."""
    contract = Contract(
        k=rng.choice([3, 10, 40]),
        scale=rng.choice([Scale(0, 3), Scale(0, 1), Scale(-1, 2)]),
        gain=rng.choice(["linear", "exponential"]),
        unjudged="zero",
        zero_idcg=rng.choice(["zero", "one"]),
    )
    grades = list(contract.scale.grades)
    queries = [f"q{i}" for i in range(rng.randint(1, 6))]
    judgments: dict[str, dict[str, int]] = {}
    pools: dict[str, list[str]] = {}
    for query_id in queries:
        pools[query_id] = [f"{query_id}d{i}" for i in range(rng.choice([4, 30, 300]))]
        judgments[query_id] = {d: rng.choice(grades) for d in pools[query_id] if rng.random() < 0.2}
    tops: Lists = []
    for _ in range(rng.randint(2, 14)):
        top: dict[str, list[tuple[str, int | None]]] = {}
        for query_id in queries:
            if rng.random() < 0.4:  # only judged documents here: no hole of this run
                docs = list(judgments[query_id])[: contract.k]
            else:
                docs = rng.sample(pools[query_id], min(contract.k, len(pools[query_id])))
            top[query_id] = [(d, judgments[query_id].get(d)) for d in docs]
        tops.append(top)
    return tops, queries, judgments, contract


@pytest.mark.parametrize("case", range(40))
def test_the_draws_equal_the_sum_over_every_hole_bit_for_bit(case: int) -> None:
    rng = random.Random(500 + case)
    tops, queries, judgments, contract = many_runs_case(rng)
    problem = draw_problem(
        tops, queries, judgments, contract, Prior(rank_prior(tops, queries, contract))
    )
    draws = rng.choice([1, 13, 200])
    want = every_hole_means(problem, draws, case)
    for chunk in (1, 997, 10**7):
        got = draw_means(problem, draws, case, chunk_cells=chunk).means
        assert np.array_equal(got, want, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("cells", [1, 50, 4_000_000])
def test_every_pairs_draws_at_once_equal_one_pair_at_a_time(
    cells: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(draws_module, "_PAIR_CELLS", cells)  # blocks of one pair, a few, all
    rng = np.random.default_rng(cells)
    means = rng.normal(0.5, 0.05, size=(40, 6))
    means[:, 5] = means[:, 4]  # a pair tied in every draw
    means[::3, 3] = means[::3, 2]  # and one tied in some
    drawn = DrawnMeans(means)
    pairs = [(a, b) for a in range(6) for b in range(6) if a != b]
    together = drawn.pairs([a for a, _ in pairs], [b for _, b in pairs])
    assert together == [drawn.pair(a, b) for a, b in pairs]
