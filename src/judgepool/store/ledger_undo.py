"""Taking back a judgment event by appending one that restores the state before
it: a given event (the app's undo, `judgepool.services.judging.undo`) or an
annotator's latest grade that still stands (``judgepool undo``,
`judgepool.services.undo`).

Each is one write transaction: the annotator's events are read, the rules of
`judgepool.core.team.undo` check or choose the event to take back and say what
comes back, and the restoring event is appended, so no other writer can
slip an event in between the choice and the undo.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from judgepool.core.team.undo import (
    NOTHING,
    UndoRow,
    latest_standing_grade,
    restored_state,
    undo_refusal,
)
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.store.ledger import JudgmentEvent, append_event, get_event
from judgepool.store.workspace import Workspace

_UNDO_COLUMNS: Final = "id, query_id, doc_id, grade, unsure, undoes, adjudicates"


def _undo_rows(conn: sqlite3.Connection, where: str, params: tuple[object, ...]) -> list[UndoRow]:
    # `where` is one of this module's fixed clauses, never data
    cursor = conn.execute(
        f"SELECT {_UNDO_COLUMNS} FROM judgment_events WHERE {where} ORDER BY id", params
    )
    return list(map(UndoRow._make, cursor))


def _restore_before(conn: sqlite3.Connection, ws: Workspace, target: JudgmentEvent) -> int:
    """Append, inside the caller's write transaction, the event that restores
    the state of ``target``'s item before ``target`` (`judgepool.core.team.undo.restored_state`),
    for the same annotator and of the same kind (an annotation or an
    adjudication); its ID."""
    restored = NOTHING
    if target.previous_event is not None:
        before = get_event(ws, target.previous_event)
        restored = restored_state(
            before.id, before.grade, before.unsure, before.source, before.restored_from
        )
    return append_event(
        conn,
        query_id=target.query_id,
        doc_id=target.doc_id,
        grade=restored.grade,
        unsure=restored.unsure,
        annotator=target.annotator,
        source=restored.source,
        undoes=target.id,
        adjudicates=target.adjudicates,
        restored_from=restored.restored_from,
    )


def undo_event(ws: Workspace, event_id: int, *, annotator: str) -> JudgmentEvent:
    """Take back ``annotator``'s event ``event_id``, in one transaction; the new
    event once committed. Refused when the event is another annotator's, or
    when the rules of `judgepool.core.team.undo` refuse it (taken back already, or
    judged again after it)."""
    with ws.write() as conn:
        target = get_event(ws, event_id)
        if target.annotator != annotator:
            raise InputError(
                f"event {event_id} is {quoted(target.annotator)}'s, not {quoted(annotator)}'s; "
                "only your own grades can be undone"
            )
        rows = _undo_rows(
            conn,
            "annotator = ? AND query_id = ? AND doc_id = ? AND adjudicates = ?",
            (annotator, target.query_id, target.doc_id, int(target.adjudicates)),
        )
        refusal = undo_refusal(event_id, rows)
        if refusal == "taken back":
            raise InputError(f"event {event_id} was taken back already")
        if refusal == "judged again":
            raise InputError(
                f"query {quoted(target.query_id)} doc {quoted(target.doc_id)} was judged again "
                f"after event {event_id} (event {rows[-1].id}); undo that one first"
            )
        new_id = _restore_before(conn, ws, target)
    return get_event(ws, new_id)


def undo_latest(ws: Workspace, annotator: str) -> tuple[JudgmentEvent, JudgmentEvent] | None:
    """Take back ``annotator``'s latest grade (or unsure mark) that still stands
    (`judgepool.core.team.undo.latest_standing_grade`), in one transaction; (the
    grade undone, the new event), or None when they have none left to take back."""
    with ws.write() as conn:
        target_id = latest_standing_grade(_undo_rows(conn, "annotator = ?", (annotator,)))
        if target_id is None:
            return None
        target = get_event(ws, target_id)
        new_id = _restore_before(conn, ws, target)
    return target, get_event(ws, new_id)
