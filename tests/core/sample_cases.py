"""Small random comparisons with holes, and their nDCG scored by the reference
metrics with every hole's grade known: the brute force the sample's tests
hold the design and the estimators to."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judgepool.core.comparing.bounds import TopK
from judgepool.core.scoring.metrics import dcg, ideal_dcg, normalise
from judgepool.core.terms.contract import Contract


@dataclass(frozen=True)
class Case:
    """Runs' top k (holes as None) on ``queries``, the judgments, every hole's
    true grade, and the contract."""

    tops: list[dict[str, TopK]]
    queries: list[str]
    judgments: dict[str, dict[str, int]]
    truth: dict[tuple[str, str], int]
    contract: Contract


def random_case(rng: random.Random, queries: int = 3, runs: int = 3, k: int = 4) -> Case:
    """Each query has a few documents, some judged; each run ranks a random
    k of them; the unjudged ones of the runs' top k are holes with a random
    true grade. Judged documents outside every run's top k join the ideal."""
    contract = Contract(k=k, unjudged="zero", zero_idcg=rng.choice(["zero", "one"]))
    grades = list(contract.scale.grades)
    names = [f"q{i}" for i in range(queries)]
    judgments: dict[str, dict[str, int]] = {}
    truth: dict[tuple[str, str], int] = {}
    tops: list[dict[str, TopK]] = [{} for _ in range(runs)]
    for query in names:
        documents = [f"d{j}" for j in range(k + rng.randint(1, 3))]
        judged = {d: rng.choice(grades) for d in documents if rng.random() < 0.45}
        # a judged document no run returns: it is in the ideal, never a hole
        if rng.random() < 0.5:
            judged["outside"] = rng.choice(grades)
        judgments[query] = judged
        for top in tops:
            ranked = rng.sample(documents, k)
            top[query] = tuple((d, judged.get(d)) for d in ranked)
            for doc in ranked:
                if doc not in judged:
                    truth.setdefault((query, doc), rng.choice(grades))
    return Case(tops, names, judgments, truth, contract)


def true_means(case: Case) -> list[float]:
    """Every run's mean nDCG with every hole judged, by `core.scoring.metrics`."""
    return means_with(case, case.truth)


def means_with(case: Case, grades: Mapping[tuple[str, str], int]) -> list[float]:
    """Every run's mean nDCG with the holes graded as ``grades``."""
    contract = case.contract
    found = []
    for top in case.tops:
        total = 0.0
        for query in case.queries:
            universe = {**case.judgments[query]}
            universe.update({d: g for (q, d), g in grades.items() if q == query})
            gains = [
                contract.gain_of(universe[d] if g is None else g)
                for d, g in top[query][: contract.k]
            ]
            idcg = ideal_dcg([contract.gain_of(g) for g in universe.values()], contract.k)
            value = normalise(dcg(gains, contract.k), idcg, contract.zero_idcg)
            total += 0.0 if value is None else value
        found.append(total / len(case.queries))
    return found


def holes_of(case: Case) -> Sequence[tuple[str, str]]:
    return sorted(case.truth)
