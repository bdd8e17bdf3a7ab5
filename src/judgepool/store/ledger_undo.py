"""Taking back an annotator's latest grade from the ledger (``judgepool undo``),
by appending an event, as the app's undo does (`judgepool.services.judging.undo`).

The grade to take back is the annotator's latest grade or unsure mark that
still stands: not itself an undo, not undone already, and not followed on its
item by another of their grades that stands. Undoing again walks further back
through their grades, item by item, as a stack.
"""

from __future__ import annotations

import sqlite3

from judgepool.store.ledger import JudgmentEvent, append_event, get_event
from judgepool.store.workspace import Workspace


def standing_grade(conn: sqlite3.Connection, annotator: str) -> int | None:
    """The ID of ``annotator``'s latest grade (or unsure mark) that still stands,
    read on ``conn`` (inside the write transaction that will undo it)."""
    rows = conn.execute(
        "SELECT id, query_id, doc_id, grade, unsure, undoes, adjudicates FROM judgment_events "
        "WHERE annotator = ? ORDER BY id",
        (annotator,),
    ).fetchall()
    undone = {row[5] for row in rows if row[5] is not None}
    # items (and kinds: an annotation or an adjudication) where a later event
    # that is neither an undo nor undone already stands
    overtaken: set[tuple[str, str, int]] = set()
    for id_, query_id, doc_id, grade, unsure, undoes, adjudicates in reversed(rows):
        if undoes is not None or id_ in undone:
            continue
        item = (query_id, doc_id, adjudicates)
        if item in overtaken:
            continue
        if grade is not None or unsure:
            return int(id_)
        overtaken.add(item)  # a withdrawal stands: what came before it does not
    return None


def restore_before(conn: sqlite3.Connection, ws: Workspace, target: JudgmentEvent) -> int:
    """Append, inside the caller's write transaction, the event that restores
    the state of ``target``'s item before ``target`` (a previous grade, unsure,
    or nothing), for the same annotator and of the same kind (an annotation or
    an adjudication); its ID. A restored grade keeps its source (a model's
    grade brought back is still the model's, never silently a person's) and is
    dated from when it was first given (``restored_from``), so undoing moves
    nobody's grade later in time."""
    grade: int | None = None
    unsure = False
    source = "human"
    restored_from: int | None = None
    if target.previous_event is not None:
        before = get_event(ws, target.previous_event)
        grade, unsure = before.grade, before.unsure
        if grade is not None or unsure:
            source = before.source
            restored_from = before.restored_from if before.restored_from else before.id
    return append_event(
        conn,
        query_id=target.query_id,
        doc_id=target.doc_id,
        grade=grade,
        unsure=unsure,
        annotator=target.annotator,
        source=source,
        undoes=target.id,
        adjudicates=target.adjudicates,
        restored_from=restored_from,
    )


def undo_latest(ws: Workspace, annotator: str) -> tuple[JudgmentEvent, JudgmentEvent] | None:
    """Append an event that restores the state before ``annotator``'s latest
    standing grade, in one transaction (`restore_before`); (the grade undone,
    the new event), or None when they have no grade left to take back."""
    with ws.write() as conn:
        target_id = standing_grade(conn, annotator)
        if target_id is None:
            return None
        target = get_event(ws, target_id)
        new_id = restore_before(conn, ws, target)
    return target, get_event(ws, new_id)


def standing_on_item(
    conn: sqlite3.Connection,
    annotator: str,
    query_id: str,
    doc_id: str,
    *,
    adjudicates: bool = False,
) -> int | None:
    """The ID of ``annotator``'s latest event of one kind (annotations, or with
    ``adjudicates`` adjudications) on one item that still stands (not an undo,
    not undone already), read on ``conn``; None when none does. Undo events
    are skipped, so after taking back a note the grade before it can be taken
    back in turn."""
    rows = conn.execute(
        "SELECT id, undoes FROM judgment_events "
        "WHERE annotator = ? AND query_id = ? AND doc_id = ? AND adjudicates = ? ORDER BY id",
        (annotator, query_id, doc_id, int(adjudicates)),
    ).fetchall()
    undone = {undoes for _, undoes in rows if undoes is not None}
    for id_, undoes in reversed(rows):
        if undoes is None and id_ not in undone:
            return int(id_)
    return None
