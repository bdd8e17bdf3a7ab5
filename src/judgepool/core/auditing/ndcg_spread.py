"""How one run's per-query nDCG is spread: its five numbers (lowest, lower
quartile, median, upper quartile, highest), what the scores screen's box
plot draws for each run.

The quartiles interpolate linearly between the sorted values (numpy's
default percentile, as most plots use); a query with no value (left out of
the mean) is counted apart, never as 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class NdcgSpread:
    """One run's per-query nDCG: its five numbers (None: no value at all),
    how many queries had a value, and how many had none."""

    run: str
    five: tuple[float, float, float, float, float] | None
    queries: int
    undefined: int


def ndcg_spread(run: str, values: Iterable[float | None]) -> NdcgSpread:
    """The spread of ``run``'s per-query values (None: an excluded query)."""
    given = list(values)
    defined = np.array([v for v in given if v is not None], dtype=np.float64)
    undefined = len(given) - int(defined.size)
    if not defined.size:
        return NdcgSpread(run, None, 0, undefined)
    low, q1, median, q3, high = (float(v) for v in np.percentile(defined, [0, 25, 50, 75, 100]))
    return NdcgSpread(run, (low, q1, median, q3, high), int(defined.size), undefined)
