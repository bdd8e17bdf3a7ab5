"""The bounds problems of a whole comparison, built as arrays at once.

`judgepool.core.comparing.bounds.query_problem` builds one query's problem as a
`HoleQuery`, and `ratio_ranges` turns a list of them back into arrays: plain,
and the reference, but a comparison of six runs over 7,000 queries asks for
21 problems per query (six runs, fifteen pairs), 146,580 objects. This module
reads every run's top k once, gives every hole of a query one column (the
union of all runs' holes), and derives each run's and each pair's problem from
that table with array operations, in the layout `bounds.bound_arrays` takes.

The numbers are those of `query_problem`, to the last bit: a run's or a pair's
constant is summed term by term in the same order (the first list's judged
positions by rank, then the second's), and a hole's coefficient is the same
sum of signed discounts. The tests hold the two to each other on random cases.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from judgepool.core.comparing.bounds import TopK
from judgepool.core.terms.contract import Contract

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
# a judged grade's cell while the table is read: far below any hole's column
# (≥ 0) and the absent position (-1) for every grade a scale allows
_JUDGED: Final = 2**40
_ABSENT: Final = -1


@dataclass(frozen=True)
class BoundsArrays:
    """Problems in `bounds.bound_arrays`' layout, one row per problem."""

    constants: F64
    coefficients: F64
    holes: I64
    judged: I64
    zero_values: F64


@dataclass(frozen=True)
class HoleTable:
    """Every run's top k of a set of queries against the union of their holes.

    ``terms[q, r, i]``: run r's signed-free DCG term (gain / log2(i + 2)) at
    position i of query q, where the document there is judged (``judged_at``);
    ``coefficient[q, r, u]``: the discounts run r puts on hole u (0 if it did
    not return it); ``present[q, r, u]``: whether run r returned hole u;
    ``union[q]``: the number of distinct holes; ``judged[q, j]``: judged
    documents with gain ≥ the j-th gain level; ``policy``: the zero-IDCG
    value of one nDCG (NaN: excluded)."""

    terms: F64
    judged_at: Bools
    coefficient: F64
    present: Bools
    union: I64
    judged: I64
    policy: float

    @classmethod
    def build(
        cls,
        tops: Sequence[Mapping[str, TopK]],
        queries: Sequence[str],
        judgments: Mapping[str, Mapping[str, int]],
        contract: Contract,
        thresholds: Sequence[float],
    ) -> HoleTable:
        """The table of ``queries`` (each run's ``tops`` by query)."""
        count, runs = len(queries), len(tops)
        # positions past the longest list hold nothing: the table stops there
        longest = max((max(map(len, top.values()), default=0) for top in tops), default=0)
        k = min(contract.k, longest)
        # the weights as `query_problem` computes them (with math.log2): the
        # products below are then the same floating-point operations
        discounts = np.array([1.0 / math.log2(position + 1) for position in range(1, k + 1)])
        # One pass in Python over every listed document, writing one integer
        # per (query, run, position): a hole's column in its query's union of
        # holes (≥ 0), a judged document's grade shifted far below 0, or -1
        # where the list is shorter than k. The numbers come from arrays after.
        cells: list[int] = []
        union_sizes: list[int] = []
        for query_id in queries:
            columns: dict[str, int] = {}
            column_of = columns.setdefault
            for top in tops:
                listed = top.get(query_id, ())[:k]
                cells.extend(
                    [
                        column_of(doc, len(columns)) if grade is None else grade - _JUDGED
                        for doc, grade in listed
                    ]
                )
                if len(listed) < k:
                    cells.extend([_ABSENT] * (k - len(listed)))
            union_sizes.append(len(columns))
        cell = np.array(cells, dtype=np.int64).reshape(count, runs, k)
        union = np.array(union_sizes, dtype=np.int64).reshape(count)
        judged = _judged_counts(queries, judgments, contract, thresholds)

        judged_at = cell < _ABSENT
        grades, grade_index = np.unique(cell[judged_at] + _JUDGED, return_inverse=True)
        gains = np.array([contract.gain_of(int(g)) for g in grades], dtype=np.float64)
        terms = np.zeros((count, runs, k), dtype=np.float64)
        positions = np.broadcast_to(np.arange(k), cell.shape)
        terms[judged_at] = discounts[positions[judged_at]] * gains[grade_index.ravel()]

        width = int(union.max()) if count else 0
        coefficient = np.zeros((count, runs, width), dtype=np.float64)
        present = np.zeros((count, runs, width), dtype=np.bool_)
        hole_q, hole_r, hole_position = np.nonzero(cell >= 0)
        hole_column = cell[hole_q, hole_r, hole_position]
        at = (hole_q, hole_r, hole_column)
        # in rank order (np.nonzero's order), as `query_problem` adds a
        # document's discounts: a list holding one document twice sums them
        np.add.at(coefficient, at, discounts[hole_position])
        present[at] = True
        policy = {"zero": 0.0, "one": 1.0, "exclude": math.nan}[contract.zero_idcg]
        return cls(terms, judged_at, coefficient, present, union, judged, policy)

    def run(self, r: int) -> BoundsArrays:
        """Run r's own problems: over the holes of every run (a hole another run
        returned has coefficient 0 here but joins the ideal)."""
        count, _, k = self.terms.shape
        constants = np.zeros(count, dtype=np.float64)
        for i in range(k):
            step = constants + self.terms[:, r, i]
            constants = np.where(self.judged_at[:, r, i], step, constants)
        return BoundsArrays(
            constants,
            self.coefficient[:, r, :].copy(),
            self.union.copy(),
            self.judged,
            np.full(count, self.policy),
        )

    def pair(self, a: int, b: int) -> BoundsArrays:
        """The problems of nDCG(a) − nDCG(b): over the holes of every compared
        run. A hole neither a nor b returned has coefficient 0 but joins the
        query's ideal when judged; that rescales the query's difference, and
        rescaling the queries unequally can change the sign of the mean."""
        count, _, k = self.terms.shape
        constants = np.zeros(count, dtype=np.float64)
        for r, sign in ((a, 1.0), (b, -1.0)):
            for i in range(k):
                step = constants + sign * self.terms[:, r, i]
                constants = np.where(self.judged_at[:, r, i], step, constants)
        zero = 0.0 if not math.isnan(self.policy) else math.nan
        return BoundsArrays(
            constants,
            self.coefficient[:, a, :] - self.coefficient[:, b, :],
            self.union.copy(),
            self.judged,
            np.full(count, zero),
        )

    def own_holes(self, a: int, b: int) -> I64:
        """Per query, the holes that run a or run b returned."""
        counts: I64 = (self.present[:, a, :] | self.present[:, b, :]).sum(axis=1).astype(np.int64)
        return counts

    # Many runs at once. `run` and `pair` build one problem set per call: with
    # 63 runs that is 2,016 calls, each a few dozen small array operations and
    # a solver call of 54 rows, where Python's overhead was most of the time.
    # The methods below give the same rows for every run, or for a block of
    # pairs, stacked (row = run or pair × queries + query), each number the
    # same floating-point operations as `run` and `pair` make (the tests hold
    # them to those bit for bit).

    def run_constants(self) -> F64:
        """``[r, q]``: the constant of `run` (r)'s problem q: each run's judged
        terms added in rank order, as `run` adds them."""
        count, runs, k = self.terms.shape
        constants = np.zeros((runs, count), dtype=np.float64)
        for i in range(k):
            step = constants + self.terms[:, :, i].T
            constants = np.where(self.judged_at[:, :, i].T, step, constants)
        return constants

    def every_run(self, constants: F64) -> BoundsArrays:
        """`run` (r) for every r, stacked run by run; ``constants`` from
        `run_constants`."""
        count, runs, _ = self.terms.shape
        return BoundsArrays(
            constants.reshape(runs * count),
            self.coefficient.transpose(1, 0, 2).reshape(runs * count, -1),
            np.tile(self.union, runs),
            np.tile(self.judged, (runs, 1)),
            np.full(runs * count, self.policy),
        )

    def pairs_at(self, q: int, a: I64, b: I64, constants: F64) -> BoundsArrays:
        """Query q's row of `pair` (a[p], b[p]) for every p, stacked pair by
        pair; ``constants`` from `run_constants`. A's terms come first, as
        `pair` adds them (its sum over A alone is A's run constant: 1.0 · x is
        x), then B's negated. Only the query's own holes are columns: the
        solver's answer for a row does not depend on how far it is padded, and
        its work grows with the width (the widest query's, in `pair`)."""
        pairs, k = a.size, self.terms.shape[2]
        summed = constants[a, q]
        for i in range(k):
            step = summed + -self.terms[q, b, i]
            summed = np.where(self.judged_at[q, b, i], step, summed)
        width = int(self.union[q])
        zero = 0.0 if not math.isnan(self.policy) else math.nan
        return BoundsArrays(
            summed,
            self.coefficient[q, a, :width] - self.coefficient[q, b, :width],
            np.full(pairs, self.union[q], dtype=np.int64),
            np.tile(self.judged[q], (pairs, 1)),
            np.full(pairs, zero),
        )

    def own_holes_of(self, a: I64, b: I64) -> I64:
        """`own_holes` (a[p], b[p]) summed over the queries, for every p."""
        either = self.present[:, a, :] | self.present[:, b, :]
        counts: I64 = either.sum(axis=(0, 2)).astype(np.int64)
        return counts


def _judged_counts(
    queries: Sequence[str],
    judgments: Mapping[str, Mapping[str, int]],
    contract: Contract,
    thresholds: Sequence[float],
) -> I64:
    """``[q, j]``: query q's judged documents with gain ≥ the j-th level."""
    gain_of = contract.gain_of
    gains: list[float] = []
    owners: list[int] = []
    for q, query_id in enumerate(queries):
        grades = judgments[query_id].values()
        gains.extend(map(gain_of, grades))
        owners.extend([q] * len(grades))
    gain = np.array(gains, dtype=np.float64)
    owner = np.array(owners, dtype=np.int64)
    counts = [np.bincount(owner[gain >= level], minlength=len(queries)) for level in thresholds]
    return np.array(counts, dtype=np.int64).reshape(len(thresholds), len(queries)).T.copy()
