"""One pair's per-query differences, sorted, with the queries whose sign the
holes could reverse: what the pairs view plots.

A query's difference nDCG(A) − nDCG(B) has exact bounds over every grade the
unjudged documents could get (`judgepool.core.comparing.bounds`, per query as the
comparison computes them). The holes could *reverse* the query when those
bounds reach the other side of 0: A ahead now (difference > 0) and the lowest
bound below 0, or B ahead and the highest bound above 0. A tied query (0) has
no sign to reverse and is never marked; nor is a query without bounds (a
contract that gives none, or one the bounds leave out).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class QueryDifference:
    """One query's difference A − B, its bounds under the holes (None: none),
    and whether the holes could reverse its sign."""

    query_id: str
    diff: float
    bounds: tuple[float, float] | None
    reversible: bool


def could_reverse(diff: float, bounds: tuple[float, float] | None) -> bool:
    """Whether grades of the holes could give the query the other sign."""
    if bounds is None:
        return False
    low, high = bounds
    if math.isnan(low) or math.isnan(high):
        return False
    return (diff > 0 and low < 0) or (diff < 0 and high > 0)


def sorted_differences(
    queries: Sequence[str],
    diffs: Sequence[float],
    bounds: Sequence[tuple[float, float]] | None = None,
) -> tuple[QueryDifference, ...]:
    """Each query's difference, lowest first (ties by query ID, so the order
    is the same every time), marked where the holes could reverse it.
    ``bounds`` is per query in the order of ``queries`` (None: no bounds)."""
    if len(diffs) != len(queries) or (bounds is not None and len(bounds) != len(queries)):
        raise ValueError("one difference (and one bounds pair) per query")
    rows = [
        QueryDifference(
            query_id,
            diff,
            None if bounds is None else bounds[i],
            could_reverse(diff, None if bounds is None else bounds[i]),
        )
        for i, (query_id, diff) in enumerate(zip(queries, diffs, strict=True))
    ]
    return tuple(sorted(rows, key=lambda row: (row.diff, row.query_id)))
