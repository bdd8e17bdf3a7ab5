"""Notes in the ledger: every note annotators left (``export notes``), and the
time and latest note behind each annotator's current grade of an item (the
``disagreements`` listing and the adjudicator's screen).

A grade an undo brought back is dated from when it was given (its
``since_event``), not from the undo, and a note an undo took back is no
longer the latest: after taking back a note, the adjudicator read the grade
dated to the undo, with the note still beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgepool.core.team.undo import taken_back
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class Note:
    """A note as recorded, with the event it came with."""

    event_id: int
    query_id: str
    doc_id: str
    annotator: str
    created_at: str
    grade: int | None
    unsure: bool
    source: str
    note: str


def notes(ws: Workspace, *, annotator: str | None = None) -> list[Note]:
    """Every event with a note, in ledger order (of one annotator, if given)."""
    where = "note IS NOT NULL" + (" AND annotator = ?" if annotator is not None else "")
    params = (annotator,) if annotator is not None else ()
    return [
        Note(int(i), q, d, a, t, g, bool(u), s, n)
        for i, q, d, a, t, g, u, s, n in ws.conn.execute(
            "SELECT id, query_id, doc_id, annotator, created_at, grade, unsure, source, note "
            f"FROM judgment_events WHERE {where} ORDER BY id",
            params,
        )
    ]


@dataclass(frozen=True)
class GradeDetail:
    """An annotator's current grade of an item (or, ``adjudication``, their
    current adjudication of it): when it was given, and the latest note they
    left with it (None: no note)."""

    annotator: str
    grade: int
    graded_at: str
    note: str | None
    adjudication: bool = False


def grade_details(ws: Workspace, query_id: str, doc_id: str) -> list[GradeDetail]:
    """Each annotator's current grade of the item with when it was given and
    their latest note that stands, in the order the grades were given, then
    the item's adjudications."""
    events = ws.conn.execute(
        "SELECT id, annotator, adjudicates, note, undoes FROM judgment_events "
        "WHERE query_id = ? AND doc_id = ? ORDER BY id",
        (query_id, doc_id),
    ).fetchall()
    undone = taken_back(undoes for *_, undoes in events)
    latest_note: dict[tuple[str, int], str] = {}
    for event_id, who, adjudicates, note, _ in events:
        if note is not None and event_id not in undone:
            latest_note[(who, adjudicates)] = note
    # the time of the event each grade stands since (an undo's: the grade's own)
    grades = [
        GradeDetail(who, grade, when, latest_note.get((who, 0)))
        for who, grade, when in ws.conn.execute(
            "SELECT c.annotator, c.grade, e.created_at FROM current_judgments c "
            "JOIN judgment_events e ON e.id = c.since_event "
            "WHERE c.query_id = ? AND c.doc_id = ? AND c.grade IS NOT NULL ORDER BY c.since_event",
            (query_id, doc_id),
        )
    ]
    settled = [
        GradeDetail(who, grade, when, latest_note.get((who, 1)), adjudication=True)
        for who, grade, when in ws.conn.execute(
            "SELECT c.adjudicator, c.grade, e.created_at FROM current_adjudications c "
            "JOIN judgment_events e ON e.id = c.since_event "
            "WHERE c.query_id = ? AND c.doc_id = ? ORDER BY c.since_event",
            (query_id, doc_id),
        )
    ]
    return grades + settled
