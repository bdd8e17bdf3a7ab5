"""What the app reads to follow a workspace while it is open: whether another
connection has committed since it last looked (SQLite's ``data_version``),
which items gained judgment events since a known event, the items of an
annotator's personal queue, and the notes left on an item.
"""

from __future__ import annotations

from judgepool.core.team.undo import taken_back
from judgepool.store.workspace import Workspace


def data_version(ws: Workspace) -> int:
    """SQLite's ``PRAGMA data_version`` on ``ws``'s connection: it changes when
    another connection (of this process or another) commits, never for the
    connection's own writes. One call costs microseconds: no table is read."""
    row = ws.conn.execute("PRAGMA data_version").fetchone()
    return int(row[0])


def last_event_id(ws: Workspace) -> int:
    """The ID of the ledger's newest judgment event (0 when it has none)."""
    row = ws.conn.execute("SELECT COALESCE(MAX(id), 0) FROM judgment_events").fetchone()
    return int(row[0])


def items_changed_since(ws: Workspace, event_id: int) -> tuple[int, list[tuple[str, str]]]:
    """(the newest event ID, the items with an event newer than ``event_id``),
    the items in the order of their latest event."""
    rows = ws.conn.execute(
        "SELECT query_id, doc_id, MAX(id) AS last FROM judgment_events WHERE id > ? "
        "GROUP BY query_id, doc_id ORDER BY last",
        (event_id,),
    ).fetchall()
    newest = max((int(last) for _, _, last in rows), default=event_id)
    return newest, [(str(q), str(d)) for q, d, _ in rows]


def current_assignment_id(ws: Workspace) -> int | None:
    """The ID of the current (newest) assignment, None without one."""
    row = ws.conn.execute("SELECT MAX(id) FROM assignments").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def assigned_to(ws: Workspace, annotator: str) -> set[tuple[str, str]] | None:
    """The items the current assignment gives ``annotator``; None when the
    workspace has no assignment or it gives them nothing (their queue is then
    the whole pool)."""
    current = current_assignment_id(ws)
    if current is None:
        return None
    items = {
        (str(q), str(d))
        for q, d in ws.conn.execute(
            "SELECT query_id, doc_id FROM assigned_items WHERE assignment_id = ? AND annotator = ?",
            (current, annotator),
        )
    }
    return items or None


def latest_notes(ws: Workspace, query_id: str, doc_id: str) -> dict[str, str]:
    """Each annotator's latest note on the item that was not taken back by an
    undo, by annotator."""
    rows = ws.conn.execute(
        "SELECT id, annotator, note, undoes FROM judgment_events "
        "WHERE query_id = ? AND doc_id = ? ORDER BY id",
        (query_id, doc_id),
    ).fetchall()
    undone = taken_back(undoes for _, _, _, undoes in rows)
    notes: dict[str, str] = {}
    for event_id, who, note, _ in rows:
        if note is not None and int(event_id) not in undone:
            notes[str(who)] = str(note)
    return notes
