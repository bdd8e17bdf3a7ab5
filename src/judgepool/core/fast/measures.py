"""The sums behind every measure, over sparse terms: only judged lines carry gain.

DCG, ideal DCG, tie ranges and the unjudged scenarios are sums of gain times
discount. They are added in rank order with `numpy.bincount` (a plain
sequential loop), from the same discount and gain values as `metrics.py`, so
the sums are those of the reference, bit for bit, not merely close.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from judgepool.core.fast.arrays import EMPTY_FLOATS, FloatArray, IntArray, first_of_each
from judgepool.core.scoring.metrics import normalise
from judgepool.core.terms.contract import Contract, ZeroIdcgPolicy


@dataclass(frozen=True, eq=False)
class Cutoff:
    """The cutoff k, and the discount of every place that can count: places
    ``0..size - 1`` with size at most k (no list or universe is longer)."""

    k: int
    discounts: FloatArray

    @classmethod
    def of(cls, k: int, longest: int) -> Cutoff:
        """The cutoff for lists and universes of at most ``longest`` entries."""
        size = min(k, longest)
        # 1 / log2(place + 1) at 1-based place, as metrics.discount, bit for bit
        discounts = [1.0 / math.log2(i + 1) for i in range(1, size + 1)]
        return cls(k, np.array(discounts, dtype=np.float64))

    def prefix_sums(self) -> FloatArray:
        """``prefix_sums()[n]``: the discounts of the first n places added up."""
        sums: FloatArray = np.concatenate(([0.0], np.cumsum(self.discounts)))
        return sums


class GainTable:
    """`Contract.gain_of` over arrays of grades."""

    def __init__(self, contract: Contract) -> None:
        scale = contract.scale
        self._lowest, self._highest = scale.minimum, scale.maximum
        self._gains = np.array([contract.gains[grade] for grade in scale.grades], dtype=np.float64)

    def __call__(self, grades: IntArray) -> FloatArray:
        # as Contract.gain_of: grades <= 0 gain 0; a positive grade outside the
        # scale (which the qrels reader never lets through) is a KeyError there too
        if grades.size == 0:
            return EMPTY_FLOATS
        outside = (grades > 0) & ((grades < self._lowest) | (grades > self._highest))
        if outside.any():
            raise KeyError(int(grades[outside][0]))
        index = np.clip(grades - self._lowest, 0, self._gains.size - 1)
        gains: FloatArray = np.where(grades > 0, self._gains[index], 0.0)
        return gains


def sum_in_order(groups: IntArray, places: IntArray, values: FloatArray, count: int) -> FloatArray:
    """Per group (of ``0..count - 1``), the sum of ``values`` added in order of
    place (as the reference adds its terms); zero terms may be left out, they
    change no sum."""
    if groups.size == 0:
        return np.zeros(count, dtype=np.float64)
    key = groups * (int(places.max()) + 1) + places
    if np.any(key[1:] < key[:-1]):
        # the terms come as a few runs already in order: timsort merges them
        in_order = np.argsort(key, kind="stable")
        groups, values = groups[in_order], values[in_order]
    return np.bincount(groups, weights=values, minlength=count).astype(np.float64)


@dataclass(frozen=True, eq=False)
class AddedCopies:
    """``counts[g]`` more entries of gain ``gain`` in group g (the unjudged
    documents of a top k, given one grade)."""

    counts: IntArray
    gain: float


def ideal(
    groups: IntArray,
    gains: FloatArray,
    count: int,
    cutoff: Cutoff,
    added: AddedCopies | None = None,
) -> FloatArray:
    """Per group, the DCG@k of its gains sorted best first (`metrics.ideal_dcg`),
    with the ``added`` copies merged in.

    The copies form one run of places; their sum comes from prefix sums of the
    discounts, added to the in-order sum of the other terms, so these values
    can differ from the reference's in the last bits (never by 1e-15 of the
    value) where every other sum here equals it exactly.
    """
    k, discounts = cutoff.k, cutoff.discounts
    positive = gains > 0
    groups, gains = groups[positive], gains[positive]
    best_first = np.lexsort((-gains, groups))
    groups, gains = groups[best_first], gains[best_first]
    first = first_of_each(groups, count)
    place = np.arange(groups.size, dtype=np.int64) - first[groups]
    copies: FloatArray | None = None
    if added is not None and added.gain > 0:
        better = np.bincount(groups[gains > added.gain], minlength=count).astype(np.int64)
        place = place + np.where(place >= better[groups], added.counts[groups], 0)
        prefix = cutoff.prefix_sums()
        copies = added.gain * (
            prefix[np.minimum(better + added.counts, k)] - prefix[np.minimum(better, k)]
        )
    inside = place < k
    groups, place = groups[inside], place[inside]
    total = sum_in_order(groups, place, gains[inside] * discounts[place], count)
    return total if copies is None else total + copies


def normalised(dcg: FloatArray, idcg: FloatArray, zero_idcg: ZeroIdcgPolicy) -> list[float | None]:
    """`metrics.normalise` over arrays: dcg / idcg where idcg > 0, else the
    ``zero_idcg`` policy's value (None: left out of the mean)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        values: list[float | None] = np.where(idcg > 0, dcg / idcg, 0.0).tolist()
    zero = np.flatnonzero(~(idcg > 0)).tolist()
    if zero:
        fill = normalise(0.0, 0.0, zero_idcg)
        for index in zero:
            values[index] = fill
    return values
