"""Assignments of pooled items to annotators, and each annotator's progress.

An assignment is kept whole: its parameters in ``assignments`` and one row per
(annotator, item) in ``assigned_items``. The latest assignment is the
workspace's current one; an older one stays, replaced but not lost. A settle
budget (``assign --settle N``) is kept in the settings under
`SETTLE_BUDGET_KEY`, with the assignment it belongs to: a setting rather than
a column, so no workspace needs an upgrade for it.

"Judged", for handing out work, means a person's or an import's grade or an
adjudication: a model's label (its rater ``model:NAME``, or an event with the
source ``model:NAME`` under any name) is evidence, not a judgment, so an item
only a model labelled still goes to people.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from judgepool.store.snapshots import read_snapshot
from judgepool.store.workspace import Workspace, now

SETTLE_BUDGET_KEY: Final = "assignment_settle_budget"
"""The settings key of ``{"assignment": ID, "budget": N}``: the settle budget
of assignment ID (no other assignment has one)."""


@dataclass(frozen=True)
class StoredAssignment:
    """One assignment's parameters and how many (annotator, item) rows it holds."""

    id: int
    created_at: str
    unit: str
    overlap: int
    seed: int
    annotators: tuple[str, ...]
    per_annotator: int | None
    queries_file: str | None
    rows: int
    items: int
    # the settle budget: at most this many of its items open (None: none)
    settle: int | None = None


def pooled_items(ws: Workspace) -> list[tuple[str, str]]:
    """Every (query, doc) in any pool, sorted."""
    return ws.conn.execute(
        "SELECT DISTINCT query_id, doc_id FROM pool_members ORDER BY query_id, doc_id"
    ).fetchall()


def judged_items(ws: Workspace) -> set[tuple[str, str]]:
    """Every (query, doc) with a current grade from a person or an import (not
    a model's label; unsure is not a grade) or a current adjudication."""
    return {
        (str(query_id), str(doc_id))
        for query_id, doc_id in ws.conn.execute(
            "SELECT c.query_id, c.doc_id FROM current_judgments c "
            "JOIN judgment_events e ON e.id = c.event_id "
            "WHERE c.grade IS NOT NULL AND c.annotator NOT LIKE 'model:_%' "
            "  AND e.source NOT LIKE 'model:_%' "
            "UNION SELECT query_id, doc_id FROM current_adjudications"
        )
    }


def assignment_rows(ws: Workspace, assignment_id: int) -> list[tuple[str, str, str]]:
    """The (annotator, query, doc) rows of one assignment."""
    return [
        (str(who), str(query_id), str(doc_id))
        for who, query_id, doc_id in ws.conn.execute(
            "SELECT annotator, query_id, doc_id FROM assigned_items WHERE assignment_id = ?",
            (assignment_id,),
        )
    ]


def graded_rows(ws: Workspace, assignment_id: int) -> set[tuple[str, str, str]]:
    """The (annotator, query, doc) rows of one assignment whose annotator
    currently holds a grade of the item."""
    return {
        (str(who), str(query_id), str(doc_id))
        for who, query_id, doc_id in ws.conn.execute(
            "SELECT a.annotator, a.query_id, a.doc_id FROM assigned_items a "
            "JOIN current_judgments c ON c.query_id = a.query_id AND c.doc_id = a.doc_id "
            "  AND c.annotator = a.annotator "
            "WHERE a.assignment_id = ? AND c.grade IS NOT NULL",
            (assignment_id,),
        )
    }


def current_assignment(ws: Workspace) -> StoredAssignment | None:
    """The latest assignment, or None when the workspace has none."""
    row = ws.conn.execute(
        "SELECT a.id, a.created_at, a.unit, a.overlap, a.seed, a.annotators, a.per_annotator, "
        "  a.queries_file, "
        "  (SELECT COUNT(*) FROM assigned_items i WHERE i.assignment_id = a.id), a.items "
        "FROM assignments a ORDER BY a.id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    id_, created, unit, overlap, seed, names, per_annotator, queries_file, rows, items = row
    budget = ws.setting(SETTLE_BUDGET_KEY)
    settle = budget["budget"] if budget and budget.get("assignment") == id_ else None
    return StoredAssignment(
        int(id_), str(created), str(unit), int(overlap), int(seed), tuple(json.loads(names)),
        None if per_annotator is None else int(per_annotator), queries_file, int(rows), int(items),
        None if settle is None else int(settle),
    )  # fmt: skip


def save_assignment(
    conn: sqlite3.Connection,
    *,
    unit: str,
    overlap: int,
    seed: int,
    annotators: Iterable[str],
    per_annotator: int | None,
    queries_file: str | None,
    rows: Sequence[tuple[str, str, str]],
    settle: int | None = None,
) -> int:
    """Record an assignment, its (annotator, query, doc) rows and its settle
    budget (None: none) inside the caller's transaction; it becomes the
    current one. Returns its ID."""
    items = len({(query_id, doc_id) for _, query_id, doc_id in rows})
    cursor = conn.execute(
        "INSERT INTO assignments (created_at, unit, overlap, seed, annotators, per_annotator, "
        "queries_file, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            now(), unit, overlap, seed, json.dumps(list(annotators)), per_annotator,
            queries_file, items,
        ),
    )  # fmt: skip
    assert cursor.lastrowid is not None  # an INSERT into a rowid table always sets it
    conn.executemany(
        "INSERT INTO assigned_items (assignment_id, annotator, query_id, doc_id) "
        "VALUES (?, ?, ?, ?)",
        ((cursor.lastrowid, who, query_id, doc_id) for who, query_id, doc_id in rows),
    )
    if settle is not None:
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (SETTLE_BUDGET_KEY, json.dumps({"assignment": cursor.lastrowid, "budget": settle})),
        )
    return cursor.lastrowid


@dataclass(frozen=True)
class ProgressRow:
    """One annotator's counts against the current assignment: ``assigned``
    items, the ones they hold a grade of (``graded``), mark unsure
    (``unsure``) or hold no grade of (``remaining``, unsure ones included);
    ``graded_elsewhere``, the items outside it they hold a grade of (all of
    them without an assignment); the ``seconds`` their events record and
    ``timed_grades``, the grade events that recorded them."""

    annotator: str
    assigned: int
    remaining: int
    graded: int
    unsure: int
    seconds: float
    timed_grades: int
    graded_elsewhere: int = 0


def progress(ws: Workspace) -> list[ProgressRow]:
    """Every annotator's counts, read on one snapshot of the file, by name."""
    with read_snapshot(ws.conn) as conn:
        return _progress(ws, conn)


def _progress(ws: Workspace, conn: sqlite3.Connection) -> list[ProgressRow]:
    current = current_assignment(ws)
    counts: dict[str, list[float]] = {}

    def entry(name: str) -> list[float]:
        return counts.setdefault(name, [0, 0, 0, 0, 0.0, 0, 0])

    if current is not None:
        for name, assigned, graded, unsure in conn.execute(
            "SELECT a.annotator, COUNT(*), COUNT(c.grade), SUM(COALESCE(c.unsure, 0)) "
            "FROM assigned_items a "
            "LEFT JOIN current_judgments c ON c.query_id = a.query_id AND c.doc_id = a.doc_id "
            "  AND c.annotator = a.annotator "
            "WHERE a.assignment_id = ? GROUP BY a.annotator",
            (current.id,),
        ):
            entry(name)[0:4] = [assigned, assigned - graded, graded, unsure]
    # the grades of items the current assignment does not give their annotator
    for name, elsewhere in conn.execute(
        "SELECT c.annotator, COUNT(*) FROM current_judgments c "
        "WHERE c.grade IS NOT NULL AND NOT EXISTS (SELECT 1 FROM assigned_items a "
        "  WHERE a.assignment_id = ? AND a.annotator = c.annotator "
        "    AND a.query_id = c.query_id AND a.doc_id = c.doc_id) "
        "GROUP BY c.annotator",
        (-1 if current is None else current.id,),
    ):
        entry(name)[6] = elsewhere
    for name, seconds, timed in conn.execute(
        "SELECT annotator, SUM(seconds), SUM(grade IS NOT NULL) FROM judgment_events "
        "WHERE seconds IS NOT NULL GROUP BY annotator"
    ):
        entry(name)[4:6] = [seconds, timed]
    for (name,) in conn.execute("SELECT name FROM annotators"):
        entry(name)
    return [
        ProgressRow(name, int(a), int(r), int(g), int(u), float(s), int(t), int(e))
        for name, (a, r, g, u, s, t, e) in sorted(counts.items())
    ]
