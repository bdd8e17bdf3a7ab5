"""What one annotator's own review reads: the items they hold as unsure, the
latest note they left on each item, and the time their grading recorded.

Only the annotator's own rows: never another person's grade or note.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgepool.core.team.undo import taken_back
from judgepool.store.workspace import Workspace

Item = tuple[str, str]


@dataclass(frozen=True)
class OwnState:
    """An annotator's current state of an item: a grade, or unsure; and when."""

    grade: int | None
    unsure: bool
    updated_at: str


def own_states(ws: Workspace, annotator: str) -> dict[Item, OwnState]:
    """Every item ``annotator`` currently holds a grade of or marked unsure."""
    return {
        (str(q), str(d)): OwnState(g, bool(u), str(at))
        for q, d, g, u, at in ws.conn.execute(
            "SELECT query_id, doc_id, grade, unsure, updated_at FROM current_judgments "
            "WHERE annotator = ?",
            (annotator,),
        )
    }


@dataclass(frozen=True)
class OwnNote:
    """The latest note an annotator left on an item, and when."""

    note: str
    event_id: int
    created_at: str


def own_notes(ws: Workspace, annotator: str) -> dict[Item, OwnNote]:
    """``annotator``'s latest note on each item, leaving out notes an undo took
    back (as the grade screen's card does) and notes of adjudications (they
    settle others' grades; they are not the annotator's own judgment)."""
    rows = ws.conn.execute(
        "SELECT id, query_id, doc_id, note, created_at, undoes, annotator = ? "
        "FROM judgment_events "
        "WHERE (annotator = ? AND note IS NOT NULL AND adjudicates = 0) OR undoes IS NOT NULL "
        "ORDER BY id",
        (annotator, annotator),
    ).fetchall()
    undone = taken_back(undoes for *_, undoes, _ in rows)
    notes: dict[Item, OwnNote] = {}
    for event_id, query_id, doc_id, note, created_at, _, own in rows:
        if own and note is not None and int(event_id) not in undone:
            notes[(str(query_id), str(doc_id))] = OwnNote(str(note), int(event_id), created_at)
    return notes


def timed_work(ws: Workspace, annotator: str) -> tuple[float, int]:
    """(the seconds ``annotator``'s events record, the grade events among them):
    what `judgepool.store.assignments.progress` counts for each annotator."""
    seconds, timed = ws.conn.execute(
        "SELECT COALESCE(SUM(seconds), 0), COALESCE(SUM(grade IS NOT NULL), 0) "
        "FROM judgment_events WHERE annotator = ? AND seconds IS NOT NULL",
        (annotator,),
    ).fetchone()
    return float(seconds), int(timed)
