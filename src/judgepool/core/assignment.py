"""Balanced assignment of units (items or whole queries) to annotators, so that
each unit gets ``overlap`` distinct annotators.

Units are shuffled with the seed, then each takes, one at a time, an
annotator among those with the least load so far; among them the one who
has shared the fewest units with the annotators already chosen for this unit
(so that every pair shares items, which pairwise agreement needs), and then
the seeded shuffle's order. Taking the least loaded each time keeps the loads
within one unit of each other. The same units, annotators, overlap and seed
always give the same assignment.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from judgepool.core.errors import InputError

U = TypeVar("U")


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


def balanced_assignment(
    units: Sequence[U],
    annotators: Sequence[str],
    overlap: int,
    *,
    seed: int,
    per_annotator: int | None = None,
) -> Assigned[U]:
    """Give each of ``units`` (in a seeded random order) ``overlap`` distinct
    annotators with balanced loads. With ``per_annotator``, no annotator gets
    more than that many units: the units beyond what the loads allow (the
    whole units, each with ``overlap`` annotators) are left out."""
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
    capacity = len(order)
    if per_annotator is not None:
        capacity = min(capacity, per_annotator * len(annotators) // overlap)
    rank = {name: index for index, name in enumerate(rng.sample(list(annotators), len(annotators)))}
    load = dict.fromkeys(annotators, 0)
    shared: dict[tuple[str, str], int] = {}
    assigned: list[tuple[U, tuple[str, ...]]] = []
    for unit in order[:capacity]:
        chosen: list[str] = []
        for _ in range(overlap):
            candidates = [name for name in annotators if name not in chosen]
            least = min(load[name] for name in candidates)
            best = min(
                (name for name in candidates if load[name] == least),
                key=lambda name: (
                    sum(shared.get(_pair(name, other), 0) for other in chosen),
                    rank[name],
                ),
            )
            chosen.append(best)
            load[best] += 1
        for i, first in enumerate(chosen):
            for second in chosen[i + 1 :]:
                key = _pair(first, second)
                shared[key] = shared.get(key, 0) + 1
        # the rotation moves on, so ties do not always favour the same annotator
        rank = {name: (value - 1) % len(annotators) for name, value in rank.items()}
        assigned.append((unit, tuple(sorted(chosen, key=annotators.index))))
    return Assigned(tuple(assigned), tuple(order[capacity:]))


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)
