"""Adjudication in the app: who may settle disagreements, the adjudicator's
queue, and the settling grade.

An adjudicator settles a disagreement by grading the item: the grade is an
ordinary judgment event of the adjudicator's, which the ``adjudicated``
consensus (`judgepool.store.ledger.consensus`) takes as the item's grade, so
the item is resolved and leaves the queue of unresolved ones.
"""

from __future__ import annotations

from judgepool.core.errors import PolicyError
from judgepool.display import quoted
from judgepool.services.disagreements import DisagreementListing, list_disagreements
from judgepool.services.judging import judge
from judgepool.store import ledger
from judgepool.store.ledger import JudgmentEvent
from judgepool.store.workspace import Workspace


class NotAdjudicator(PolicyError):
    """The annotator may not settle disagreements."""


def is_adjudicator(ws: Workspace, name: str) -> bool:
    """True when ``name`` is an annotator marked adjudicator."""
    return any(found.name == name and found.adjudicator for found in ledger.list_annotators(ws))


def refusal(name: str) -> str:
    """Why ``name`` cannot adjudicate, and how an adjudicator is named."""
    return (
        f"{quoted(name)} is not an adjudicator: only an adjudicator settles disagreements. "
        f"Name one with `judgepool annotators WORKSPACE --adjudicator NAME`, then open "
        f"the app as that annotator (--annotator NAME)."
    )


def adjudication_queue(
    ws: Workspace, *, min_gap: int = 1, with_resolved: bool = False
) -> DisagreementListing:
    """The disagreements whose grades are at least ``min_gap`` apart, unresolved
    first; the resolved ones only ``with_resolved``."""
    return list_disagreements(ws, unresolved_only=not with_resolved, min_gap=min_gap)


def adjudicate(
    ws: Workspace, query_id: str, doc_id: str, grade: int, *, adjudicator: str
) -> JudgmentEvent:
    """Settle the item with ``grade``, recorded as ``adjudicator``'s judgment;
    refused (`NotAdjudicator`) unless ``adjudicator`` holds the role."""
    if not is_adjudicator(ws, adjudicator):
        raise NotAdjudicator(refusal(adjudicator))
    return judge(ws, query_id, doc_id, grade, annotator=adjudicator)
