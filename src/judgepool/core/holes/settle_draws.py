"""The draws behind the settle order, one query at a time.

The settle order (`judgepool.core.holes.settle`) needs, after every judgment, how
likely each pair's leader is ahead and what each hole's grade would do to
that. The comparison's draws (`judgepool.core.holes.draws`) answer the first for
the whole population at once; here the same draws are made per query, so a
judgment redraws only its own query, and each query's block also says what
fixing one hole's grade does to every run's nDCG there.

A block (`QueryDraws`) holds, for one query with holes:

- ``ndcg[d, r]``: run r's nDCG at the query in draw d (every hole drawn from
  its prior, independently; the drawn documents join the ideal), as
  `judgepool.core.holes.draws` computes it: the same arrays (`DrawProblem`), the
  same grade for the same uniform;
- ``conditional[h, g, r]``: E[run r's nDCG at the query | hole h has grade
  g], over the block's first ``conditioned`` draws with h's grade replaced
  by g and every other hole as drawn (common random numbers: the estimate of
  a grade's *effect* has little Monte Carlo noise, and a hole that moves
  nothing gets no spurious weight). The ideal is recomputed with h at g, so
  a hole neither run returned still counts: judged, it rescales its query.

The seed of a block is ``(seed, the query's place in the population)``: a
query's draws depend only on its own holes and their priors, never on the
order in which other queries were judged, so an incremental state equals
one built from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from judgepool.core.holes.draws import DrawProblem

F64 = npt.NDArray[np.float64]
# draws per query block: P(A ahead) near 0.95 within about ±0.005
SETTLE_DRAWS: Final = 2_000
# of which the conditional expectations use the first: the effect of a grade
# is estimated with common random numbers, so a few hundred suffice
CONDITIONED_DRAWS: Final = 256


@dataclass(frozen=True)
class QueryDraws:
    """One query's draws (see the module docstring): the holes' prior
    probabilities as drawn (``probabilities[h, g]``), every run's nDCG per
    draw (``ndcg[d, r]``) and per hole and grade (``conditional[h, g, r]``)."""

    probabilities: F64
    ndcg: F64
    conditional: F64

    @property
    def holes(self) -> int:
        return int(self.probabilities.shape[0])


def draw_query(
    problem: DrawProblem, seed: int, position: int, draws: int, conditioned: int
) -> QueryDraws:
    """The block of a one-query ``problem`` (`judgepool.core.holes.draws.draw_problem`
    of that query alone), seeded with ``(seed, position)``."""
    runs = problem.fixed.size
    cumulative = problem.cumulative
    probabilities = np.diff(cumulative, axis=1, prepend=0.0)
    if problem.holes == 0:
        # no hole: every draw the same (draw_problem summed it into ``fixed``)
        ndcg = np.broadcast_to(problem.fixed, (draws, runs)).copy()
        return QueryDraws(probabilities, ndcg, np.zeros((0, cumulative.shape[1], runs)))
    rng = np.random.default_rng([seed, position])
    uniforms = rng.random((draws, problem.holes))
    # each hole's grade index: how many of its cumulative sums (all but the
    # last) are ≤ its uniform, as in `draw_means` (a loop over the grades: a
    # three-dimensional comparison summed is several times slower)
    index = np.zeros((draws, problem.holes), dtype=np.int64)
    for g in range(cumulative.shape[1] - 1):
        index += uniforms >= cumulative[None, :, g]
    gains = problem.grade_gains[index]  # draws × holes
    levels = np.array(problem.levels.gains, dtype=np.float64)
    steps = problem.levels.steps()
    k = problem.prefix.size - 1
    judged = problem.judged[0]  # judged documents with gain ≥ each level
    above = np.stack([gains >= level for level in levels], axis=2)  # draws × holes × levels
    counts = np.stack([(gains >= level).sum(axis=1) for level in levels], axis=1)
    idcg = (steps * problem.prefix[np.minimum(k, judged + counts)]).sum(axis=1)
    numerator = problem.constants[:, 0][None, :] + gains @ problem.coefficients.T
    ndcg = _ratio(numerator, idcg[:, None], problem.zero_value)

    # every hole at every grade, the others as drawn (the first `conditioned`
    # draws): a loop over the grades keeps the arrays two- and three-dimensional
    c = max(1, min(conditioned, draws))
    without = counts[:c, None, :] - above[:c]  # the level counts without the hole
    grade_count = len(problem.grade_gains)
    conditional = np.empty((problem.holes, grade_count, runs), dtype=np.float64)
    for g, gain in enumerate(problem.grade_gains):
        with_grade = without + (gain >= levels)[None, None, :]
        moved_idcg = (steps * problem.prefix[np.minimum(k, judged + with_grade)]).sum(axis=2)
        moved = numerator[:c, None, :] + (gain - gains[:c, :, None]) * problem.coefficients.T
        conditional[:, g, :] = _ratio(moved, moved_idcg[..., None], problem.zero_value).mean(axis=0)
    return QueryDraws(probabilities, ndcg, conditional)


def _ratio(numerator: F64, idcg: F64, zero_value: float) -> F64:
    """numerator / idcg where idcg > 0, the zero-IDCG value elsewhere."""
    positive = idcg > 0
    result: F64 = np.where(positive, numerator / np.where(positive, idcg, 1.0), zero_value)
    return result
