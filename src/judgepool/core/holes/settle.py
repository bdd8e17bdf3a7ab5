"""Which unjudged documents to judge next: the orders of ``judgepool holes``.

A *hole* is a document in some compared run's top k without a judgment (see
`judgepool.core.comparing.bounds`). Two orders:

- ``depth``: classic pooling — by rank, round-robin over the runs (every
  run's first document of every query, then every run's second, …), each
  document once, at its best rank.
- ``settle``: first the holes whose grade would most move the pairs that are
  still undecided — neither settled, tied nor probable
  (docs/evaluation-contract.md, "Probable verdicts") — toward a decided
  verdict.

How ``settle`` scores a hole. Each hole has a prior over its grades, the
comparison's own (`judgepool.core.holes.priors`: by default the runs prior,
`judgepool.core.holes.hole_prior`, refitted every `REFIT_EVERY` judgments, or the
rank prior while too few documents are judged to fit it; a model's labels
calibrated on the judgments over it), re-estimated after every judgment as
the comparison would estimate it. Joint draws of every hole's grade
(`judgepool.core.holes.settle_draws`, made query by query) give each pair's mean
difference D in each draw: its variance σ² and P(A ahead), as the verdict
has them. The order works on the pairs the bounds could still flip whose P
lies within (1 − a, a) for the *aim* a: by default halfway from the
confidence c to certainty, (1 + c) / 2 = 0.975 for c = 0.95. The margin is
there because a probable verdict just past c is easily taken back — by the
Monte Carlo error of the next comparison's draws, and by the next judgments,
which move the prior of every hole at the same rank — and a pair counts as
decided only once it stays so. With z = Φ⁻¹(max(P, 1 − P)) where the pair is
now and z_a = Φ⁻¹(a), if its expected difference stayed where it is, the
variance still to remove before the leader is ahead with the aim is

    R_p = σ² · (1 − z² / z_a²).

Judging hole h replaces its drawn grade by the true one. By the law of total
variance it removes, on average, the part of σ² that h's grade explains:

    v_hp = Var_g( E[D | h has grade g] ),  g drawn from h's prior,

computed from the draws with h's grade replaced by each grade in turn. It
carries what makes a hole matter to a pair: its discount difference between
A and B, its prior's spread, and (for a hole neither run returned) the ideal
it joins once judged. The share of pair p's remaining way that judging h
covers is min(1, v_hp / R_p), and a hole's priority is that share summed
over the pairs worked on. A pair near its verdict has a small R_p and weighs
most: finishing it first lowers the mean number of judgments the pairs wait
for, as shortest-job-first lowers the mean waiting time. A pair settled,
tied or probable beyond the aim gives its holes nothing; when every pair is
so, every priority is 0 and the order falls back to the best rank.

What the score leaves out. It looks one judgment ahead: the expected
difference moves too once h is judged (on average by 0, but its spread can
carry a pair across the threshold or back), and the prior is taken as
right, while a judgment teaches it and moves every hole at the same rank
(or with the same model grade) at once; the holes are independent, as the
draws have them. Replayed from BM25's depth-5 pool (``tests/benchmarks/
bench_probable.py``), the pairs undecided at the start are decided after
0.52-0.61x the judgments of depth order on DL19 and 0.82-0.86x on DL20
under the runs prior (0.45x and 0.87x with a real LLM judge's labels over
it; 0.81-0.91x under the rank prior), never more in total; a team's
batches (`SettleState.batch`) need no more.

Incremental. After a judgment only its query changes: that query's bounds
and draws are recomputed, and so is the prior; another query's draws are
redrawn only when the prior of one of its holes moved by more than
``refresh`` (a probability, 0.05 by default; 0 redraws whenever it moves at
all, which is what a state built from scratch has). A query's draws are
seeded by its place in the population, so they depend only on its own holes
and their priors. The app's settle queue and the replay benchmark judge one
document at a time. The draws are this state's own (`settle_draws.
SETTLE_DRAWS` per query): which pairs it counts as probable can differ from
``compare``'s near the confidence, by Monte Carlo error.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from judgepool.core.comparing.bounds import GainLevels, HoleQuery, TopK, query_problem, ratio_ranges
from judgepool.core.comparing.verdicts import CONFIDENCE, Verdict, probable_leader, verdict_of
from judgepool.core.holes.draws import TIE_TOLERANCE, draw_problem
from judgepool.core.holes.hole_prior import RunsPrior, runs_prior
from judgepool.core.holes.priors import (
    ModelLabels,
    Prior,
    best_ranks,
    model_prior,
    rank_prior,
)
from judgepool.core.holes.settle_draws import (
    CONDITIONED_DRAWS,
    SETTLE_DRAWS,
    QueryDraws,
    draw_query,
)
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError

F64 = npt.NDArray[np.float64]
# a bound within this of 0 counts as on it: rounding must not settle a pair
_EPSILON: Final = 1e-12
# a query's draws are redrawn when one of its holes' prior probabilities moved
# by more than this since they were drawn (see the module docstring)
REFRESH_TOLERANCE: Final = 0.05
# judgments between two fits of the runs prior (see `SettleState._estimate_prior`)
REFIT_EVERY: Final = 10
# `batch`'s bounds: 5 million v_hp kept (40 MB); 1.5e8 weighings, about a
# second (measured: 500 choices over 5,000 holes × 1,000 pairs took 16 s)
BATCH_CELLS: Final = 5_000_000
BATCH_WORK: Final = 150_000_000


@dataclass(frozen=True)
class Hole:
    """An unjudged document of a query's top k, with the runs that returned it
    there and its best (1-based) rank among them."""

    query_id: str
    doc_id: str
    runs: tuple[str, ...]
    best_rank: int


def find_holes(tops: Mapping[str, Mapping[str, TopK]], k: int) -> list[Hole]:
    """Every hole of every run's top k (``tops``: run name -> query -> top k)."""
    found: dict[tuple[str, str], tuple[list[str], int]] = {}
    for run, lists in tops.items():
        for query_id, top in lists.items():
            for rank, (doc, grade) in enumerate(top[:k], start=1):
                if grade is None:
                    runs, best = found.get((query_id, doc), ([], rank))
                    runs.append(run)
                    found[(query_id, doc)] = (runs, min(best, rank))
    return [
        Hole(query_id, doc, tuple(runs), best)
        for (query_id, doc), (runs, best) in sorted(found.items())
    ]


def depth_order(tops: Mapping[str, Mapping[str, TopK]], k: int) -> list[tuple[Hole, float]]:
    """Holes by rank, round-robin over the runs (in the order given), then by
    query; each hole where it first comes. Priority: the reciprocal of the
    place in that order (larger first)."""
    holes = {(h.query_id, h.doc_id): h for h in find_holes(tops, k)}
    ordered: list[Hole] = []
    for rank in range(k):
        for lists in tops.values():
            for query_id in sorted(lists):
                top = lists[query_id]
                if rank < len(top) and top[rank][1] is None:
                    hole = holes.pop((query_id, top[rank][0]), None)
                    if hole is not None:
                        ordered.append(hole)
    return [(hole, 1.0 / (place + 1)) for place, hole in enumerate(ordered)]


@dataclass
class _Pair:
    a: int
    b: int
    low: dict[str, float]  # per query
    high: dict[str, float]


@dataclass(frozen=True)
class _Block:
    """One query's draws and the holes they are of (in draw order)."""

    doc_ids: tuple[str, ...]
    draws: QueryDraws


class SettleState:
    """The pairs' exact bounds and draws, kept up to date as holes are judged.

    ``model``: a model's labels, for the model prior (while the judgments
    hold fewer than `priors.MODEL_PRIOR_MINIMUM` items it graded, the rank
    prior, and `prior_note` says so); ``confidence``: what a probable verdict
    asks for; ``aim``: the P(A ahead) the order works toward (at least the
    confidence; by default halfway from it to 1); ``draws``, ``conditioned``,
    ``seed``, ``refresh``: see the module docstring."""

    def __init__(
        self,
        names: Sequence[str],
        tops: Sequence[Mapping[str, TopK]],
        judgments: Mapping[str, Mapping[str, int]],
        contract: Contract,
        queries: Sequence[str],
        pairs: Sequence[tuple[int, int]],
        *,
        model: ModelLabels | None = None,
        prior: str = "runs",
        confidence: float = CONFIDENCE,
        aim: float | None = None,
        draws: int = SETTLE_DRAWS,
        conditioned: int = CONDITIONED_DRAWS,
        seed: int = 0,
        refresh: float = REFRESH_TOLERANCE,
    ) -> None:
        self.names = list(names)
        self.contract = contract.with_changes(unjudged="zero")
        self.levels = GainLevels.of(self.contract)
        self.queries = list(queries)
        self.judgments = {q: dict(judgments.get(q, {})) for q in self.queries}
        self.tops = [{q: list(top.get(q, ())) for q in self.queries} for top in tops]
        self.model = model
        self.confidence = confidence
        # halfway from the confidence to certainty unless told: 0.975 for 0.95
        self.aim = (1 + confidence) / 2 if aim is None else max(aim, confidence)
        self._draws = draws
        self._conditioned = conditioned
        self._seed = seed
        self._refresh = refresh
        self._place = {q: i for i, q in enumerate(self.queries)}
        self.redrawn = 0  # queries drawn since the start (a measure of the work)
        self.prior_note: str | None = None
        if prior not in ("runs", "rank"):
            raise ContractError(f"the settle order's prior is runs or rank, not {prior!r}")
        self.prior_kind = prior
        self._fitted: RunsPrior | None = None
        self._since_fit = 0
        self.prior = self._estimate_prior()
        self._holes = find_holes(
            dict(zip(self.names, self._views(self.queries), strict=True)), self.contract.k
        )

        self.pairs = [_Pair(a, b, {}, {}) for a, b in pairs]
        self._update_bounds(self.queries)
        self._blocks = {q: self._draw(q) for q in self.queries}
        # caches, dropped at each judgment
        self._total: F64 | None = None  # Σ over the queries of the blocks' nDCG
        self._stacked: tuple[F64, F64] | None = None  # the holes' priors and conditionals

    # -- the runs as now judged -------------------------------------------------

    def _view(self, run: int, query: str) -> TopK:
        judged = self.judgments[query]
        return [(d, judged.get(d, g)) for d, g in self.tops[run][query]]

    def _views(self, queries: Sequence[str]) -> list[dict[str, TopK]]:
        return [{q: self._view(r, q) for q in queries} for r in range(len(self.tops))]

    def holes(self) -> list[Hole]:
        """The holes left, as `find_holes` lists them."""
        return list(self._holes)

    # -- bounds -----------------------------------------------------------------

    def _problem(self, a: int, b: int, query: str) -> HoleQuery:
        # every other run's holes too, at coefficient 0: judged, they join the
        # ideal and can move the pair's mean difference (see core.comparing.verdicts)
        others = [(0.0, self._view(r, query)) for r in range(len(self.tops)) if r not in (a, b)]
        lists = [(1.0, self._view(a, query)), (-1.0, self._view(b, query)), *others]
        return query_problem(lists, self.judgments[query], self.contract)

    def _update_bounds(self, queries: Sequence[str]) -> None:
        """Every pair's bounds at ``queries``, solved in one call."""
        problems = [self._problem(p.a, p.b, q) for p in self.pairs for q in queries]
        low, high = ratio_ranges(problems, self.levels, self.contract.k)
        for i, pair in enumerate(self.pairs):
            chunk = slice(i * len(queries), (i + 1) * len(queries))
            pair.low.update(zip(queries, low[chunk].tolist(), strict=True))
            pair.high.update(zip(queries, high[chunk].tolist(), strict=True))

    def pair_bounds(self, index: int) -> tuple[float, float]:
        pair = self.pairs[index]
        n = len(self.queries) or 1
        low = sum(pair.low.values()) / n
        high = sum(pair.high.values()) / n
        return (0.0 if abs(low) <= _EPSILON else low, 0.0 if abs(high) <= _EPSILON else high)

    def open_pairs(self) -> list[int]:
        """The pairs whose bounds could still flip (neither settled nor tied;
        a probable pair included)."""
        return [i for i in range(len(self.pairs)) if self.verdict(i, drawn=False) == "could flip"]

    # -- the prior and the draws ------------------------------------------------

    def _estimate_prior(self) -> Prior:
        """The comparison's prior on the judgments as they now are: the runs
        prior (refitted every `REFIT_EVERY` judgments: a fit takes a fraction
        of a second, and one judgment moves it little; between fits the last
        one stands, its holes' signals unchanged) with the rank prior under
        it, and the model's where one is given."""
        rank = rank_prior(self._views(self.queries), self.queries, self.contract)
        runs = None
        if self.prior_kind == "runs":
            if self._fitted is None or self._since_fit >= REFIT_EVERY:
                self._fitted = runs_prior(
                    self._views(self.queries), self.queries, self.judgments,
                    self.contract.scale.grades, self.contract.k,
                )  # fmt: skip
                self._since_fit = 0
            runs = self._fitted
        if self.model is None:
            return Prior(rank, runs=runs)
        try:
            calibrated = model_prior(
                self.model.name, self.model.labels, self.judgments, self.contract
            )
        except ContractError as refused:
            self.prior_note = f"the {'runs' if runs else 'rank'} prior: {refused}"
            return Prior(rank, runs=runs)
        self.prior_note = None
        return Prior(rank, calibrated, runs=runs)

    def _hole_table(self, query: str, doc_ids: Sequence[str]) -> F64:
        """The prior's probabilities of the query's holes ``doc_ids`` (rows)."""
        if not doc_ids:
            return np.zeros((0, len(self.contract.scale.grades)))
        ranks = best_ranks(self._views([query]), [query], self.contract.k)[query]
        return np.array(
            [self.prior.of(query, doc, ranks[doc][0]) for doc in doc_ids], dtype=np.float64
        )

    def _draw(self, query: str) -> _Block:
        views = self._views([query])
        ranks = best_ranks(views, [query], self.contract.k)[query]
        # the holes in the draws' order (`core.holes.draws`: first run first)
        doc_ids = tuple(doc for doc, (_, grade) in ranks.items() if grade is None)
        problem = draw_problem(views, [query], self.judgments, self.contract, self.prior)
        self.redrawn += 1
        block = draw_query(problem, self._seed, self._place[query], self._draws, self._conditioned)
        return _Block(doc_ids, block)

    def _stale(self, query: str, block: _Block) -> bool:
        """Whether the prior of one of the block's holes moved by more than
        the refresh tolerance since its draws were made."""
        if not block.doc_ids:
            return False
        table = self._hole_table(query, block.doc_ids)
        moved = float(np.abs(table - block.draws.probabilities).max())
        return moved > max(self._refresh, 1e-12)

    def _drawn_differences(self, index: int) -> F64:
        """The pair's mean difference A − B in each draw."""
        pair = self.pairs[index]
        if not self.queries:
            return np.zeros(self._draws)
        if self._total is None:
            self._total = np.sum([self._blocks[q].draws.ndcg for q in self.queries], axis=0)
        total = self._total
        diff: F64 = (total[:, pair.a] - total[:, pair.b]) / len(self.queries)
        return np.where(np.abs(diff) <= TIE_TOLERANCE, 0.0, diff)

    def p_a_ahead(self, index: int) -> float:
        """P(A ahead) of the pair over this state's draws (ties count half)."""
        diff = self._drawn_differences(index)
        return float((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size

    def verdict(self, index: int, drawn: bool = True) -> Verdict:
        """The pair's verdict: by the bounds, and with ``drawn`` by this
        state's draws too (as ``compare``'s, to Monte Carlo error)."""
        low, high = self.pair_bounds(index)
        return verdict_of(low, high, self.p_a_ahead(index) if drawn else None, self.confidence)

    def undecided_pairs(self) -> list[int]:
        """The pairs neither settled, tied nor probable."""
        return [i for i in range(len(self.pairs)) if self.verdict(i) == "could flip"]

    # -- judging ----------------------------------------------------------------

    def judge(self, query: str, doc: str, grade: int) -> None:
        """Record a judgment and bring the affected bounds, prior and draws up to date."""
        self.judgments[query][doc] = grade
        self._holes = [h for h in self._holes if (h.query_id, h.doc_id) != (query, doc)]
        self._update_bounds([query])
        self._since_fit += 1
        self.prior = self._estimate_prior()
        self._blocks[query] = self._draw(query)
        for other in self.queries:
            if other != query and self._stale(other, self._blocks[other]):
                self._blocks[other] = self._draw(other)
        self._total = None
        self._stacked = None

    # -- the priority ---------------------------------------------------------------

    def working_pairs(self) -> list[int]:
        """The pairs the order works on: the bounds could flip them, and the
        draws put neither run ahead with at least the aim (an undecided
        pair, or a probable one short of the aim)."""
        return [
            i for i in self.open_pairs() if probable_leader(self.p_a_ahead(i), self.aim) is None
        ]

    def remaining_variance(self, index: int) -> float:
        """R_p of the module docstring: the variance of the pair's mean
        difference still to remove before its leader is ahead with the aim."""
        diff = self._drawn_differences(index)
        ahead = self.p_a_ahead(index)
        normal = statistics.NormalDist()
        z = normal.inv_cdf(min(max(ahead, 1 - ahead), 1 - 1e-12))
        wanted = normal.inv_cdf(self.aim)
        return float(diff.var()) * max(0.0, 1.0 - (z / wanted) ** 2)

    def _stack(self) -> tuple[F64, F64]:
        """Every hole's prior (holes × grades) and conditional nDCGs (holes ×
        grades × runs), in the order of `holes`."""
        if self._stacked is None:
            places = {
                (q, doc): (block.draws, h)
                for q, block in self._blocks.items()
                for h, doc in enumerate(block.doc_ids)
            }
            grades = len(self.contract.scale.grades)
            chances = np.zeros((len(self._holes), grades))
            effects = np.zeros((len(self._holes), grades, len(self.tops)))
            for i, hole in enumerate(self._holes):
                draws, h = places[(hole.query_id, hole.doc_id)]
                chances[i] = draws.probabilities[h]
                effects[i] = draws.conditional[h]
            self._stacked = (chances, effects)
        return self._stacked

    def explained_variance(self, index: int) -> F64:
        """v_hp of the module docstring for each hole (in the order of
        `holes`): the part of the pair's drawn variance its grade explains."""
        pair = self.pairs[index]
        chances, effects = self._stack()
        effect = effects[:, :, pair.a] - effects[:, :, pair.b]
        centred = effect - (chances * effect).sum(axis=1, keepdims=True)
        n = max(len(self.queries), 1)
        explained: F64 = (chances * centred**2).sum(axis=1) / (n * n)
        return explained

    def priorities(self) -> list[tuple[Hole, float]]:
        """Every hole with its settle priority, best first: the share of the
        remaining way to a firm verdict its grade is expected to cover,
        summed over the pairs the order works on (the module docstring)."""
        holes = self._holes
        if not holes:
            return []
        score = np.zeros(len(holes))
        for index in self.working_pairs():
            remaining = max(self.remaining_variance(index), _EPSILON * _EPSILON)
            score += np.minimum(1.0, self.explained_variance(index) / remaining)
        order = sorted(range(len(holes)), key=lambda i: (-score[i], holes[i].best_rank))
        return [(holes[i], float(score[i])) for i in order]

    def batch(
        self,
        n: int,
        *,
        then_the_rest: bool = False,
        max_cells: int = BATCH_CELLS,
        max_work: int = BATCH_WORK,
    ) -> list[tuple[Hole, float]]:
        """The first ``n`` holes for ``n`` people judging at once (a team's
        batch, ``assign --settle N``), each with its priority when chosen.
        Chosen one at a time, each by the share of the pairs' way (R_p) its
        grade covers beyond what the holes chosen before it are expected to
        cover: Σ_p min(v_hp, L_p) / R_p, with L_p = R_p less the v_hp of those
        holes, at least 0. A pair the batch is expected to finish gives the
        next holes nothing, so a batch spreads over the pairs (the first ``n``
        of `priorities` pile onto the one nearest its verdict). Priorities
        only fall down the batch; its first hole is `priorities`' first.
        ``then_the_rest``: then every other hole, by its share beyond the
        batch. Past ``max_cells`` v_hp kept (holes × pairs worked on) the
        holes come by `priorities`; past ``max_work`` weighings of a hole
        against a pair, the later holes come at once, by their share beyond
        those chosen one at a time."""
        holes = self._holes
        if not holes or (n <= 0 and not then_the_rest):
            return []
        working = self.working_pairs()
        if len(holes) * len(working) > max_cells:
            ranked = self.priorities()
            return ranked if then_the_rest else ranked[:n]
        ranks = np.array([hole.best_rank for hole in holes])
        explained = np.zeros((len(holes), len(working)))
        way = np.zeros(len(working))
        for column, index in enumerate(working):
            explained[:, column] = self.explained_variance(index)
            way[column] = max(self.remaining_variance(index), _EPSILON * _EPSILON)
        left = way.copy()
        free = np.ones(len(holes), dtype=bool)
        chosen: list[tuple[Hole, float]] = []
        cells = max(explained.size, 1)
        for _ in range(min(n, len(holes), max(1, max_work // cells))):
            score = (np.minimum(explained, np.maximum(left, 0.0)) / way).sum(axis=1)
            # best score first, then best rank: lexsort's last key is its first
            candidates = np.flatnonzero(free)
            best = candidates[np.lexsort((ranks[candidates], -score[candidates]))[0]]
            chosen.append((holes[best], float(score[best])))
            free[best] = False
            left -= explained[best]
        wanted = len(holes) if then_the_rest else min(n, len(holes))
        if len(chosen) < wanted:
            score = (np.minimum(explained, np.maximum(left, 0.0)) / way).sum(axis=1)
            rest = np.flatnonzero(free)
            rest = rest[np.lexsort((ranks[rest], -score[rest]))][: wanted - len(chosen)]
            chosen.extend((holes[i], float(score[i])) for i in rest)
        return chosen
