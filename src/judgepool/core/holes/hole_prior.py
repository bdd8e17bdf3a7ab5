"""The ``runs`` prior: what a hole's grade probably is, from which compared
runs retrieved it and where, and how relevant its query's judged documents
are (docs/evaluation-contract.md, "Probable verdicts", prior ``runs``).

The rank prior (`judgepool.core.holes.priors.RankPrior`) knows one thing of a hole:
its best rank. It misses what predicts a grade best on real runs: a document
that every compared run put in its top k is relevant far more often than one
that a single run found, and a query whose judged documents are mostly
relevant has relevant holes too. So each document of the compared runs' top
k has signals (`signals_of`): for each run, the discount 1/log2(1 + rank) at
which that run returned it (0 when it did not), and the share of the runs
that returned it.

The grade is modelled as ordinal (cumulative logit): with the scale's grades
g_0 < … < g_{G-1},

    P(grade ≥ g_j) = σ(w · x + u_q − c_j),   j = 1 … G−1,   c_1 < … < c_{G-1}

``x`` the document's signals, ``w`` their weights, ``u_q`` the query's own
effect and ``c`` the cut points. The judged documents of the compared runs'
top k fit it (maximum a posteriori): ``u_q`` ~ N(0, σ²), ``w`` ~ N(0, 1),
σ found from the queries' effects themselves (empirical Bayes: a query with
few judged documents is shrunk toward the others, which is the rank-and-runs
prior). The fit is quasi-Newton (BFGS) on an analytic gradient.

The interval must widen where the fit is unsure, and a hole's error is
shared by its query's other holes (they share ``u_q``): the draws take the
parameters from their approximate posterior too (`OrdinalFit.drawn`): the
global ones (cuts and weights) from a normal with the inverse of their
observed information, each ``u_q`` from its own normal (its judged
documents' information plus 1/σ²), so holes of one query move together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from judgepool.core.comparing.bounds import TopK

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

# fewer judged documents in the top k (or queries with one, or a single
# grade among them) and the fit swings with each new judgment (the demo's 71
# documents over 6 queries moved a pair from P 0.15 to P < 0.01 and back in
# two grades): the runs prior is not used, the rank prior stands in
RUNS_PRIOR_MINIMUM: Final = 150
RUNS_PRIOR_QUERIES: Final = 10
# the prior on each signal's weight: N(0, WEIGHT_SD²)
WEIGHT_SD: Final = 1.0
_SIGMA_ROUNDS: Final = 4
_SIGMA_BOUNDS: Final = (0.25, 4.0)
_DENSE_LIMIT: Final = 1_000
# more compared runs than this, and the signals are summaries over the runs
PER_RUN_LIMIT: Final = 8


def discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def signals_of(
    tops: Sequence[Mapping[str, TopK]], queries: Sequence[str], k: int
) -> dict[str, dict[str, F64]]:
    """Per query, every document of any compared run's top k with its signals:
    the discount at its rank in each run (0: not returned there), then the
    share of the runs that returned it. Past `PER_RUN_LIMIT` runs, a weight per
    run would be fitted on too few documents each (and slowly): the signals
    are then the share, the mean discount over the runs and the best one."""
    runs = len(tops)
    found: dict[str, dict[str, F64]] = {}
    if runs > PER_RUN_LIMIT:
        for query_id, documents in signals_of_each_run(tops, queries, k).items():
            found[query_id] = {
                doc: np.array(
                    [values[runs], float(values[:runs].mean()), float(values[:runs].max())]
                )
                for doc, values in documents.items()
            }
        return found
    return signals_of_each_run(tops, queries, k)


def signals_of_each_run(
    tops: Sequence[Mapping[str, TopK]], queries: Sequence[str], k: int
) -> dict[str, dict[str, F64]]:
    """`signals_of` with a discount per run, whatever the number of runs."""
    runs = len(tops)
    found: dict[str, dict[str, F64]] = {}
    for query_id in queries:
        documents: dict[str, F64] = {}
        for r, top in enumerate(tops):
            for rank, (doc, _) in enumerate(top.get(query_id, ())[:k], start=1):
                signals = documents.get(doc)
                if signals is None:
                    signals = documents[doc] = np.zeros(runs + 1, dtype=np.float64)
                if signals[r] == 0.0:
                    signals[r] = discount(rank)
        for signals in documents.values():
            signals[runs] = float(np.count_nonzero(signals[:runs])) / runs
        found[query_id] = documents
    return found


def _sigmoid(values: F64) -> F64:
    out: F64 = 0.5 * (1.0 + np.tanh(0.5 * values))
    return out


@dataclass(frozen=True)
class OrdinalFit:
    """The fitted cumulative-logit model (the module docstring): the cut
    points, the signals' weights, each query's effect with its posterior
    standard deviation, σ, the covariance of (cut parameters, weights), and
    the scale's grades."""

    grades: tuple[int, ...]
    cut_params: F64  # c_1, then log(c_j − c_{j−1}): the cuts stay in order
    weights: F64
    query_effects: Mapping[str, float]
    query_sd: Mapping[str, float]
    sigma: float
    covariance: F64 = field(repr=False)
    documents: int = 0

    @property
    def cuts(self) -> F64:
        return _cuts(self.cut_params)

    def probabilities(self, query_id: str, signals: F64) -> tuple[float, ...]:
        """P(grade) for each grade of the scale, in scale order."""
        effect = self.query_effects.get(query_id, 0.0)
        row = _category_probabilities(
            np.array([float(signals @ self.weights) + effect]), self.cuts
        )[0]
        return tuple(float(p) for p in row)

    def drawn(self, rng: np.random.Generator) -> OrdinalFit:
        """The model with its parameters drawn from their approximate
        posterior: the global ones jointly, each query's effect on its own."""
        mean = np.concatenate([self.cut_params, self.weights])
        global_draw = rng.multivariate_normal(mean, self.covariance, method="cholesky")
        cuts = len(self.cut_params)
        effects = {
            query_id: effect + self.query_sd[query_id] * float(rng.standard_normal())
            for query_id, effect in sorted(self.query_effects.items())
        }
        return replace(
            self,
            cut_params=global_draw[:cuts],
            weights=global_draw[cuts:],
            query_effects=effects,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "cuts": [round(float(c), 4) for c in self.cuts],
            "weights": [round(float(w), 4) for w in self.weights],
            "query_sd": round(self.sigma, 4),
        }


def _cuts(params: F64) -> F64:
    out: F64 = np.cumsum(np.concatenate([params[:1], np.exp(params[1:])]))
    return out


def _category_probabilities(eta: F64, cuts: F64) -> F64:
    """P(grade = g_j) for each η (rows) and grade index j (columns)."""
    above = _sigmoid(eta[:, None] - cuts[None, :])
    ones = np.ones((eta.size, 1))
    zeros = np.zeros((eta.size, 1))
    bounds = np.concatenate([ones, above, zeros], axis=1)
    out: F64 = np.clip(bounds[:, :-1] - bounds[:, 1:], 1e-12, 1.0)
    return out


@dataclass(frozen=True)
class _Data:
    signals: F64  # documents × features
    query: I64  # each document's query index
    grade: I64  # each document's grade index
    queries: int


def _unpack(params: F64, grades: int, features: int) -> tuple[F64, F64, F64]:
    cut_count = grades - 1
    return (
        params[:cut_count],
        params[cut_count : cut_count + features],
        params[cut_count + features :],
    )


def _objective(params: F64, data: _Data, grades: int, sigma: float) -> tuple[float, F64]:
    """The negative log posterior and its gradient (cuts, weights, effects)."""
    features = data.signals.shape[1]
    cut_params, weights, effects = _unpack(params, grades, features)
    cuts = _cuts(cut_params)
    eta = data.signals @ weights + effects[data.query]
    above = _sigmoid(eta[:, None] - cuts[None, :])  # P(grade ≥ g_j), j = 1..G-1
    n = eta.size
    bounds = np.concatenate([np.ones((n, 1)), above, np.zeros((n, 1))], axis=1)
    slope = bounds * (1.0 - bounds)  # dS/dη (0 at the ends)
    rows = np.arange(n)
    upper, lower = bounds[rows, data.grade], bounds[rows, data.grade + 1]
    probability = np.clip(upper - lower, 1e-12, 1.0)
    d_upper, d_lower = slope[rows, data.grade], slope[rows, data.grade + 1]
    d_eta = (d_upper - d_lower) / probability
    # d log p / d c_j: −dS_j/p where S_j is the upper bound, +dS_j/p the lower
    d_cuts = np.zeros((n, grades - 1))
    index = data.grade - 1  # the upper bound's cut (none for the lowest grade)
    has_upper = index >= 0
    d_cuts[rows[has_upper], index[has_upper]] -= d_upper[has_upper] / probability[has_upper]
    has_lower = data.grade < grades - 1
    d_cuts[rows[has_lower], data.grade[has_lower]] += d_lower[has_lower] / probability[has_lower]
    grad_cuts_raw = d_cuts.sum(axis=0)  # by cut c_j
    # c_j = p_0 + Σ_{m ≤ j−1, m ≥ 1} exp(p_m)
    grad_cut_params = np.zeros_like(cut_params)
    grad_cut_params[0] = grad_cuts_raw.sum()
    for m in range(1, cut_params.size):
        grad_cut_params[m] = math.exp(cut_params[m]) * grad_cuts_raw[m:].sum()
    grad_weights = data.signals.T @ d_eta
    grad_effects = np.bincount(data.query, weights=d_eta, minlength=data.queries)
    value = -float(np.log(probability).sum())
    value += float((weights**2).sum()) / (2 * WEIGHT_SD**2)
    value += float((effects**2).sum()) / (2 * sigma**2)
    gradient = -np.concatenate([grad_cut_params, grad_weights, grad_effects])
    gradient[cut_params.size : cut_params.size + weights.size] += weights / WEIGHT_SD**2
    gradient[cut_params.size + weights.size :] += effects / sigma**2
    return value, gradient


def fit_ordinal(
    signals: Mapping[str, Mapping[str, F64]],
    judgments: Mapping[str, Mapping[str, int]],
    grades: Sequence[int],
    *,
    like: OrdinalFit | None = None,
) -> OrdinalFit | None:
    """The model fitted on the judged documents among ``signals`` (σ by
    empirical Bayes); None when they are too few (`RUNS_PRIOR_MINIMUM`, over
    `RUNS_PRIOR_QUERIES` queries) or hold fewer than two of the scale's grades."""
    from scipy.optimize import minimize  # the optimiser, only where a fit is made

    scale = tuple(grades)
    position = {grade: j for j, grade in enumerate(scale)}
    query_ids = sorted(signals)
    query_index = {query_id: i for i, query_id in enumerate(query_ids)}
    rows: list[F64] = []
    queries: list[int] = []
    found: list[int] = []
    for query_id in query_ids:
        judged = judgments.get(query_id, {})
        for doc, values in signals[query_id].items():
            grade = judged.get(doc)
            if grade is not None and grade in position:
                rows.append(values)
                queries.append(query_index[query_id])
                found.append(position[grade])
    if (
        len(rows) < RUNS_PRIOR_MINIMUM
        or len(set(queries)) < RUNS_PRIOR_QUERIES
        or len(set(found)) < 2
        or len(scale) < 2
    ):
        return None
    data = _Data(
        np.array(rows, dtype=np.float64),
        np.array(queries, dtype=np.int64),
        np.array(found, dtype=np.int64),
        len(query_ids),
    )
    features = data.signals.shape[1]
    cuts = len(scale) - 1
    start = np.zeros(cuts + features + data.queries)
    start[0] = -0.5
    sigma = 1.0
    rounds = _SIGMA_ROUNDS
    if like is not None and like.weights.size == features and like.cut_params.size == cuts:
        # a fit of nearly the same documents (the check's): start from it,
        # with its σ, in one round
        start[:cuts] = like.cut_params
        start[cuts : cuts + features] = like.weights
        start[cuts + features :] = [like.query_effects.get(q, 0.0) for q in query_ids]
        sigma, rounds = like.sigma, 1
    params = start
    # BFGS keeps a dense matrix of the parameters' size: fine (and here several
    # times faster) up to a thousand queries; past that, the limited-memory one
    method = "BFGS" if params.size <= _DENSE_LIMIT else "L-BFGS-B"
    for _ in range(rounds):
        result = minimize(
            _objective, params, args=(data, len(scale), sigma), jac=True, method=method
        )
        params = result.x
        effects = params[cuts + features :]
        variances = _effect_variances(params, data, len(scale), sigma)
        # σ² as the mean of each effect's second moment (the EM step of the
        # normal random-effects model), kept within bounds so one query alone
        # can neither switch the sharing off nor make it unbounded
        sigma = float(np.clip(math.sqrt(float(np.mean(effects**2 + variances))), *_SIGMA_BOUNDS))
    variances = _effect_variances(params, data, len(scale), sigma)
    covariance = _global_covariance(params, data, len(scale), sigma, cuts + features)
    cut_params, weights, effects = _unpack(params, len(scale), features)
    return OrdinalFit(
        grades=scale,
        cut_params=cut_params.copy(),
        weights=weights.copy(),
        query_effects={q: float(effects[i]) for q, i in query_index.items()},
        query_sd={q: math.sqrt(float(variances[i])) for q, i in query_index.items()},
        sigma=sigma,
        covariance=covariance,
        documents=len(rows),
    )


def _effect_variances(params: F64, data: _Data, grades: int, sigma: float) -> F64:
    """Each query effect's posterior variance: 1 / (its judged documents'
    information + 1/σ²), the information from the gradient's outer product."""
    features = data.signals.shape[1]
    cut_params, weights, effects = _unpack(params, grades, features)
    eta = data.signals @ weights + effects[data.query]
    probabilities = _category_probabilities(eta, _cuts(cut_params))
    above = _sigmoid(eta[:, None] - _cuts(cut_params)[None, :])
    n = eta.size
    bounds = np.concatenate([np.ones((n, 1)), above, np.zeros((n, 1))], axis=1)
    slope = bounds * (1.0 - bounds)
    # expected information of η for one document: Σ_j (dp_j/dη)² / p_j
    d_probability = slope[:, :-1] - slope[:, 1:]
    information = (d_probability**2 / probabilities).sum(axis=1)
    per_query = np.bincount(data.query, weights=information, minlength=data.queries)
    return np.asarray(1.0 / (per_query + 1.0 / sigma**2), dtype=np.float64)


def _global_covariance(params: F64, data: _Data, grades: int, sigma: float, size: int) -> F64:
    """The covariance of the cut parameters and weights: the inverse of the
    negative log posterior's Hessian in them (central differences of the
    analytic gradient), the query effects held at their fit."""
    step = 1e-4
    hessian = np.zeros((size, size))
    for i in range(size):
        shift = np.zeros_like(params)
        shift[i] = step
        plus = _objective(params + shift, data, grades, sigma)[1][:size]
        minus = _objective(params - shift, data, grades, sigma)[1][:size]
        hessian[i] = (plus - minus) / (2 * step)
    hessian = (hessian + hessian.T) / 2 + 1e-8 * np.eye(size)
    covariance: F64 = np.asarray(np.linalg.inv(hessian), dtype=np.float64)
    # symmetric and positive definite for the draws' Cholesky factor
    covariance = (covariance + covariance.T) / 2
    eigenvalues, vectors = np.linalg.eigh(covariance)
    covariance = (vectors * np.clip(eigenvalues, 1e-10, None)) @ vectors.T
    return covariance


@dataclass(frozen=True)
class RunsPrior:
    """The ``runs`` prior of one comparison: every top-k document's signals
    and the fit. `of` gives a hole's grade probabilities."""

    signals: Mapping[str, Mapping[str, F64]]
    fit: OrdinalFit

    def of(self, query_id: str, doc_id: str) -> tuple[float, ...]:
        return self.fit.probabilities(query_id, self.signals[query_id][doc_id])

    def table(self, holes: Sequence[tuple[str, str]]) -> F64:
        """P(grade) of each (query, document) of ``holes`` (rows), in scale
        order: `of` for many at once, as each draw of the parameters needs."""
        if not holes:
            return np.zeros((0, len(self.fit.grades)), dtype=np.float64)
        signals = np.array([self.signals[q][d] for q, d in holes], dtype=np.float64)
        effects = np.array([self.fit.query_effects.get(q, 0.0) for q, _ in holes])
        return _category_probabilities(signals @ self.fit.weights + effects, self.fit.cuts)

    def drawn(self, rng: np.random.Generator) -> RunsPrior:
        return replace(self, fit=self.fit.drawn(rng))


def runs_prior(
    tops: Sequence[Mapping[str, TopK]],
    queries: Sequence[str],
    judgments: Mapping[str, Mapping[str, int]],
    grades: Sequence[int],
    k: int,
    *,
    like: OrdinalFit | None = None,
    signals: Mapping[str, Mapping[str, F64]] | None = None,
) -> RunsPrior | None:
    """The runs prior of the compared runs' top k on ``queries``; None when
    the judged documents there are too few to fit it. ``like``: a fit of
    nearly the same documents to start from (`fit_ordinal`); ``signals``:
    `signals_of` the same tops, when known already."""
    if signals is None:
        signals = signals_of(tops, queries, k)
    fit = fit_ordinal(signals, judgments, grades, like=like)
    return None if fit is None else RunsPrior(signals, fit)


@dataclass(frozen=True)
class PriorCheck:
    """What hiding judged documents did to the expected nDCG: the mean error
    (``shift``, pooled over runs and replications), the spread of the errors
    around it, how many documents each replication hid of how many."""

    shift: float
    spread: float
    replications: int
    hidden: int
    judged: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "replications": self.replications,
            "hidden": self.hidden,
            "judged": self.judged,
            "shift": round(self.shift, 6),
            "spread": round(self.spread, 6),
        }

    def line(self) -> str:
        return (
            f"hiding {self.hidden:,} of the {self.judged:,} judged documents of the top k "
            f"{self.replications} times moved the expected nDCG by {self.shift:+.4f} "
            f"(spread {self.spread:.4f}); the expected nDCG and its interval are corrected "
            "for both"
        )
