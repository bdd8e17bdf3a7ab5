"""The run as the fast engine reads it: `ColumnarRun` in, `Run` inside.

`Run.scores` are the scores as the contract compares them: every step that
compares scores (the ranked order, the tie groups of the tie range and of the
audit, the rank disagreements) reads them, so the contract's
``score_precision`` is applied once, here (`ranking.compared_score` is the
reference): under ``single``, numpy's float64 to float32 conversion, the
same round to nearest, ties to even, as C's cast from double to float, with
an infinity beyond the largest float.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, assert_never

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from judgepool.core.fast.arrays import FloatArray, IntArray
from judgepool.core.scoring.arrow import string_array
from judgepool.core.terms.contract import ScorePrecision


class ColumnarRun(Protocol):
    """What `evaluate_columns` reads from a run: `formats.fast_run.RunColumns`
    (or the store's columns with the same attributes). Rows are the run's lines
    in source order."""

    @property
    def query_ids(self) -> pa.Array: ...

    @property
    def doc_ids(self) -> pa.Array: ...

    @property
    def scores(self) -> npt.NDArray[np.float64]: ...

    @property
    def ranks(self) -> npt.NDArray[np.int64]: ...

    @property
    def lines(self) -> npt.NDArray[np.int64] | None: ...


@dataclass(frozen=True, eq=False)
class Run:
    """The run's columns, checked and in the types the engine computes with:
    contiguous string arrays for the IDs, float64 scores (at the contract's
    precision), int64 ranks, and the 1-based line numbers (None: row ``i`` is
    line ``i + 1``)."""

    size: int
    query_ids: pa.Array
    doc_ids: pa.Array
    scores: FloatArray
    ranks: IntArray
    lines: IntArray | None

    @classmethod
    def of(cls, columns: ColumnarRun, precision: ScorePrecision) -> Run:
        scores = compared_scores(np.asarray(columns.scores, dtype=np.float64), precision)
        ranks = np.asarray(columns.ranks, dtype=np.int64)
        lines = None if columns.lines is None else np.asarray(columns.lines, dtype=np.int64)
        query_ids = string_array(columns.query_ids)
        doc_ids = string_array(columns.doc_ids)
        size = len(scores)
        if not (len(query_ids) == len(doc_ids) == len(ranks) == size) or (
            lines is not None and len(lines) != size
        ):
            raise ValueError("the run's columns differ in length")
        return cls(size, query_ids, doc_ids, scores, ranks, lines)

    def line_numbers(self, rows: IntArray) -> list[int]:
        """The 1-based source line of each row."""
        chosen = rows + 1 if self.lines is None else self.lines[rows]
        numbers: list[int] = chosen.tolist()
        return numbers


def compared_scores(scores: FloatArray, precision: ScorePrecision) -> FloatArray:
    """The scores as the contract compares them, as float64 (for ``single``,
    each one rounded to a float32 and widened again, which is exact)."""
    match precision:
        case "double":
            return scores
        case "single":
            with np.errstate(over="ignore"):  # beyond the largest float: an infinity
                narrowed: FloatArray = scores.astype(np.float32).astype(np.float64)
            return narrowed
        case _:
            assert_never(precision)
