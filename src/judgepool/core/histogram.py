"""Per-query nDCG values counted in equal bins over [0, 1]."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Histogram:
    """Counts of per-query nDCG in equal bins over [0, 1] (the last bin holds 1.0),
    and how many queries had no value (left out of the mean)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]
    undefined: int


def ndcg_histogram(values: Iterable[float | None], bins: int = 10) -> Histogram:
    """Bin per-query nDCG values; None (an excluded query) is counted apart."""
    if bins <= 0:
        raise ValueError(f"bins must be positive, got {bins}")
    counts = [0] * bins
    undefined = 0
    for value in values:
        if value is None:
            undefined += 1
            continue
        index = min(int(value * bins), bins - 1) if value > 0 else 0
        counts[index] += 1
    edges = tuple(i / bins for i in range(bins + 1))
    return Histogram(edges, tuple(counts), undefined)
