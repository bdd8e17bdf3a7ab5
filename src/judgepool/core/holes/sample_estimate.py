"""Estimates of nDCG, and of differences of nDCG, from a judged sample of the
holes: what ``compare --sample`` prints.

The estimand is each run's mean nDCG on the population with *every* hole of
the frame judged (`judgepool.core.holes.sample_design`), and each pair's
difference of those means. Per query q and run r

    nDCG_rq = N_rq / D_q,   N_rq = C_rq + Σ_h c_rh · y_h,
                            D_q  = Σ_j Δ_j · P[min(k, J_qj + B_qj)],

y_h the gain of hole h's grade, c_rh run r's discount on it, C_rq the judged
part of r's DCG; the ideal D_q (the formula of `judgepool.core.comparing.bounds`)
depends on the holes only through B_qj, how many of them have gain ≥ the
level L_j (levels highest first). The totals N_rq and B_qj are estimated
from the sample, each without bias:

- **HT** (Horvitz–Thompson): N̂_rq = C_rq + Σ_{h sampled} c_rh · y_h / π_h and
  B̂_qj = Σ_{h sampled} [y_h ≥ L_j] / π_h. This is what inferred nDCG
  (infNDCG, Yilmaz, Kanoulas and Aslam 2008; TREC's ``sample_eval``) does:
  the DCG from the sampled grades, the ideal from the estimated count of
  each grade, here for a Poisson design.
- **prior-powered** (a difference estimator: prediction-powered inference
  with the prior as the predictor): with m_h the prior's expected gain of h
  and p_hj its probability of gain ≥ L_j, N̂_rq = C_rq + Σ_h c_rh · m_h +
  Σ_{h sampled} c_rh · (y_h − m_h) / π_h, and B̂_qj = Σ_h p_hj +
  Σ_{h sampled} ([y_h ≥ L_j] − p_hj) / π_h for every level but the top one.
  Unbiased whatever the prior says (each correction has expectation
  Σ_h (y_h − m_h) times its coefficients); the better the prior predicts,
  the smaller the corrections and so the variance. The prior must not
  depend on the sample's grades, which is why ``compare --sample`` computes
  it with the sampled holes' grades left out.

The top level's count is HT's in both. The top grade is the rarest and the
prior least sure of it: a prior-powered count takes p_h / π_h off for every
sampled hole without it, which the few with it must make up, and on the
replays it fell below what the sample itself found in a fifth of the
queries whose ideal it could move (4-7 % one level down); HT's never does.

A count is at least what the sample found (J_qj plus the sampled holes with
gain ≥ L_j): a lower estimate is surely wrong and is raised to that. This
can only bring a count nearer the truth, at the price of a small bias.

nDCG is a ratio, and the ideal a concave function of the counts (``P`` is
read between its integer points by linear interpolation, as the counts are
estimates), so N̂_rq / D̂_q is not exactly unbiased either; its bias falls
with the sample's size, and the replay benchmark
(``tests/benchmarks/bench_sample.py``) measures it. A run's estimate is the
mean over the population (queries without a hole are exact).

The interval: linearisation (the delta method). To first order the estimate
minus the estimand is Σ_h (I_h / π_h − 1) · z_h, I_h whether h was drawn and

    z_rh = (1 / n) · [ c_rh · e_h / D_q − (N_rq / D_q²) · Σ_j D'_qj · e_hj ],

e_h = y_h − m_h and e_hj = [y_h ≥ L_j] − p_hj (m, p = 0 for HT), D'_qj the
slope of the ideal in B_qj. Under Poisson sampling its variance is
Σ_h (1 − π_h) / π_h · z_h², estimated without bias by
Σ_{h sampled} (1 − π_h) / π_h² · ẑ_h², with the estimated N, D and slopes in
ẑ; a pair's z is z_a − z_b, so the correlation of its two runs (one sample,
the same holes) narrows its interval. The 95 % interval is the estimate
± 1.96 standard errors. It holds whatever the prior says: the prior moves the
estimate's variance, never its centre.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from judgepool.core.holes.sample_design import Frame, ideal_and_slopes

F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
Estimator = Literal["ht", "prior-powered"]
# the normal quantile of a two-sided 95 % interval
Z95: Final = 1.959963984540054


@dataclass(frozen=True)
class Predictor:
    """What a prior predicts for each frame hole: ``expected[h]`` its gain's
    expectation, ``at_least[h, j]`` the probability of gain ≥ level j."""

    expected: F64
    at_least: F64

    @classmethod
    def none(cls, frame: Frame) -> Predictor:
        """The predictor of the HT estimate: 0 for everything."""
        return cls(
            np.zeros(frame.holes, dtype=np.float64),
            np.zeros((frame.holes, len(frame.levels.gains)), dtype=np.float64),
        )

    @classmethod
    def of_probabilities(
        cls, probabilities: Sequence[Sequence[float]], grade_gains: Sequence[float], frame: Frame
    ) -> Predictor:
        """From each hole's grade probabilities (in scale order, as
        `judgepool.core.holes.priors.Prior.of` gives them) and each grade's gain."""
        levels = frame.levels.gains
        table = np.array(probabilities, dtype=np.float64).reshape(frame.holes, len(grade_gains))
        gains = np.array(grade_gains, dtype=np.float64)
        at_least = np.zeros((frame.holes, len(levels)), dtype=np.float64)
        for j, level in enumerate(levels):
            at_least[:, j] = table[:, gains >= level].sum(axis=1)
        expected: F64 = table @ gains
        return cls(expected, at_least)


@dataclass(frozen=True)
class Estimate:
    """One estimate: the value and its standard error."""

    value: float
    se: float

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % interval: the value ± 1.96 standard errors."""
        return (self.value - Z95 * self.se, self.value + Z95 * self.se)


@dataclass(frozen=True)
class SampleEstimates:
    """Every run's estimate (``runs[r]``) and every pair's (``pairs[p]``, in the
    order of the pairs asked for), by one estimator."""

    estimator: Estimator
    runs: tuple[Estimate, ...]
    pairs: tuple[Estimate, ...]


@dataclass(frozen=True)
class Totals:
    """The estimated totals of every query: ``numerators[r, q]``, run r's DCG;
    ``counts[q, j]``, the documents with gain ≥ level j (judged ones and
    holes) before they are raised to ``found[q, j]``, the judged ones and
    the sampled holes that reached the level."""

    numerators: F64
    counts: F64
    found: F64


@dataclass(frozen=True)
class _Sampled:
    """The sample as the estimators read it: each hole's expansion (1 / π where
    drawn, else 0), and its residuals from the predictor (0 where not drawn)."""

    expansion: F64
    residual: F64
    reached: F64
    level_residual: F64
    predicted: F64


def _sampled(
    frame: Frame, probabilities: F64, drawn: Bools, gains: F64, predictor: Predictor
) -> _Sampled:
    levels = np.array(frame.levels.gains, dtype=np.float64)
    # 1 / π on the sampled holes, 0 elsewhere: each stands for 1 / π holes like it
    expansion = np.where(drawn, 1.0 / np.where(drawn, probabilities, 1.0), 0.0)
    observed = np.where(drawn, gains, 0.0)
    reached = np.where(drawn[:, None], observed[:, None] >= levels[None, :], False).astype(float)
    predicted = predictor.at_least.copy()
    predicted[:, :1] = 0.0  # the top level's count is HT's (the module docstring)
    return _Sampled(
        expansion=expansion,
        residual=np.where(drawn, observed - predictor.expected, 0.0),
        reached=reached,
        level_residual=np.where(drawn[:, None], reached - predicted, 0.0),
        predicted=predicted,
    )


def totals(
    frame: Frame,
    probabilities: F64,
    drawn: Bools,
    gains: F64,
    predictor: Predictor | None = None,
) -> Totals:
    """Every query's estimated DCG per run and count per gain level (the
    module docstring): unbiased, HT's or prior-powered, whatever the prior."""
    predictor = Predictor.none(frame) if predictor is None else predictor
    sampled = _sampled(frame, probabilities, drawn, gains, predictor)
    queries = len(frame.queries)

    def per_query(values: F64) -> F64:
        summed: F64 = np.bincount(frame.hole_query, weights=values, minlength=queries).astype(
            np.float64
        )
        return summed

    levels = len(frame.levels.gains)
    counts = np.empty((queries, levels), dtype=np.float64)
    found = np.empty((queries, levels), dtype=np.float64)
    for j in range(levels):
        expanded = sampled.predicted[:, j] + sampled.level_residual[:, j] * sampled.expansion
        counts[:, j] = frame.judged[:, j] + per_query(expanded)
        found[:, j] = frame.judged[:, j] + per_query(sampled.reached[:, j])
    numerators = np.empty((frame.runs, queries), dtype=np.float64)
    for r in range(frame.runs):
        terms = frame.coefficients[r] * (predictor.expected + sampled.residual * sampled.expansion)
        numerators[r] = frame.constants[r] + per_query(terms)
    return Totals(numerators, counts, found)


def linearised(
    frame: Frame,
    probabilities: F64,
    drawn: Bools,
    gains: F64,
    predictor: Predictor | None = None,
) -> tuple[F64, F64]:
    """Every run's estimate (``means[r]``), and ``z[r, h]``: how far it moves
    per unit of sampled hole h's weight 1 / π_h (0 for a hole not drawn), the
    linearisation the variance is estimated from (where no count was raised
    to what the sample found, exactly the estimate's derivative)."""
    predictor = Predictor.none(frame) if predictor is None else predictor
    sampled = _sampled(frame, probabilities, drawn, gains, predictor)
    found = totals(frame, probabilities, drawn, gains, predictor)
    queries = len(frame.queries)
    where = frame.hole_query
    # at least what the sample found: a lower count is surely wrong. A count
    # raised to it keeps the slope of the count as estimated: the raise
    # happens on samples near that edge, which a little change of the sample
    # takes back, and the variance is the count's own (on the replays, zero
    # slopes there made the intervals too narrow from BM25's pool)
    counts = np.maximum(found.counts, found.found)
    ideal, slopes = ideal_and_slopes(frame.k, frame.levels, counts)
    positive = ideal > 0
    safe = np.where(positive, ideal, 1.0)
    ndcg = np.where(positive[None, :], found.numerators / safe[None, :], frame.zero_value)
    means: F64 = ndcg.mean(axis=1) if queries else np.full(frame.runs, np.nan)
    # a query whose estimated ideal is 0 takes the policy's value: it does not move
    hole_ideal = safe[where]
    ideal_term = (sampled.level_residual * slopes[where]).sum(axis=1)
    counted = positive[where] & drawn
    z = np.zeros((frame.runs, frame.holes), dtype=np.float64)
    for r in range(frame.runs):
        share = found.numerators[r][where] / hole_ideal
        term = (frame.coefficients[r] * sampled.residual - share * ideal_term) / hole_ideal
        z[r] = np.where(counted, term, 0.0) / max(queries, 1)
    return means, z


def estimate(
    frame: Frame,
    probabilities: F64,
    drawn: Bools,
    gains: F64,
    pairs: Sequence[tuple[int, int]],
    predictor: Predictor | None = None,
) -> SampleEstimates:
    """Each run's and each pair's estimate from the sampled holes (``drawn``,
    with inclusion ``probabilities`` and true ``gains``, both read only where
    drawn): HT without a ``predictor``, prior-powered with one (the module
    docstring)."""
    estimator: Estimator = "ht" if predictor is None else "prior-powered"
    means, z = linearised(frame, probabilities, drawn, gains, predictor)
    expansion = np.where(drawn, 1.0 / np.where(drawn, probabilities, 1.0), 0.0)
    # Σ (1 − π) / π² · z² over the sampled holes: the variance's unbiased estimate
    factor = np.where(drawn, (1.0 - probabilities) * expansion**2, 0.0)

    def spread(values: F64) -> float:
        return float(np.sqrt((factor * values**2).sum()))

    runs = tuple(Estimate(float(means[r]), spread(z[r])) for r in range(frame.runs))
    pair_estimates = tuple(
        Estimate(float(means[a] - means[b]), spread(z[a] - z[b])) for a, b in pairs
    )
    return SampleEstimates(estimator, runs, pair_estimates)
