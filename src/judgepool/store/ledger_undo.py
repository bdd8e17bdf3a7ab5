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
        "SELECT id, query_id, doc_id, grade, unsure, undoes FROM judgment_events "
        "WHERE annotator = ? ORDER BY id",
        (annotator,),
    ).fetchall()
    undone = {undoes for *_, undoes in rows if undoes is not None}
    # items where a later event that is neither an undo nor undone already stands
    overtaken: set[tuple[str, str]] = set()
    for id_, query_id, doc_id, grade, unsure, undoes in reversed(rows):
        if undoes is not None or id_ in undone:
            continue
        item = (query_id, doc_id)
        if item in overtaken:
            continue
        if grade is not None or unsure:
            return int(id_)
        overtaken.add(item)  # a withdrawal stands: what came before it does not
    return None


def undo_latest(ws: Workspace, annotator: str) -> tuple[JudgmentEvent, JudgmentEvent] | None:
    """Append an event that restores the state before ``annotator``'s latest
    standing grade, in one transaction; (the grade undone, the new event), or
    None when they have no grade left to take back. A restored grade keeps the
    source it had (a model's grade restored is still the model's)."""
    with ws.write() as conn:
        target_id = standing_grade(conn, annotator)
        if target_id is None:
            return None
        target = get_event(ws, target_id)
        grade: int | None = None
        unsure = False
        source = "human"
        if target.previous_event is not None:
            before = get_event(ws, target.previous_event)
            grade, unsure = before.grade, before.unsure
            if grade is not None or unsure:
                source = before.source
        new_id = append_event(
            conn,
            query_id=target.query_id,
            doc_id=target.doc_id,
            grade=grade,
            unsure=unsure,
            annotator=annotator,
            source=source,
            undoes=target_id,
        )
    return target, get_event(ws, new_id)
