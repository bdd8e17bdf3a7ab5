"""Assignments of pooled items to annotators, and each annotator's progress.

An assignment is kept whole: its parameters in ``assignments`` and one row per
(annotator, item) in ``assigned_items``. The latest assignment is the
workspace's current one; an older one stays, replaced but not lost.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from judgepool.store.workspace import Workspace, now


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


def pooled_items(ws: Workspace) -> list[tuple[str, str]]:
    """Every (query, doc) in any pool, sorted."""
    return ws.conn.execute(
        "SELECT DISTINCT query_id, doc_id FROM pool_members ORDER BY query_id, doc_id"
    ).fetchall()


def judged_items(ws: Workspace) -> set[tuple[str, str]]:
    """Every (query, doc) with a current grade from anyone (imports and models
    included; unsure is not a grade) or a current adjudication."""
    return {
        (str(query_id), str(doc_id))
        for query_id, doc_id in ws.conn.execute(
            "SELECT query_id, doc_id FROM current_judgments WHERE grade IS NOT NULL "
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
    return StoredAssignment(
        int(id_), str(created), str(unit), int(overlap), int(seed), tuple(json.loads(names)),
        None if per_annotator is None else int(per_annotator), queries_file, int(rows), int(items),
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
) -> int:
    """Record an assignment and its (annotator, query, doc) rows inside the
    caller's transaction; it becomes the current one. Returns its ID."""
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
    return cursor.lastrowid


@dataclass(frozen=True)
class ProgressRow:
    """One annotator's counts: ``assigned`` items of the current assignment and
    the ``remaining`` ones they hold no grade of; current ``graded`` and ``unsure``
    items; the ``seconds`` their events record and ``timed_grades``, the grade
    events that recorded them."""

    annotator: str
    assigned: int
    remaining: int
    graded: int
    unsure: int
    seconds: float
    timed_grades: int


def progress(ws: Workspace) -> list[ProgressRow]:
    """Every annotator's counts (one consistent read per table), by name."""
    current = current_assignment(ws)
    counts: dict[str, list[float]] = {}

    def entry(name: str) -> list[float]:
        return counts.setdefault(name, [0, 0, 0, 0, 0.0, 0])

    if current is not None:
        for name, assigned, remaining in ws.conn.execute(
            "SELECT a.annotator, COUNT(*), SUM(c.grade IS NULL) FROM assigned_items a "
            "LEFT JOIN current_judgments c ON c.query_id = a.query_id AND c.doc_id = a.doc_id "
            "  AND c.annotator = a.annotator "
            "WHERE a.assignment_id = ? GROUP BY a.annotator",
            (current.id,),
        ):
            entry(name)[0:2] = [assigned, remaining]
    for name, graded, unsure in ws.conn.execute(
        "SELECT annotator, SUM(grade IS NOT NULL), SUM(unsure) FROM current_judgments "
        "GROUP BY annotator"
    ):
        entry(name)[2:4] = [graded, unsure]
    for name, seconds, timed in ws.conn.execute(
        "SELECT annotator, SUM(seconds), SUM(grade IS NOT NULL) FROM judgment_events "
        "WHERE seconds IS NOT NULL GROUP BY annotator"
    ):
        entry(name)[4:6] = [seconds, timed]
    for (name,) in ws.conn.execute("SELECT name FROM annotators"):
        entry(name)
    return [
        ProgressRow(name, int(a), int(r), int(g), int(u), float(s), int(t))
        for name, (a, r, g, u, s, t) in sorted(counts.items())
    ]
