"""Balanced assignment of units (items or whole queries) to annotators, so that
each unit gets ``overlap`` distinct annotators, and what it leaves unshared.

Units are shuffled with the seed, then each takes, one at a time, an
annotator among those with the least load so far; among them the one who
has shared the fewest units with the annotators already chosen for this unit
(so that every pair shares units, which pairwise agreement needs), then the
round's seeded order of the annotators (drawn afresh each time every
annotator has reached the next load). Taking the least loaded each time keeps
the loads within one unit of each other. The same units, annotators, overlap,
seed and earlier loads always give the same assignment.

The cost is near-linear in units × overlap, whatever the number of
annotators (it was about cubic in them at a large overlap):

- the annotators are kept in buckets by load, so the least loaded are found
  at once, without looking at the others;
- "shared fewest" is counted above the fewest any pair shares
  (`_CountedPairs`), so the first candidate who shares no more than that with
  the unit's others is taken at once: it is one who shared least. Otherwise
  no more than `SEARCH` candidates are looked at, past the first;
- a unit of k annotators holds k(k-1)/2 pairs: above `COUNTED_OVERLAP` they
  are not counted one by one but marked in one bit mask of partners per
  annotator (`_Meetings`), "shared fewest" becomes "met fewest of them since
  every pair last met", and each candidate costs one mask operation.

An assignment can extend an earlier one (``loads`` and ``together``: what the
annotators already hold), so new units go first to those who hold fewest and
to the pairs that share least. `unshared_pairs` counts the pairs of
annotators that share no unit, and `units_for_every_pair` how many units
every pair's sharing one needs at least.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from judgepool.core.terms.errors import InputError

U = TypeVar("U")

# the most candidates looked at for one place of a unit, past the first
SEARCH: Final = 16
# up to this overlap every pair's shared units are counted
COUNTED_OVERLAP: Final = 4
# more than any pair can share
_NEVER: Final = 1 << 62


@dataclass(frozen=True)
class Assigned(Generic[U]):
    """Each assigned unit with its annotators, and the units left without any
    (only when ``per_annotator`` caps the loads)."""

    units: tuple[tuple[U, tuple[str, ...]], ...]
    left_out: tuple[U, ...]

    def loads(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, names in self.units:
            for name in names:
                counts[name] = counts.get(name, 0) + 1
        return counts


class _CountedPairs:
    """How many units each pair of annotators (by number) shares, and the
    fewest any pair shares (``floor``)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.shared: dict[int, int] = {}  # low * count + high -> units
        self.pairs_at = {0: count * (count - 1) // 2}  # units shared -> pairs
        self.floor = 0

    def add(self, members: Sequence[int]) -> None:
        """``members`` share one more unit."""
        ordered = sorted(members)
        for i, low in enumerate(ordered):
            for high in ordered[i + 1 :]:
                key = low * self.count + high
                before = self.shared.get(key, 0)
                self.shared[key] = before + 1
                self.pairs_at[before] -= 1
                self.pairs_at[before + 1] = self.pairs_at.get(before + 1, 0) + 1
        while self.pairs_at.get(self.floor, 0) == 0 and self.floor + 1 in self.pairs_at:
            del self.pairs_at[self.floor]
            self.floor += 1

    def excess(self, candidate: int, chosen: Sequence[int], _mask: int, bound: int) -> int:
        """The units ``candidate`` shares with ``chosen`` above the floor (0:
        as few as any pair), counted until ``bound`` is reached."""
        score = 0
        for other in chosen:
            low, high = (other, candidate) if other < candidate else (candidate, other)
            score += self.shared.get(low * self.count + high, 0) - self.floor
            if score >= bound:
                break
        return score


class _Meetings:
    """Who has shared a unit with whom since every pair last did, one bit mask
    of partners per annotator (by number); when every pair has, they start
    again, so pairs come round evenly."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.partners = [1 << index for index in range(count)]  # each has met themself
        self.unmet = count * (count - 1) // 2

    def add(self, members: Sequence[int]) -> None:
        """``members`` share one more unit."""
        mask = 0
        for member in members:
            mask |= 1 << member
        new = 0
        for member in members:
            before = self.partners[member]
            new += (mask & ~before).bit_count()
            self.partners[member] = before | mask
        self.unmet -= new // 2
        if self.unmet <= 0 and self.count > 1:
            self.partners = [1 << index for index in range(self.count)]
            self.unmet = self.count * (self.count - 1) // 2

    def excess(self, candidate: int, _chosen: Sequence[int], mask: int, _bound: int) -> int:
        """How many of the unit's others (``mask``) ``candidate`` has met."""
        return (self.partners[candidate] & mask).bit_count()


class _Loads:
    """The annotators (by number) in buckets by load, each bucket in the order
    of the round (a seeded permutation, drawn again when every annotator has
    reached the next load); an annotator at the cap is in no bucket."""

    def __init__(self, loads: list[int], cap: int | None, rng: random.Random) -> None:
        self.load = loads
        self.cap = cap
        self.rng = rng
        self.order: list[int] = []  # the round's order: position -> annotator
        self.place: list[int] = []  # annotator -> position
        self.buckets: dict[int, list[int]] = {}  # load -> positions, ascending
        self.lowest = 0
        self.room = 0  # annotators below the cap
        self._new_round()

    def _new_round(self) -> None:
        self.order = list(range(len(self.load)))
        self.rng.shuffle(self.order)
        self.place = [0] * len(self.order)
        self.buckets = {}
        for position, annotator in enumerate(self.order):
            self.place[annotator] = position
            if self.cap is None or self.load[annotator] < self.cap:
                self.buckets.setdefault(self.load[annotator], []).append(position)
        self.lowest = min(self.buckets, default=0)
        self.room = sum(len(bucket) for bucket in self.buckets.values())

    def _loads_upward(self) -> Iterator[int]:
        """The loads of the buckets, the lowest first (the others sorted only
        when the lowest holds no candidate: rarely)."""
        if self.lowest in self.buckets:
            yield self.lowest
        yield from sorted(load for load in self.buckets if load > self.lowest)

    def pick(
        self, chosen: list[int], mask: int, taken: set[int], pairs: _CountedPairs | _Meetings
    ) -> int:
        """Among the least loaded annotators not ``taken``, the first in the
        round's order whose pairs with ``chosen`` (also as a ``mask``) have
        shared least (see the module)."""
        best, best_score, looked = -1, _NEVER, 0
        for load in self._loads_upward():
            for position in self.buckets[load]:
                annotator = self.order[position]
                if annotator in taken:
                    continue
                if not chosen:
                    return annotator
                score = pairs.excess(annotator, chosen, mask, best_score)
                if score < best_score:
                    best, best_score = annotator, score
                    if score == 0:
                        return annotator
                looked += 1
                if looked > SEARCH:
                    return best
            if best >= 0:
                return best
        return best

    def take(self, annotator: int) -> None:
        """One more unit for ``annotator``."""
        load = self.load[annotator]
        bucket = self.buckets[load]
        del bucket[bisect_left(bucket, self.place[annotator])]
        if not bucket:
            del self.buckets[load]
        self.load[annotator] = load + 1
        if self.cap is None or load + 1 < self.cap:
            insort(self.buckets.setdefault(load + 1, []), self.place[annotator])
        else:
            self.room -= 1
        if load == self.lowest and load not in self.buckets and self.buckets:
            self._new_round()


def balanced_assignment(
    units: Sequence[U],
    annotators: Sequence[str],
    overlap: int,
    *,
    seed: int,
    per_annotator: int | None = None,
    loads: Mapping[str, int] | None = None,
    together: Iterable[Sequence[str]] = (),
) -> Assigned[U]:
    """Give each of ``units`` (in a seeded random order) ``overlap`` distinct
    annotators with balanced loads. With ``per_annotator``, no annotator gets
    more than that many units: the units beyond what the loads allow (the
    whole units, each with ``overlap`` annotators) are left out. ``loads``: the
    units each annotator holds already (counted against the cap, and filled up
    first); ``together``: the groups of annotators that already share a unit."""
    if len(set(annotators)) != len(annotators):
        raise InputError("an annotator is listed twice")
    if overlap < 1:
        raise InputError(f"the overlap must be 1 or more, got {overlap}")
    if overlap > len(annotators):
        raise InputError(
            f"an overlap of {overlap} needs {overlap} annotators or more; "
            f"{len(annotators)} given ({', '.join(annotators)})"
        )
    rng = random.Random(seed)
    order = list(units)
    rng.shuffle(order)
    number = {name: index for index, name in enumerate(annotators)}
    held = [0 if loads is None else loads.get(name, 0) for name in annotators]
    state = _Loads(held, per_annotator, rng)
    count = len(annotators)
    pairs = _CountedPairs(count) if overlap <= COUNTED_OVERLAP else _Meetings(count)
    for group in together:
        pairs.add([number[name] for name in group if name in number])
    assigned: list[tuple[U, tuple[str, ...]]] = []
    for unit in order:
        if state.room < overlap:
            break
        chosen: list[int] = []
        taken: set[int] = set()
        mask = 0
        for _ in range(overlap):
            best = state.pick(chosen, mask, taken, pairs)
            chosen.append(best)
            taken.add(best)
            mask |= 1 << best
            state.take(best)
        pairs.add(chosen)
        chosen.sort()
        assigned.append((unit, tuple(annotators[index] for index in chosen)))
    return Assigned(tuple(assigned), tuple(order[len(assigned) :]))


def unshared_pairs(groups: Iterable[Sequence[str]], annotators: Sequence[str]) -> int:
    """How many pairs of ``annotators`` share no group (each group: the
    annotators of one unit). One bit mask of partners per annotator, so the
    cost is one mask operation per annotator of each unit."""
    number = {name: index for index, name in enumerate(annotators)}
    partners = [0] * len(annotators)
    for group in groups:
        members = [number[name] for name in group if name in number]
        mask = 0
        for member in members:
            mask |= 1 << member
        for member in members:
            partners[member] |= mask
    met = sum(mask.bit_count() - 1 for mask in partners if mask) // 2
    return len(annotators) * (len(annotators) - 1) // 2 - met


def units_for_every_pair(annotators: int, overlap: int) -> int:
    """The fewest units with which every pair of ``annotators`` can share one,
    at ``overlap`` annotators per unit and loads within one: each annotator
    must meet the others, ``overlap - 1`` of them per unit at most."""
    if annotators < 2 or overlap < 2:
        return 0
    per_annotator = math.ceil((annotators - 1) / (overlap - 1))
    return math.ceil(annotators * per_annotator / overlap)
