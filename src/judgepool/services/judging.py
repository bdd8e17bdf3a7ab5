"""Judging: recording a grade (or unsure), taking one back, and the annotators'
roles.

Each grade is its own transaction and is returned only once committed; the
ledger keeps every event (`judgepool.store.ledger`), so taking a grade back
appends an event rather than removing one.
"""

from __future__ import annotations

from collections.abc import Sequence

from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.entry_checks import (
    annotator_name,
    check_id,
    check_known_annotator,
    check_known_item,
    check_name,
    check_text,
    check_user_source,
)
from judgepool.store import ledger
from judgepool.store.ledger import Annotator, JudgmentEvent
from judgepool.store.ledger_undo import undo_event
from judgepool.store.workspace import Workspace


def on_scale(ws: Workspace, grade: int) -> bool:
    """Whether ``grade`` is one of the workspace's scale: the one check of it,
    made by `judge` and asked by the app for the grade keys it offers."""
    return grade in ws.scale


def _check_grade(ws: Workspace, grade: int | None, unsure: bool) -> None:
    if unsure:
        if grade is not None:
            raise InputError("a judgment is either a grade or unsure, not both")
        return
    if grade is None:
        raise InputError("give a grade, or mark the document unsure")
    if not on_scale(ws, grade):
        raise InputError(f"grade {grade} is outside the workspace's scale {ws.scale}")


def judge(
    ws: Workspace,
    query_id: str,
    doc_id: str,
    grade: int | None,
    *,
    annotator: str,
    unsure: bool = False,
    note: str | None = None,
    source: str = "human",
    seconds: float | None = None,
    allow_new: bool = False,
    adjudicates: bool = False,
) -> JudgmentEvent:
    """Record one grade (or ``unsure=True`` with ``grade=None``) as a new ledger
    event, in its own transaction; returns the event once it is committed.

    Query and document IDs must be TREC tokens, and held by the workspace
    (imported, in a run, a pool or a judgment: `judgepool.store.holdings`)
    unless ``allow_new``; the refusal names the closest known IDs. The
    annotator must be a name not reserved for provenance, and ``source``
    ``human`` or ``model:NAME``. ``adjudicates``: the grade settles a
    disagreement (`judgepool.services.adjudication` checks who may).
    """
    _check_grade(ws, grade, unsure)
    check_id("query", query_id)
    check_id("document", doc_id)
    annotator = annotator_name(ws, annotator)
    check_user_source(source)
    if note is not None:
        check_text("note", note)
    if seconds is not None and not seconds >= 0:
        raise InputError(f"seconds spent must be a number ≥ 0, got {seconds!r}")
    if not allow_new:
        check_known_item(ws, query_id, doc_id)
    with ws.write() as conn:
        event_id = ledger.append_event(
            conn,
            query_id=query_id,
            doc_id=doc_id,
            grade=grade,
            unsure=unsure,
            annotator=annotator,
            source=source,
            note=note,
            seconds=seconds,
            adjudicates=adjudicates,
        )
    return ledger.get_event(ws, event_id)


def undo(ws: Workspace, event_id: int, *, annotator: str) -> JudgmentEvent:
    """Take back one of ``annotator``'s events by appending an event that restores
    the state before it (a previous grade, unsure, or no judgment at all), in
    one transaction; returns the new event once it is committed.

    Only the annotator's latest event on that item can be undone (an undo
    too: undoing it restores what it took back), or their latest event there
    that still stands, when only undos and what they took back came after it
    (after taking back a note, the grade before it); undoing an older one
    would silently discard what came after it (`judgepool.core.team.undo`).
    """
    return undo_event(ws, event_id, annotator=annotator)


def check_annotator(ws: Workspace, name: str) -> None:
    """Refuse ``name`` unless it is an annotator the workspace knows, naming the
    closest known ones."""
    check_name("annotator", name)
    check_known_annotator(ws, name)


def set_adjudicators(
    ws: Workspace, *, grant: Sequence[str] = (), revoke: Sequence[str] = ()
) -> None:
    """Give the annotators in ``grant`` the adjudicator role (they settle
    disagreements, which the ``adjudicated`` rule reads) and take it from those
    in ``revoke`` (they are annotators again). Every name must be an annotator
    the workspace knows (the refusal names the closest ones), and a lead keeps
    their role (change it with ``annotators WS role``); all are checked before
    any role changes, and the changes are one transaction."""
    for name in grant:
        try:
            check_annotator(ws, name)
        except InputError as exc:
            # The role goes to someone the workspace knows; a newcomer who is to
            # adjudicate before grading anything is added by name first.
            raise InputError(
                f"{exc.message}; to add {quoted(name)} as a new adjudicator: "
                f"judgepool annotators WS add {quoted(name)} --role adjudicator",
                exc.path,
                exc.line,
            ) from exc
    for name in revoke:
        check_annotator(ws, name)
    for name in (*grant, *revoke):
        if ledger.stored_role(ws.conn, name) == "lead":
            raise InputError(
                f"{quoted(name)} is a lead, who settles disagreements already; to change "
                f"their role: judgepool annotators WS role {quoted(name)} ROLE"
            )
    with ws.write() as conn:
        for name in grant:
            ledger.set_role(conn, name, "adjudicator")
        for name in revoke:
            ledger.set_role(conn, name, "annotator")


def list_annotators(ws: Workspace) -> list[Annotator]:
    """Every annotator with their role, event count and currently graded items."""
    return ledger.list_annotators(ws)
