"""The disagreements listing (``judgepool disagreements``, and the
adjudication queue): the items whose compared raters hold different grades,
each with every grade's annotator, time and latest note, filtered by how far
apart the compared grades are and whether an adjudicator has settled it, and
counted.

The raters compared are the people who graded, unless raters are named
(`judgepool.services.raters`: imported qrels and a model's labels only when
named, as agreement compares them); the listing says which raters it left
out. A disagreement is resolved once an adjudicator has settled the item (the
``adjudicated`` consensus takes the adjudication); until then it is
unresolved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from judgepool.core.team.consensus import Disagreement, differ, gap
from judgepool.core.team.raters import LeftOut, left_out
from judgepool.core.terms.errors import InputError
from judgepool.services.consensus import disagreements
from judgepool.services.raters import compared_raters
from judgepool.store.notes import GradeDetail, grade_details
from judgepool.store.ratings import current_ratings
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class ListedDisagreement:
    """A disagreement with the details of each grade; ``compared``: the grades
    of the compared raters, (rater, grade) by rater."""

    item: Disagreement
    details: tuple[GradeDetail, ...]
    compared: tuple[tuple[str, int], ...] = ()

    @property
    def gap(self) -> int:
        """How far apart the compared grades are (every grade's, when none is)."""
        return gap([grade for _, grade in self.compared or self.item.grades])

    @property
    def resolved(self) -> bool:
        """An adjudicator has settled the item."""
        return self.item.settled


@dataclass(frozen=True)
class DisagreementListing:
    """What the listing shows (``listed``: unresolved first, then by query and
    document), the counts over every disagreement of the compared raters
    (``raters``), and what was left out."""

    listed: tuple[ListedDisagreement, ...]
    total: int
    unresolved: int
    min_gap: int
    unresolved_only: bool
    raters: tuple[str, ...] = ()
    left_out: LeftOut = field(default_factory=LeftOut)


def list_disagreements(
    ws: Workspace,
    *,
    unresolved_only: bool = False,
    min_gap: int = 1,
    annotators: Sequence[str] | None = None,
) -> DisagreementListing:
    """The disagreements between ``annotators`` (default: the people who
    graded) whose grades are at least ``min_gap`` apart (only the unresolved
    ones with ``unresolved_only``), with their details."""
    if min_gap < 1:
        raise InputError(f"--min-gap must be 1 or more (grades that differ), got {min_gap}")
    ratings = current_ratings(ws)
    raters = compared_raters(ratings.kinds, annotators)
    if annotators is not None and len(raters) < 2:
        raise InputError("--annotators: a disagreement needs two raters or more; name another")
    chosen = set(raters)
    held: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for query_id, doc_id, rater, grade in zip(
        ratings.query_ids, ratings.doc_ids, ratings.raters, ratings.grades, strict=True
    ):
        if rater in chosen:
            held.setdefault((query_id, doc_id), []).append((rater, grade))
    found: list[tuple[Disagreement, tuple[tuple[str, int], ...]]] = []
    # an item the compared raters disagree on is one whose grades differ
    for item in disagreements(ws):
        compared = tuple(sorted(held.get((item.query_id, item.doc_id), ())))
        if differ(grade for _, grade in compared):
            found.append((item, compared))
    unresolved = sum(1 for item, _ in found if not item.settled)
    listed = [
        ListedDisagreement(item, tuple(grade_details(ws, item.query_id, item.doc_id)), compared)
        for item, compared in found
        if (not unresolved_only or not item.settled)
        and gap([grade for _, grade in compared]) >= min_gap
    ]
    listed.sort(key=lambda shown: (shown.resolved, shown.item.query_id, shown.item.doc_id))
    left = left_out(ratings.kinds, dict(Counter(ratings.raters)), raters)
    return DisagreementListing(
        tuple(listed), len(found), unresolved, min_gap, unresolved_only, tuple(raters), left
    )
