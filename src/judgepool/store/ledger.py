"""The judgment ledger: appending events, each annotator's current judgment,
annotator roles, and every item's current grades and adjudications as the
consensus rules take them (`item_grades`: plain rows; the rules themselves
are `judgepool.core.team.consensus`). "Unsure" is never a grade, so an item only
deferred by everyone has no grade to read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Final

from judgepool.core.team.consensus import HeldGrade, ItemGrades
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.store.snapshots import read_snapshot
from judgepool.store.workspace import Workspace, now

_EVENT_COLUMNS: Final = (
    "id, query_id, doc_id, grade, unsure, annotator, created_at, previous_grade, "
    "previous_event, note, source, seconds, undoes, adjudicates, restored_from"
)
# the rows of some queries only: their IDs as one JSON array parameter
_OF_QUERIES: Final = "AND {table}.query_id IN (SELECT value FROM json_each(?))"


@dataclass(frozen=True)
class JudgmentEvent:
    """One row of the ledger. ``grade`` is None when unsure or withdrawn."""

    id: int
    query_id: str
    doc_id: str
    grade: int | None
    unsure: bool
    annotator: str
    created_at: str
    previous_grade: int | None
    previous_event: int | None
    note: str | None
    source: str
    seconds: float | None
    undoes: int | None
    # a grade given to settle a disagreement (not an annotation)
    adjudicates: bool = False
    # an undo's: the event whose judgment it brings back (None: it brings none)
    restored_from: int | None = None

    @property
    def withdrawn(self) -> bool:
        """The annotator no longer has any judgment on this item."""
        return self.grade is None and not self.unsure


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _event(row: tuple[Any, ...]) -> JudgmentEvent:
    (
        id_,
        query_id,
        doc_id,
        grade,
        unsure,
        annotator,
        created_at,
        previous_grade,
        previous_event,
        note,
        source,
        seconds,
        undoes,
        adjudicates,
        restored_from,
    ) = row
    return JudgmentEvent(
        id=int(id_),
        query_id=str(query_id),
        doc_id=str(doc_id),
        grade=_optional_int(grade),
        unsure=bool(unsure),
        annotator=str(annotator),
        created_at=str(created_at),
        previous_grade=_optional_int(previous_grade),
        previous_event=_optional_int(previous_event),
        note=None if note is None else str(note),
        source=str(source),
        seconds=None if seconds is None else float(seconds),
        undoes=_optional_int(undoes),
        adjudicates=bool(adjudicates),
        restored_from=_optional_int(restored_from),
    )


def check_source(source: str) -> None:
    if source == "human":
        return
    for prefix in ("import:", "model:"):
        if source.startswith(prefix) and len(source) > len(prefix):
            return
    raise InputError(
        f"source must be 'human', 'import:<file>' or 'model:<name>'; got {quoted(source)}"
    )


def register_annotator(conn: sqlite3.Connection, annotator: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO annotators (name, added_at) VALUES (?, ?)",
        (annotator, now()),
    )


def append_event(
    conn: sqlite3.Connection,
    *,
    query_id: str,
    doc_id: str,
    grade: int | None,
    unsure: bool,
    annotator: str,
    source: str,
    note: str | None = None,
    seconds: float | None = None,
    undoes: int | None = None,
    adjudicates: bool = False,
    restored_from: int | None = None,
) -> int:
    """Append one event inside the caller's write transaction; returns its ID.

    The annotator's previous state of the item (their current judgment, or
    for an adjudication their current adjudication) is read in the same
    transaction, so ``previous_grade`` is exact even with other writers.
    ``restored_from``: an undo's, the event whose judgment it brings back.
    """
    if grade is not None and unsure:
        raise ValueError("an event is either a grade or unsure, not both")
    if adjudicates and unsure:
        raise ValueError("an adjudication is a grade (or its withdrawal), never unsure")
    register_annotator(conn, annotator)
    held = "current_adjudications" if adjudicates else "current_judgments"
    who = "adjudicator" if adjudicates else "annotator"
    previous = conn.execute(
        # the table and column are one of two fixed names, never data
        f"SELECT grade, event_id FROM {held} WHERE query_id = ? AND doc_id = ? AND {who} = ?",
        (query_id, doc_id, annotator),
    ).fetchone()
    previous_grade, previous_event = previous if previous is not None else (None, None)
    cursor = conn.execute(
        "INSERT INTO judgment_events (query_id, doc_id, grade, unsure, annotator, created_at, "
        "previous_grade, previous_event, note, source, seconds, undoes, adjudicates, "
        "restored_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            query_id,
            doc_id,
            grade,
            int(unsure),
            annotator,
            now(),
            previous_grade,
            previous_event,
            note,
            source,
            seconds,
            undoes,
            int(adjudicates),
            restored_from,
        ),
    )
    assert cursor.lastrowid is not None  # an INSERT into a rowid table always sets it
    return cursor.lastrowid


def get_event(ws: Workspace, event_id: int) -> JudgmentEvent:
    row = ws.conn.execute(
        f"SELECT {_EVENT_COLUMNS} FROM judgment_events WHERE id = ?", (event_id,)
    ).fetchone()
    if row is None:
        raise InputError(f"no judgment event {event_id}", str(ws.path))
    return _event(row)


def list_events(
    ws: Workspace,
    *,
    query_id: str | None = None,
    doc_id: str | None = None,
    annotator: str | None = None,
) -> list[JudgmentEvent]:
    """Events in ledger order, optionally only those of one query, doc or annotator."""
    clauses: list[str] = []
    params: list[str] = []
    for column, value in (("query_id", query_id), ("doc_id", doc_id), ("annotator", annotator)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return [
        _event(row)
        for row in ws.conn.execute(
            f"SELECT {_EVENT_COLUMNS} FROM judgment_events{where} ORDER BY id", params
        )
    ]


@dataclass(frozen=True)
class CurrentJudgment:
    """An annotator's latest state of one item: a grade, or unsure (grade None)."""

    query_id: str
    doc_id: str
    annotator: str
    grade: int | None
    unsure: bool
    event_id: int
    updated_at: str


def current_judgments(
    ws: Workspace, *, annotator: str | None = None, query_id: str | None = None
) -> list[CurrentJudgment]:
    clauses: list[str] = []
    params: list[str] = []
    if annotator is not None:
        clauses.append("annotator = ?")
        params.append(annotator)
    if query_id is not None:
        clauses.append("query_id = ?")
        params.append(query_id)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return [
        CurrentJudgment(q, d, a, g, bool(u), e, t)
        for q, d, a, g, u, e, t in ws.conn.execute(
            "SELECT query_id, doc_id, annotator, grade, unsure, event_id, updated_at "
            f"FROM current_judgments{where} ORDER BY query_id, doc_id, annotator",
            params,
        )
    ]


def adjudications(ws: Workspace, adjudicator: str) -> dict[tuple[str, str], int]:
    """Each (query, doc) ``adjudicator`` currently settles (in the order they
    settled them), with the grade."""
    return {
        (query_id, doc_id): grade
        for query_id, doc_id, grade in ws.conn.execute(
            "SELECT query_id, doc_id, grade FROM current_adjudications WHERE adjudicator = ? "
            "ORDER BY since_event",
            (adjudicator,),
        )
    }


def annotator_grades(ws: Workspace, annotator: str) -> dict[str, dict[str, int]]:
    """One annotator's current grades (unsure items left out)."""
    judgments: dict[str, dict[str, int]] = {}
    for query_id, doc_id, grade in ws.conn.execute(
        "SELECT query_id, doc_id, grade FROM current_judgments "
        "WHERE annotator = ? AND grade IS NOT NULL",
        (annotator,),
    ):
        judgments.setdefault(query_id, {})[doc_id] = grade
    return judgments


# -- annotators -----------------------------------------------------------------


@dataclass(frozen=True)
class Annotator:
    """An annotator as the workspace knows them: ``role`` None when none was set."""

    name: str
    role: str | None
    events: int
    graded: int

    @property
    def adjudicator(self) -> bool:
        """Whether they may settle disagreements (an adjudicator or a lead)."""
        return self.role in ("adjudicator", "lead")


def list_annotators(ws: Workspace) -> list[Annotator]:
    """Every annotator with their role, event count and currently graded items."""
    rows = ws.conn.execute(
        "SELECT a.name, a.role, "
        "  (SELECT COUNT(*) FROM judgment_events e WHERE e.annotator = a.name), "
        "  (SELECT COUNT(*) FROM current_judgments c "
        "   WHERE c.annotator = a.name AND c.grade IS NOT NULL) "
        "FROM annotators a ORDER BY a.name"
    )
    return [Annotator(name, role, events, graded) for name, role, events, graded in rows]


def stored_role(conn: sqlite3.Connection, name: str) -> str | None:
    """The role recorded for ``name`` (None: none set, or not an annotator)."""
    row = conn.execute("SELECT role FROM annotators WHERE name = ?", (name,)).fetchone()
    return None if row is None else row[0]


def any_role_set(conn: sqlite3.Connection) -> bool:
    """Whether any annotator of the workspace has a role recorded."""
    return bool(
        conn.execute("SELECT EXISTS (SELECT 1 FROM annotators WHERE role IS NOT NULL)").fetchone()[
            0
        ]
    )


def set_role(conn: sqlite3.Connection, name: str, role: str | None) -> None:
    """Record ``name``'s role (None: none), adding them as an annotator, inside
    the caller's write transaction."""
    if not name:
        raise InputError("an annotator needs a name")
    register_annotator(conn, name)
    conn.execute("UPDATE annotators SET role = ? WHERE name = ?", (role, name))


# -- consensus ------------------------------------------------------------------


def item_grades(ws: Workspace, queries: Collection[str] | None = None) -> list[ItemGrades]:
    """Every item with a current grade or adjudication, its grades as the
    consensus rules take them (`judgepool.core.team.consensus`), each with the
    source of the event that gave it (the rules set models' labels aside), in
    (query, doc) order, read on one snapshot of the file. ``queries``: only
    the items of these queries (the app's live scores re-read those whose
    items gained events)."""
    # the tables' keys start with the query: a few queries are a few look-ups
    only, chosen = ("", ()) if queries is None else (_OF_QUERIES, (json.dumps(list(queries)),))
    with read_snapshot(ws.conn) as conn:
        grades = conn.execute(
            "SELECT c.query_id, c.doc_id, c.annotator, c.grade, c.since_event, e.source "
            "FROM current_judgments c JOIN judgment_events e ON e.id = c.event_id "
            f"WHERE c.grade IS NOT NULL {only.format(table='c')} ORDER BY c.query_id, c.doc_id",
            chosen,
        ).fetchall()
        settled: dict[tuple[str, str], list[HeldGrade]] = {}
        for query_id, doc_id, adjudicator, grade, since in conn.execute(
            "SELECT query_id, doc_id, adjudicator, grade, since_event FROM current_adjudications a "
            f"WHERE 1 {only.format(table='a')}",
            chosen,
        ):
            settled.setdefault((query_id, doc_id), []).append(HeldGrade(adjudicator, grade, since))
    items: list[ItemGrades] = []
    index = 0
    while index < len(grades):
        query_id, doc_id = grades[index][0], grades[index][1]
        end = index + 1
        while end < len(grades) and grades[end][0] == query_id and grades[end][1] == doc_id:
            end += 1
        held = tuple(
            HeldGrade(rater, grade, since, source)
            for _, _, rater, grade, since, source in grades[index:end]
        )
        index = end
        items.append(ItemGrades(query_id, doc_id, held, tuple(settled.pop((query_id, doc_id), ()))))
    items += (
        ItemGrades(query_id, doc_id, (), tuple(adjudications))
        for (query_id, doc_id), adjudications in sorted(settled.items())
    )
    return items
