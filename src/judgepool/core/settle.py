"""Which unjudged documents to judge next: the orders of ``judgepool holes``.

A *hole* is a document in some compared run's top k without a judgment (see
`judgepool.core.bounds`). Two orders:

- ``depth``: classic pooling — by rank, round-robin over the runs (every
  run's first document of every query, then every run's second, …), each
  document once, at its best rank.
- ``settle``: the holes whose judgment is expected to bring the comparisons
  that could still flip closest to a verdict, first.

How ``settle`` scores a hole. For every pair of runs that could flip, the
*binding* bound is the one on the side of 0 that must cross it: the lower
bound of the mean difference when the pair's current leader (by the mean
difference with the holes at gain 0) is A, the upper one when it is B.
Judging hole h of query q with grade g replaces the pair's bounds at q by
the bounds with h's grade known, computed exactly (`core.bounds`); the
binding bound moves by Δ_p(h, g) ≥ 0 (fixing a grade only narrows a range).
The expected move under a prior P(g) of the hole's grade, divided by the
distance the binding bound still has to go, is the share of the remaining
way that judging h is expected to cover for pair p; a hole's priority is
that share summed over the pairs that could flip. Pairs nearly settled thus
weigh most: finishing them first lowers the mean number of judgments each
pair waits for.

The prior P(g | rank) is the grade distribution of the judged documents at
that rank in the compared runs' top k (add-one smoothed towards the
distribution over all ranks): deeper documents are less often relevant.

`SettleState` keeps every pair's per-query bounds, so that after a judgment
only that query's holes are scored again (the app's settle queue and the
replay benchmark judge one document at a time).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from judgepool.core.bounds import GainLevels, HoleQuery, TopK, ideal, query_problem, ratio_ranges
from judgepool.core.contract import Contract

F64 = npt.NDArray[np.float64]
# a binding bound within this of 0 counts as on it: rounding must not settle a pair
_EPSILON = 1e-12
# how many judgments the pooled documents' grade distribution is worth, per rank
PRIOR_WEIGHT = 3.0


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


def grade_prior(tops: Mapping[str, Mapping[str, TopK]], contract: Contract) -> F64:
    """P[rank - 1, grade index]: the grade distribution of judged documents at
    each rank of the compared runs' top k, smoothed towards all ranks."""
    grades = list(contract.scale.grades)
    counts = np.ones((contract.k, len(grades)), dtype=np.float64)
    for lists in tops.values():
        for top in lists.values():
            for rank, (_, grade) in enumerate(top[: contract.k]):
                if grade is not None:
                    counts[rank, grades.index(grade)] += 1
    overall = counts.sum(axis=0) / counts.sum()
    smoothed = counts + overall[None, :] * len(grades)
    prior: F64 = smoothed / smoothed.sum(axis=1, keepdims=True)
    return prior


@dataclass
class _Pair:
    a: int
    b: int
    low: dict[str, float]  # per query
    high: dict[str, float]
    leader_is_a: bool


class SettleState:
    """The pairs' exact bounds, kept up to date as holes are judged."""

    def __init__(
        self,
        names: Sequence[str],
        tops: Sequence[Mapping[str, TopK]],
        judgments: Mapping[str, Mapping[str, int]],
        contract: Contract,
        queries: Sequence[str],
        pairs: Sequence[tuple[int, int]],
    ) -> None:
        self.names = list(names)
        self.contract = contract.with_changes(unjudged="zero")
        self.levels = GainLevels.of(self.contract)
        self.queries = list(queries)
        self.judgments = {q: dict(judgments.get(q, {})) for q in self.queries}
        self.tops = [{q: list(top.get(q, ())) for q in self.queries} for top in tops]
        # the grades of the pooled documents say little about the holes (the
        # pool's documents were found by the older runs): they only start the
        # prior, with the weight of a few judgments, and every hole judged here
        # then counts in it (learned as the holes are judged)
        pooled = grade_prior(dict(zip(self.names, tops, strict=True)), self.contract)
        self._prior_counts = pooled * PRIOR_WEIGHT
        self._grades = list(self.contract.scale.grades)
        self._if_judged: dict[tuple[int, str, str], tuple[F64, F64]] = {}

        self.pairs: list[_Pair] = []
        for a, b in pairs:
            pair = _Pair(a, b, {}, {}, True)
            lows, highs = self._bounds(a, b, self.queries)
            pair.low = dict(zip(self.queries, lows, strict=True))
            pair.high = dict(zip(self.queries, highs, strict=True))
            self.pairs.append(pair)

    # -- bounds ---------------------------------------------------------------

    def _problem(self, a: int, b: int, query: str, fixed: dict[str, int]) -> HoleQuery:
        judged = {**self.judgments[query], **fixed}

        def view(run: int) -> TopK:
            return [(d, judged.get(d) if g is None else g) for d, g in self.tops[run][query]]

        # every other run's holes too, at coefficient 0: judged, they join the
        # ideal and can move the pair's mean difference (see core.verdicts)
        others = [(0.0, view(r)) for r in range(len(self.tops)) if r not in (a, b)]
        return query_problem([(1.0, view(a)), (-1.0, view(b)), *others], judged, self.contract)

    def _bounds(self, a: int, b: int, queries: Sequence[str]) -> tuple[list[float], list[float]]:
        problems = [self._problem(a, b, q, {}) for q in queries]
        low, high = ratio_ranges(problems, self.levels, self.contract.k)
        return low.tolist(), high.tolist()

    def _expected_difference(self, a: int, b: int) -> float:
        """The mean difference A − B with every hole at its expected gain under
        the prior (its ideal approximated with those expected gains): which
        run the unjudged documents will most likely favour."""
        return sum(self._expected_at(a, b, query) for query in self.queries)

    def _expected_at(self, a: int, b: int, query: str) -> float:
        """The difference A − B at ``query`` with its holes at their expected gains."""
        gains = np.array([self.contract.gain_of(g) for g in self._grades])
        expected_gain = self.prior @ gains  # per rank
        judged = self.judgments[query]
        best: dict[str, int] = {}
        for run in (a, b):
            for rank, (doc, grade) in enumerate(self.tops[run][query][: self.contract.k]):
                if grade is None and doc not in judged:
                    best[doc] = min(best.get(doc, rank), rank)
        numerator = 0.0
        for sign, run in ((1.0, a), (-1.0, b)):
            for rank, (doc, grade) in enumerate(self.tops[run][query][: self.contract.k]):
                known = judged.get(doc, grade)
                gain = (
                    self.contract.gain_of(known)
                    if known is not None
                    else float(expected_gain[best[doc]])
                )
                numerator += sign * gain / math.log2(rank + 2)
        universe = [self.contract.gain_of(g) for g in judged.values()]
        universe += [float(expected_gain[rank]) for rank in best.values()]
        idcg = ideal(universe, self.contract.k)
        return numerator / idcg if idcg > 0 else 0.0

    def pair_bounds(self, index: int) -> tuple[float, float]:
        pair = self.pairs[index]
        n = len(self.queries) or 1
        return sum(pair.low.values()) / n, sum(pair.high.values()) / n

    def open_pairs(self) -> list[int]:
        """The pairs that could still flip (neither settled nor tied)."""
        result = []
        for index in range(len(self.pairs)):
            low, high = self.pair_bounds(index)
            if not (low > _EPSILON or high < -_EPSILON) and not (low == high == 0):
                result.append(index)
        return result

    # -- judging ----------------------------------------------------------------

    @property
    def prior(self) -> F64:
        """P[rank - 1, grade index] of a hole's grade."""
        counts = self._prior_counts
        total: F64 = counts / counts.sum(axis=1, keepdims=True)
        return total

    def _bounds_if_judged(self, pair_index: int, hole: Hole) -> tuple[F64, F64]:
        """The pair's bounds at the hole's query for each grade the hole could
        get (cached: they change only when that query gets a judgment)."""
        key = (pair_index, hole.query_id, hole.doc_id)
        cached = self._if_judged.get(key)
        if cached is None:
            pair = self.pairs[pair_index]
            problems = [
                self._problem(pair.a, pair.b, hole.query_id, {hole.doc_id: grade})
                for grade in self._grades
            ]
            cached = ratio_ranges(problems, self.levels, self.contract.k)
            self._if_judged[key] = cached
        return cached

    def judge(self, query: str, doc: str, grade: int) -> None:
        """Record a judgment and bring the affected bounds up to date."""
        for hole in self.holes():
            if (hole.query_id, hole.doc_id) == (query, doc) and grade in self._grades:
                # it was a hole: its grade teaches the prior, near its rank too
                for rank in range(self.contract.k):
                    weight = 1.0 / (1.0 + abs(rank - (hole.best_rank - 1)))
                    self._prior_counts[rank, self._grades.index(grade)] += weight
                break
        self.judgments[query][doc] = grade
        self._if_judged = {key: v for key, v in self._if_judged.items() if key[1] != query}
        for pair in self.pairs:
            lows, highs = self._bounds(pair.a, pair.b, [query])
            pair.low[query], pair.high[query] = lows[0], highs[0]

    def holes(self) -> list[Hole]:
        tops = {
            name: {
                q: [(d, self.judgments[q].get(d) if g is None else g) for d, g in lst]
                for q, lst in top.items()
            }
            for name, top in zip(self.names, self.tops, strict=True)
        }
        return find_holes(tops, self.contract.k)

    def expected_moves(self) -> tuple[list[Hole], list[int], F64, F64]:
        """(holes, open pairs, E[move of pair p's binding bound if hole h is
        judged][h, p] under the prior, the distance each binding bound still
        has to go[p])."""
        holes = self.holes()
        open_pairs = self.open_pairs()
        for pair_index in open_pairs:
            # the leader is the run the holes most likely favour, as now known
            pair = self.pairs[pair_index]
            pair.leader_is_a = self._expected_difference(pair.a, pair.b) >= 0
        moves = np.zeros((len(holes), len(open_pairs)))
        remaining = np.zeros(len(open_pairs))
        for column, pair_index in enumerate(open_pairs):
            mean_low, mean_high = self.pair_bounds(pair_index)
            remaining[column] = -mean_low if self.pairs[pair_index].leader_is_a else mean_high
        if not holes or not open_pairs:
            return holes, open_pairs, moves, remaining
        n = len(self.queries)
        prior = self.prior
        for hole_index, hole in enumerate(holes):
            for column, pair_index in enumerate(open_pairs):
                # a hole neither run returned counts too: judged, it rescales
                # its query's difference (see core.verdicts)
                pair = self.pairs[pair_index]
                new_low, new_high = self._bounds_if_judged(pair_index, hole)
                if pair.leader_is_a:
                    moved = new_low - pair.low[hole.query_id]
                else:
                    moved = pair.high[hole.query_id] - new_high
                chance = prior[hole.best_rank - 1]
                single = float(chance @ np.maximum(moved, 0.0)) / n
                moves[hole_index, column] = single
        return holes, open_pairs, moves, remaining

    def priorities(self) -> list[tuple[Hole, float]]:
        """Every hole with its settle priority, best first: the share of the
        remaining way to a verdict it is expected to cover, summed over the
        pairs that could flip."""
        holes, _, moves, remaining = self.expected_moves()
        if not holes:
            return []
        score = (moves / np.maximum(remaining, _EPSILON)[None, :]).sum(axis=1)
        order = sorted(range(len(holes)), key=lambda i: (-score[i], holes[i].best_rank))
        return [(holes[i], float(score[i])) for i in order]
