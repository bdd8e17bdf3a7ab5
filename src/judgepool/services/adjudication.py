"""Adjudication: who may settle disagreements, the adjudicator's queue, and
the settling grade.

An adjudicator (or a lead: `judgepool.core.team.roles`) settles a disagreement
with a grade recorded as an adjudication: an event of theirs flagged as
settling, kept apart from annotations (agreement and progress never count
it), which the ``adjudicated`` consensus (`judgepool.core.team.consensus`) takes
as the item's grade, so the item is resolved and leaves the queue of
unresolved ones.
"""

from __future__ import annotations

from judgepool.core.team.roles import can_reach
from judgepool.core.terms.errors import PolicyError
from judgepool.display import quoted
from judgepool.services.disagreements import DisagreementListing, list_disagreements
from judgepool.services.judging import judge
from judgepool.services.roles import role_of
from judgepool.store import ledger
from judgepool.store.ledger import JudgmentEvent
from judgepool.store.workspace import Workspace


class NotAdjudicator(PolicyError):
    """The annotator may not settle disagreements."""


def is_adjudicator(ws: Workspace, name: str, *, served: bool = False) -> bool:
    """True when ``name`` acts in a role that settles disagreements
    (``served``: in a session of ``judgepool serve``)."""
    return can_reach(role_of(ws, name, served=served), "adjudicate")


def refusal(name: str) -> str:
    """Why ``name`` cannot adjudicate, and how an adjudicator is named."""
    return (
        f"{quoted(name)} is not an adjudicator: only adjudicators and leads settle "
        f"disagreements. Give the role with `judgepool annotators WORKSPACE role NAME "
        f"adjudicator`, then open the app as that annotator (--annotator NAME)."
    )


def adjudication_queue(
    ws: Workspace, *, min_gap: int = 1, with_resolved: bool = False
) -> DisagreementListing:
    """The disagreements between the people who graded (not imports or models,
    `judgepool.services.disagreements`) whose grades are at least ``min_gap``
    apart, unresolved first; the resolved ones only ``with_resolved``."""
    return list_disagreements(ws, unresolved_only=not with_resolved, min_gap=min_gap)


def adjudicate(
    ws: Workspace,
    query_id: str,
    doc_id: str,
    grade: int,
    *,
    adjudicator: str,
    note: str | None = None,
    served: bool = False,
) -> JudgmentEvent:
    """Settle the item with ``grade``, recorded as ``adjudicator``'s adjudication;
    refused (`NotAdjudicator`) unless ``adjudicator`` acts in a role that may."""
    if not is_adjudicator(ws, adjudicator, served=served):
        raise NotAdjudicator(refusal(adjudicator))
    return judge(ws, query_id, doc_id, grade, annotator=adjudicator, note=note, adjudicates=True)


def settled_items(ws: Workspace, adjudicator: str | None = None) -> dict[tuple[str, str], int]:
    """The items ``adjudicator`` currently settles, with the grade; None: every
    settled item, with the adjudication that stands (the latest,
    `judgepool.core.team.consensus.ItemGrades.adjudicated`)."""
    if adjudicator is not None:
        return ledger.adjudications(ws, adjudicator)
    return {
        (item.query_id, item.doc_id): item.adjudicated
        for item in ledger.item_grades(ws)
        if item.adjudicated is not None
    }
