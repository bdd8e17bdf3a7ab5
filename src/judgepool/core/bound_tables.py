"""The bounds problems of a whole comparison, built as arrays at once.

`judgepool.core.bounds.query_problem` builds one query's problem as a
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

import numpy as np
import numpy.typing as npt

from judgepool.core.bounds import TopK
from judgepool.core.contract import Contract

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


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
        k = contract.k
        count, runs = len(queries), len(tops)
        # the weights as `query_problem` computes them, with math.log2
        discounts = [1.0 / math.log2(position + 1) for position in range(1, k + 1)]
        gain_of = contract.gain_of
        terms = np.zeros((count, runs, k), dtype=np.float64)
        judged_at = np.zeros((count, runs, k), dtype=np.bool_)
        term_at: list[int] = []
        term_value: list[float] = []
        hole_at: list[int] = []  # flat index into (count, runs, width) once width is known
        hole_column: list[int] = []
        hole_value: list[float] = []
        union = np.zeros(count, dtype=np.int64)
        judged = np.zeros((count, len(thresholds)), dtype=np.int64)
        for q, query_id in enumerate(queries):
            columns: dict[str, int] = {}
            for r, top in enumerate(tops):
                base = (q * runs + r) * k
                for position, (doc, grade) in enumerate(top.get(query_id, ())[:k]):
                    if grade is None:
                        hole_at.append(q * runs + r)
                        hole_column.append(columns.setdefault(doc, len(columns)))
                        hole_value.append(discounts[position])
                    else:
                        term_at.append(base + position)
                        term_value.append(discounts[position] * gain_of(grade))
            union[q] = len(columns)
            gains = [g for g in map(gain_of, judgments[query_id].values()) if g > 0]
            judged[q] = [sum(g >= level for g in gains) for level in thresholds]
        terms.ravel()[term_at] = term_value
        judged_at.ravel()[term_at] = True
        width = int(union.max()) if count else 0
        coefficient = np.zeros((count, runs, width), dtype=np.float64)
        present = np.zeros((count, runs, width), dtype=np.bool_)
        flat = np.array(hole_at, dtype=np.int64) * width + np.array(hole_column, dtype=np.int64)
        # in rank order, as `query_problem` adds a document's discounts
        np.add.at(coefficient.ravel(), flat, np.array(hole_value, dtype=np.float64))
        present.ravel()[flat] = True
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
        """The problems of nDCG(a) − nDCG(b): over the holes of a and b only."""
        count, _, k = self.terms.shape
        constants = np.zeros(count, dtype=np.float64)
        for r, sign in ((a, 1.0), (b, -1.0)):
            for i in range(k):
                step = constants + sign * self.terms[:, r, i]
                constants = np.where(self.judged_at[:, r, i], step, constants)
        present = self.present[:, a, :] | self.present[:, b, :]
        differences = self.coefficient[:, a, :] - self.coefficient[:, b, :]
        # the pair's holes first, in column order: `bound_arrays` reads a row's
        # first ``holes`` columns
        order = np.argsort(~present, axis=1, kind="stable")
        coefficients = np.take_along_axis(differences, order, axis=1)
        zero = 0.0 if not math.isnan(self.policy) else math.nan
        return BoundsArrays(
            constants,
            coefficients,
            present.sum(axis=1).astype(np.int64),
            self.judged,
            np.full(count, zero),
        )
