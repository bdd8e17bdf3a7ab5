"""Joint draws of every hole's grade: the numbers behind a probable verdict.

In each draw every hole of the comparison (an unjudged document in some
compared run's top k, `judgepool.core.comparing.bounds`) independently takes a grade
from its prior (`judgepool.core.holes.priors`); each query's universe is then the
judgments plus the drawn grades, so the drawn documents join the ideal, as
for the bounds. Every run's nDCG per query follows, then its mean over the
population, and for a pair the difference of the means. Over the draws: each
run's expected mean and 95 % interval, and per pair how often A is ahead
(docs/evaluation-contract.md, "Probable verdicts").

The seed's meaning, which the tests' plain sampler repeats: the holes are
put in one order (the population's queries in order; in a query, as the runs
list them, first run first, each document at its first place); draw d uses
row d of ``numpy.random.default_rng(seed).random((draws, holes))``, and a hole
with grade probabilities p_0..p_{G-1} (in scale order) takes the grade whose
index is the number of cumulative sums p_0, p_0 + p_1, … (all but the last)
that are ≤ its uniform. The rows are drawn in chunks of draws, which gives the
same numbers as drawing them at once.

Why arrays, and which. A draw changes only sums: a run's DCG is its judged
terms plus Σ discount × drawn gain over its holes, and the ideal DCG depends
only on how many holes got each gain level (with the levels L_1 > … > L_m > 0,
Δ_j = L_j − L_{j+1}, P the prefix sums of the discounts and J_j the judged
documents with gain ≥ L_j, IDCG = Σ_j Δ_j · P[min(k, J_j + b_j)], b_j the
holes drawn with gain ≥ L_j: the formula of `judgepool.core.comparing.bounds`). So a
chunk of draws is a few array operations over (draws × holes), whatever the
number of queries.

Policies. Queries whose drawn IDCG is 0 take the zero-IDCG value (``one``: 1,
otherwise 0: under ``exclude`` the population stays fixed and the draws are
computed as under ``zero``); the top k lists are those of the bounds, so
under ``unjudged=condense`` the documents keep their places (as under
``zero``). The comparison says both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from judgepool.core.comparing.bounds import GainLevels, TopK
from judgepool.core.holes.priors import Prior, best_ranks
from judgepool.core.terms.contract import Contract

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
# cells (draws × holes) of one chunk's arrays: 200,000 float64, 1.6 MB an
# array, which stays in cache while every run reads it (2 M cells took half
# as long again with sixty runs)
_CHUNK_CELLS: Final = 200_000
# a mean difference within this of 0 is a tie: the same mean summed two ways
# may differ in its last bits (as for the bounds' verdicts)
TIE_TOLERANCE: Final = 1e-12
# the interval's percentiles
INTERVAL: Final = (2.5, 97.5)
# cells (pairs × draws) of the differences `DrawnMeans.pairs` holds at once:
# 2 MB, a block of pairs stays in cache while it is counted and partitioned
_PAIR_CELLS: Final = 250_000
# draws asked for when none are named: 10,000, or fewer where the comparison
# has so many holes that 10,000 would take minutes (a draw costs about 60 ns
# per hole here: 10^8 draw-holes, some 6 s); never fewer than the minimum
DEFAULT_DRAWS: Final = 10_000
AUTO_DRAW_CELLS: Final = 100_000_000
AUTO_DRAWS_MINIMUM: Final = 200


def default_draws(holes: int) -> int:
    """The draws taken when none are asked for, for a comparison of ``holes``."""
    if holes == 0:
        return DEFAULT_DRAWS
    return min(DEFAULT_DRAWS, max(AUTO_DRAWS_MINIMUM, AUTO_DRAW_CELLS // holes))


@dataclass(frozen=True)
class DrawProblem:
    """A comparison's population as the draws need it (see the module docstring).

    ``fixed[r]``: run r's nDCG summed over the queries without a hole;
    ``constants[r, q]`` and ``coefficients[r, h]``: run r's judged DCG on each
    query with holes, and the discounts it puts on each hole; ``starts[q]``:
    each such query's first hole; ``judged[q, j]``: its judged documents with
    gain ≥ level j; ``cumulative[h]``: hole h's cumulative probabilities."""

    queries: int
    fixed: F64
    constants: F64
    coefficients: F64
    starts: I64
    judged: I64
    cumulative: F64
    grade_gains: F64
    levels: GainLevels
    prefix: F64
    zero_value: float
    model_holes: int = 0  # holes whose prior is a model's label

    @property
    def holes(self) -> int:
        return int(self.coefficients.shape[1])


@dataclass(frozen=True)
class DrawnMeans:
    """Every draw's mean nDCG of every run on the population: ``means[d, r]``."""

    means: F64

    def run_expected(self, r: int) -> tuple[float, tuple[float, float]]:
        """Run r's expected mean nDCG and its 95 % interval over the draws."""
        values = self.means[:, r]
        low, high = np.percentile(values, INTERVAL)
        return float(values.mean()), (float(low), float(high))

    def pair(self, a: int, b: int) -> PairDraws:
        """How the mean difference of runs a and b falls over the draws."""
        diff = self.means[:, a] - self.means[:, b]
        diff = np.where(np.abs(diff) <= TIE_TOLERANCE, 0.0, diff)
        ahead = float((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size
        low, high = np.percentile(diff, INTERVAL)
        return PairDraws(ahead, float(diff.mean()), (float(low), float(high)))

    def pairs(self, a: Sequence[int], b: Sequence[int]) -> list[PairDraws]:
        """`pair` (a[p], b[p]) for every p, the same numbers: a block of pairs'
        differences at once, each pair's a contiguous row (its mean and its
        percentiles are then those of `pair`'s column), instead of a strided
        column of the draws per pair, which made 1,953 pairs cost seconds."""
        draws = self.means.shape[0]
        by_run = np.ascontiguousarray(self.means.T)
        first, second = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        found: list[PairDraws] = []
        block = max(1, _PAIR_CELLS // max(1, draws))
        for start in range(0, first.size, block):
            diff = by_run[first[start : start + block]] - by_run[second[start : start + block]]
            diff[np.abs(diff) <= TIE_TOLERANCE] = 0.0  # as `pair` snaps them, in place
            above = (diff > 0).sum(axis=1)
            tied = (diff == 0).sum(axis=1)
            means = [float(row.mean()) for row in diff]
            # partitioned in place: ``diff`` is this block's own
            low, high = np.percentile(diff, INTERVAL, axis=1, overwrite_input=True)
            found.extend(
                PairDraws(float(up + 0.5 * even) / draws, mean, (lo, hi))
                for up, even, mean, lo, hi in zip(
                    above, tied, means, low.tolist(), high.tolist(), strict=True
                )
            )
        return found


@dataclass(frozen=True)
class PairDraws:
    """P(A ahead) (ties count half), the expected difference A − B and its 95 % interval."""

    p_a_ahead: float
    expected_diff: float
    interval: tuple[float, float]


def draw_problem(
    tops: Sequence[Mapping[str, TopK]],
    queries: Sequence[str],
    judgments: Mapping[str, Mapping[str, int]],
    contract: Contract,
    prior: Prior,
) -> DrawProblem:
    """The arrays of the draws for ``tops`` (each compared run's top k by
    query) on the population ``queries``, each hole with its ``prior``."""
    k = contract.k
    discounts = [1.0 / math.log2(position + 1) for position in range(1, k + 1)]
    levels = GainLevels.of(contract)
    grades = tuple(contract.scale.grades)
    policy_value = 1.0 if contract.zero_idcg == "one" else 0.0
    runs = len(tops)
    fixed = [0.0] * runs
    constants: list[list[float]] = []
    columns: list[list[float]] = []
    cumulative: list[F64] = []
    starts: list[int] = []
    judged_rows: list[list[int]] = []
    model_holes = 0
    ranks = best_ranks(tops, queries, k)
    prefix = np.concatenate(([0.0], np.cumsum(discounts)))
    for query_id in queries:
        judged_gains = [contract.gain_of(g) for g in judgments.get(query_id, {}).values()]
        judged = [sum(1 for g in judged_gains if g >= level) for level in levels.gains]
        holes: dict[str, int] = {}
        for doc, (_, grade) in ranks[query_id].items():
            if grade is None:
                holes[doc] = len(holes)
        sums = [0.0] * runs
        coefficient = [[0.0] * len(holes) for _ in range(runs)]
        for r, top in enumerate(tops):
            for position, (doc, grade) in enumerate(top.get(query_id, ())[:k]):
                if grade is None:
                    coefficient[r][holes[doc]] += discounts[position]
                else:
                    sums[r] += discounts[position] * contract.gain_of(grade)
        if not holes:
            idcg = _ideal(levels, prefix, judged, k)
            for r in range(runs):
                fixed[r] += sums[r] / idcg if idcg > 0 else policy_value
            continue
        starts.append(len(cumulative))
        constants.append(sums)
        judged_rows.append(judged)
        for r in range(runs):
            if len(columns) <= r:
                columns.append([])
            columns[r].extend(coefficient[r])
        for doc in holes:
            probabilities = prior.of(query_id, doc, ranks[query_id][doc][0])
            cumulative.append(np.cumsum(probabilities))
            model_holes += prior.labelled(query_id, doc)
    holes_total = len(cumulative)
    return DrawProblem(
        queries=len(queries),
        fixed=np.array(fixed, dtype=np.float64),
        constants=np.array(constants, dtype=np.float64).reshape(-1, runs).T.copy(),
        coefficients=(
            np.array(columns, dtype=np.float64).reshape(runs, holes_total)
            if columns
            else np.zeros((runs, 0), dtype=np.float64)
        ),
        starts=np.array(starts, dtype=np.int64),
        judged=np.array(judged_rows, dtype=np.int64).reshape(-1, len(levels.gains)),
        cumulative=np.array(cumulative, dtype=np.float64).reshape(holes_total, len(grades)),
        grade_gains=np.array([contract.gain_of(g) for g in grades], dtype=np.float64),
        levels=levels,
        prefix=prefix,
        zero_value=policy_value,
        model_holes=model_holes,
    )


def _ideal(levels: GainLevels, prefix: F64, judged: Sequence[int], k: int) -> float:
    steps = levels.steps()
    return float(sum(steps[j] * prefix[min(k, judged[j])] for j in range(len(judged))))


def _own_holes(problem: DrawProblem) -> list[tuple[I64, I64, I64]]:
    """Per run: the queries (of those with holes) where it has a hole, the
    columns of those queries' holes, and where each query starts among them.

    A run adds Σ discount × drawn gain over a query's holes, every hole of the
    query, another run's at discount 0 (so the sum is 0 where the run has
    none). With sixty runs most queries hold none of a run's holes: `draw_means`
    sums only over the queries that hold one, each over all of that query's
    holes in their order, so each sum is the one summed over every query
    (numpy's ``reduceat`` adds a query's terms pairwise, in an order set by
    their places in the query, which the other runs' zeros keep; the tests
    hold it to the sum over every hole). Elsewhere the sum is 0, which adds
    nothing to the run's DCG."""
    ends = np.append(problem.starts[1:], problem.holes)
    own = []
    for coefficients in problem.coefficients:
        listed = np.add.reduceat((coefficients != 0).astype(np.int64), problem.starts) > 0
        queries = np.flatnonzero(listed)
        lengths = (ends - problem.starts)[queries]
        columns = np.concatenate(
            [np.arange(problem.starts[q], ends[q]) for q in queries.tolist()]
            or [np.zeros(0, dtype=np.int64)]
        ).astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
        own.append((queries, columns, starts))
    return own


def draw_means(
    problem: DrawProblem,
    draws: int,
    seed: int,
    on_chunk: Callable[[int, int], None] | None = None,
    chunk_cells: int = _CHUNK_CELLS,
) -> DrawnMeans:
    """Every run's mean nDCG in each of ``draws`` draws seeded with ``seed``
    (the seed's meaning: the module docstring). ``on_chunk(done, draws)`` is
    told after each chunk of draws (of about ``chunk_cells`` draws × holes)."""
    runs = problem.fixed.size
    means = np.empty((draws, runs), dtype=np.float64)
    if problem.queries == 0:
        means[:] = math.nan
        return DrawnMeans(means)
    if problem.holes == 0:
        means[:] = problem.fixed / problem.queries
        return DrawnMeans(means)
    rng = np.random.default_rng(seed)
    chunk = max(1, chunk_cells // problem.holes)
    steps = problem.levels.steps()
    k = problem.prefix.size - 1
    thresholds = problem.cumulative[:, :-1]
    own = _own_holes(problem)
    weights = [problem.coefficients[r, columns][:, None] for r, (_, columns, _) in enumerate(own)]
    for start in range(0, draws, chunk):
        count = min(chunk, draws - start)
        uniforms = rng.random((count, problem.holes))
        # each hole's grade index: how many of its cumulative sums are ≤ its uniform
        index = np.zeros((count, problem.holes), dtype=np.int64)
        for g in range(thresholds.shape[1]):
            index += uniforms >= thresholds[None, :, g]
        gains = problem.grade_gains[index]
        idcg = np.zeros((count, problem.starts.size), dtype=np.float64)
        for j, level in enumerate(problem.levels.gains):
            drawn = np.add.reduceat((gains >= level).astype(np.int64), problem.starts, axis=1)
            idcg += steps[j] * problem.prefix[np.minimum(k, problem.judged[None, :, j] + drawn)]
        positive = idcg > 0
        safe = np.where(positive, idcg, 1.0)
        # hole by hole: a run's holes are then whole rows to gather
        by_hole = np.ascontiguousarray(gains.T)
        for r, (queries, columns, starts) in enumerate(own):
            added = np.zeros((count, problem.starts.size), dtype=np.float64)
            if columns.size:
                taken = by_hole[columns]
                taken *= weights[r]
                added[:, queries] = np.add.reduceat(taken, starts, axis=0).T
            ndcg = np.where(positive, (problem.constants[r] + added) / safe, problem.zero_value)
            means[start : start + count, r] = (problem.fixed[r] + ndcg.sum(axis=1)) / (
                problem.queries
            )
        if on_chunk is not None:
            on_chunk(start + count, draws)
    return DrawnMeans(means)
