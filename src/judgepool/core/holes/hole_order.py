"""The holes of several runs ordered for reading, as the app's list of every
run's holes shows them.

Depth first, as pooling judges: a document at rank 1 of some run before one
at rank 2 of any. Among the holes at the same best rank, one that more runs
returned first (judging it moves more runs' scores); then by query and
document ID, so the order never depends on the order the runs were read in.
`judgepool.core.holes.settle.depth_order` is the command line's round-robin over
the runs in the order given; this one needs no run order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from judgepool.core.holes.settle import Hole


def best_rank_first(holes: Iterable[Hole]) -> list[Hole]:
    """``holes`` by best rank, then by how many runs returned them (more
    first), then by query and document ID."""
    return sorted(holes, key=lambda h: (h.best_rank, -len(h.runs), h.query_id, h.doc_id))


@dataclass(frozen=True)
class HoleCounts:
    """How many holes, on how many queries, in how many runs."""

    holes: int
    queries: int
    runs: int


def count_holes(holes: Iterable[Hole]) -> HoleCounts:
    """The holes, the queries they are on and the runs that returned them."""
    listed = list(holes)
    return HoleCounts(
        len(listed),
        len({hole.query_id for hole in listed}),
        len({run for hole in listed for run in hole.runs}),
    )
