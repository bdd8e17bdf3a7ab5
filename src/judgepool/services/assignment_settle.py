"""The settle budget of an assignment (``judgepool assign --settle N``): at
most N of its items open (assigned, and judged by nobody yet), filled with
the first holes in settle order (`judgepool.services.settle_holes`) that can
be assigned.

A new assignment takes the first N. Extending one keeps its budget (or takes
the one given) and tops it up: as many holes as its items no longer open, so
the queues never hold more than the budget of holes however far the pool
grew (extending used to hand out every new hole). "Open" is not judged by a
person, an import or an adjudicator: an item only a model labelled is open
(`judgepool.store.assignments.judged_items`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judgepool.services.settle_holes import workspace_settle_order
from judgepool.store.assignments import StoredAssignment
from judgepool.store.workspace import Workspace

Item = tuple[str, str]


@dataclass(frozen=True)
class SettlePick:
    """What the settle budget took: ``budget`` open items at most, of which
    the assignment extended still held ``still_open`` (0 for a new one), so
    ``wanted`` more; the first ``taken`` holes in settle order that could be
    assigned (of ``holes`` in all; 0 when none was wanted, and the order was
    not computed), and the holes passed over before them, by why.
    ``kept_from``: the assignment whose budget this is, when extending kept it."""

    wanted: int
    holes: int
    taken: int
    passed_over: dict[str, int]
    budget: int = 0
    still_open: int = 0
    kept_from: int | None = None


def settle_pick(
    ws: Workspace,
    budget: int,
    candidates: Sequence[Item],
    why_not: dict[Item, str],
    held_rows: Sequence[tuple[str, str, str]],
    judged: set[Item],
    *,
    kept_from: StoredAssignment | None = None,
) -> tuple[list[Item], SettlePick]:
    """The holes to assign under ``budget``: the first in settle order among
    ``candidates`` (``why_not``: the reason an item is not one; a hole in
    neither is not pooled), as many as ``budget`` less the items of
    ``held_rows`` not ``judged``."""
    still_open = len({(query_id, doc_id) for _, query_id, doc_id in held_rows} - judged)
    wanted = max(budget - still_open, 0)
    kept = None if kept_from is None else kept_from.id
    if wanted == 0:
        return [], SettlePick(0, 0, 0, {}, budget, still_open, kept)
    eligible = set(candidates)
    listing = workspace_settle_order(ws)
    taken: list[Item] = []
    passed: dict[str, int] = {}
    for entry in listing.holes:
        if len(taken) == wanted:
            break
        item = (entry.hole.query_id, entry.hole.doc_id)
        if item in eligible:
            taken.append(item)
        else:
            reason = why_not.get(item, "not pooled")
            passed[reason] = passed.get(reason, 0) + 1
    pick = SettlePick(wanted, listing.total, len(taken), passed, budget, still_open, kept)
    return taken, pick
