"""Two annotators' confusion table: on the items both graded, how often A's
grade g went with B's grade h. What the agreement screen's heat map shows for
the highlighted pair.

Rows are A's grades, columns B's, both over the grades either of them gave on
the shared items (sorted), so the table has no empty row or column of a grade
neither used. The diagonal is where they agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PairConfusion:
    """``counts[i][j]``: the shared items A graded ``grades[i]`` and B ``grades[j]``."""

    a: str
    b: str
    grades: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]

    @property
    def items(self) -> int:
        return sum(sum(row) for row in self.counts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "grades": list(self.grades),
            "counts": [list(row) for row in self.counts],
        }


def pair_confusion(a: str, b: str, grades_a: Floats, grades_b: Floats) -> PairConfusion:
    """The table of ``a`` against ``b`` (one grade per item, NaN: not graded)."""
    if grades_a.shape != grades_b.shape:
        raise ValueError("one grade of each annotator per item")
    shared = ~np.isnan(grades_a) & ~np.isnan(grades_b)
    x = grades_a[shared].astype(np.int64)
    y = grades_b[shared].astype(np.int64)
    grades = tuple(int(g) for g in np.unique(np.concatenate([x, y])))
    index = {grade: i for i, grade in enumerate(grades)}
    counts = np.zeros((len(grades), len(grades)), dtype=np.int64)
    for row, column in zip(x.tolist(), y.tolist(), strict=True):
        counts[index[row], index[column]] += 1
    return PairConfusion(a, b, grades, tuple(tuple(int(c) for c in row) for row in counts))
