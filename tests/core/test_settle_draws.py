"""The settle order's per-query draws held to a plain computation: each
draw's nDCG per run, and each hole's conditional expectations (the hole set
to each grade, every other hole as drawn, the ideal recomputed), one list at
a time with the reference metrics, under the block's documented seed."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from judgepool.core.comparing.bounds import TopK
from judgepool.core.holes.draws import draw_problem
from judgepool.core.holes.priors import Prior, best_ranks, rank_prior
from judgepool.core.holes.settle_draws import draw_query
from judgepool.core.scoring.metrics import dcg, ideal_dcg, normalise
from judgepool.core.terms.contract import Contract
from tests.core.test_draws import random_case


def plain_ndcg(
    top: Sequence[tuple[str, int | None]],
    judged: Mapping[str, int],
    drawn: Mapping[str, int],
    contract: Contract,
) -> float:
    k = contract.k
    universe = [*judged.values(), *drawn.values()]
    idcg = ideal_dcg([contract.gain_of(g) for g in universe], k)
    gains = [contract.gain_of(drawn[d] if g is None else g) for d, g in top[:k]]
    value = normalise(dcg(gains, k), idcg, contract.zero_idcg)
    return 0.0 if value is None else value  # exclude: as under zero


def plain_block(
    tops: Sequence[Mapping[str, TopK]],
    query: str,
    judged: Mapping[str, int],
    contract: Contract,
    prior: Prior,
    seed: int,
    position: int,
    draws: int,
    conditioned: int,
) -> tuple[np.ndarray, np.ndarray]:
    """ndcg[d, r] and conditional[h, g, r], draw by draw and list by list."""
    grades = list(contract.scale.grades)
    best = best_ranks(tops, [query], contract.k)[query]
    holes: list[str] = []  # first run first, each document at its first place
    for top in tops:
        for doc, grade in top.get(query, ())[: contract.k]:
            if grade is None and doc not in holes:
                holes.append(doc)
    lists = [top.get(query, ()) for top in tops]
    if not holes:
        row = [plain_ndcg(t, judged, {}, contract) for t in lists]
        return np.array([row] * draws), np.zeros((0, len(grades), len(tops)))
    uniforms = np.random.default_rng([seed, position]).random((draws, len(holes)))
    drawn_rows = []
    for row in uniforms:
        drawn = {}
        for doc, u in zip(holes, row, strict=True):
            sums = list(itertools.accumulate(prior.of(query, doc, best[doc][0])))
            drawn[doc] = grades[sum(1 for c in sums[:-1] if c <= u)]
        drawn_rows.append(drawn)
    ndcg = [[plain_ndcg(t, judged, drawn, contract) for t in lists] for drawn in drawn_rows]
    c = max(1, min(conditioned, draws))
    conditional = np.zeros((len(holes), len(grades), len(tops)))
    for h, doc in enumerate(holes):
        for g, grade in enumerate(grades):
            values = [
                [plain_ndcg(t, judged, {**drawn, doc: grade}, contract) for t in lists]
                for drawn in drawn_rows[:c]
            ]
            conditional[h, g] = np.mean(values, axis=0)
    return np.array(ndcg), conditional


@pytest.mark.parametrize("case", range(40))
def test_a_query_block_equals_a_plain_computation(case: int) -> None:
    rng = random.Random(1000 + case)
    tops, queries, judgments, contract = random_case(rng)
    contract = contract.with_changes(unjudged="zero")
    prior = Prior(rank_prior(tops, queries, contract))
    position = rng.randrange(len(queries))
    query = queries[position]
    draws, conditioned = rng.choice([(1, 1), (9, 4), (30, 30), (25, 100)])
    seed = rng.randrange(2**32)
    one = [{query: top[query]} for top in tops]
    problem = draw_problem(one, [query], judgments, contract, prior)
    block = draw_query(problem, seed, position, draws, conditioned)
    want_ndcg, want_conditional = plain_block(
        tops, query, judgments.get(query, {}), contract, prior, seed, position, draws, conditioned
    )
    np.testing.assert_allclose(block.ndcg, want_ndcg, rtol=0, atol=1e-12)
    np.testing.assert_allclose(block.conditional, want_conditional, rtol=0, atol=1e-12)
    assert block.holes == want_conditional.shape[0]
