"""The run as the fast engine reads it: `ColumnarRun` in, `Run` inside."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from judgepool.core.arrow import string_array
from judgepool.core.fast.arrays import FloatArray, IntArray


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
    contiguous string arrays for the IDs, float64 scores, int64 ranks, and the
    1-based line numbers (None: row ``i`` is line ``i + 1``)."""

    size: int
    query_ids: pa.Array
    doc_ids: pa.Array
    scores: FloatArray
    ranks: IntArray
    lines: IntArray | None

    @classmethod
    def of(cls, columns: ColumnarRun) -> Run:
        scores = np.asarray(columns.scores, dtype=np.float64)
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
