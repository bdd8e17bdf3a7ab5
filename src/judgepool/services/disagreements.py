"""The disagreements listing (``judgepool disagreements``): the items whose
annotators hold different grades, each with every grade's annotator, time and
latest note, filtered by how far apart the grades are and whether an
adjudicator has settled it, and counted.

A disagreement is unresolved while no adjudicator has graded the item: the
``adjudicated`` consensus leaves it out of the judged universe.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgepool.core.errors import InputError
from judgepool.services.consensus import disagreements
from judgepool.store.ledger import Disagreement
from judgepool.store.notes import GradeDetail, grade_details
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class ListedDisagreement:
    """A disagreement with the details of each grade."""

    item: Disagreement
    details: tuple[GradeDetail, ...]

    @property
    def gap(self) -> int:
        grades = [grade for _, grade in self.item.grades]
        return max(grades) - min(grades)

    @property
    def resolved(self) -> bool:
        return self.item.adjudicated is not None


@dataclass(frozen=True)
class DisagreementListing:
    """What the listing shows (``listed``: unresolved first, then by query and
    document) and the counts over every disagreement of the workspace."""

    listed: tuple[ListedDisagreement, ...]
    total: int
    unresolved: int
    min_gap: int
    unresolved_only: bool


def list_disagreements(
    ws: Workspace, *, unresolved_only: bool = False, min_gap: int = 1
) -> DisagreementListing:
    """The disagreements whose grades are at least ``min_gap`` apart (only the
    unresolved ones with ``unresolved_only``), with their details."""
    if min_gap < 1:
        raise InputError(f"--min-gap must be 1 or more (grades that differ), got {min_gap}")
    every = disagreements(ws)
    unresolved = sum(1 for item in every if item.adjudicated is None)
    listed = [
        ListedDisagreement(item, tuple(grade_details(ws, item.query_id, item.doc_id)))
        for item in every
        if (not unresolved_only or item.adjudicated is None)
        and max(g for _, g in item.grades) - min(g for _, g in item.grades) >= min_gap
    ]
    listed.sort(key=lambda found: (found.resolved, found.item.query_id, found.item.doc_id))
    return DisagreementListing(tuple(listed), len(every), unresolved, min_gap, unresolved_only)
