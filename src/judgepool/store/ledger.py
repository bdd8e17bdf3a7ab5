"""The judgment ledger: appending events, each annotator's current judgment,
annotator roles, and the consensus that turns several annotators' grades into
one judged universe under one of the rules of `judgepool.core.consensus`
("unsure" is never a grade, and an item only deferred by everyone is not
judged; the ``adjudicated`` rule's adjudicators are set with `set_adjudicator`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, Final

from judgepool.core.consensus import CONSENSUS_RULES, low_median
from judgepool.core.errors import InputError
from judgepool.display import quoted
from judgepool.formats.trec import qrels_digest
from judgepool.store.workspace import Workspace, now

_EVENT_COLUMNS: Final = (
    "id, query_id, doc_id, grade, unsure, annotator, created_at, previous_grade, "
    "previous_event, note, source, seconds, undoes"
)


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
        "INSERT OR IGNORE INTO annotators (name, adjudicator, added_at) VALUES (?, 0, ?)",
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
) -> int:
    """Append one event inside the caller's write transaction; returns its ID.

    The annotator's previous state of the item is read in the same
    transaction, so ``previous_grade`` is exact even with other writers.
    """
    if grade is not None and unsure:
        raise ValueError("an event is either a grade or unsure, not both")
    register_annotator(conn, annotator)
    previous = conn.execute(
        "SELECT grade, event_id FROM current_judgments "
        "WHERE query_id = ? AND doc_id = ? AND annotator = ?",
        (query_id, doc_id, annotator),
    ).fetchone()
    previous_grade, previous_event = previous if previous is not None else (None, None)
    cursor = conn.execute(
        "INSERT INTO judgment_events (query_id, doc_id, grade, unsure, annotator, created_at, "
        "previous_grade, previous_event, note, source, seconds, undoes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        ),
    )
    assert cursor.lastrowid is not None  # an INSERT into a rowid table always sets it
    return cursor.lastrowid


def latest_event_id(
    conn: sqlite3.Connection, query_id: str, doc_id: str, annotator: str
) -> int | None:
    """The ID of ``annotator``'s most recent event on the item (None: they have
    none), read on ``conn``: inside a write transaction, nothing can follow it."""
    row = conn.execute(
        "SELECT MAX(id) FROM judgment_events WHERE query_id = ? AND doc_id = ? AND annotator = ?",
        (query_id, doc_id, annotator),
    ).fetchone()
    return _optional_int(row[0])


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
    name: str
    adjudicator: bool
    events: int
    graded: int


def list_annotators(ws: Workspace) -> list[Annotator]:
    """Every annotator with their role, event count and currently graded items."""
    rows = ws.conn.execute(
        "SELECT a.name, a.adjudicator, "
        "  (SELECT COUNT(*) FROM judgment_events e WHERE e.annotator = a.name), "
        "  (SELECT COUNT(*) FROM current_judgments c "
        "   WHERE c.annotator = a.name AND c.grade IS NOT NULL) "
        "FROM annotators a ORDER BY a.name"
    )
    return [Annotator(name, bool(adj), events, graded) for name, adj, events, graded in rows]


def set_adjudicator(conn: sqlite3.Connection, name: str, adjudicator: bool = True) -> None:
    """Record (or revoke) an annotator's role as adjudicator, inside the caller's
    write transaction."""
    if not name:
        raise InputError("an annotator needs a name")
    register_annotator(conn, name)
    conn.execute("UPDATE annotators SET adjudicator = ? WHERE name = ?", (int(adjudicator), name))


# -- consensus ------------------------------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    """An item whose annotators hold different grades, and how each rule resolves it."""

    query_id: str
    doc_id: str
    grades: tuple[tuple[str, int], ...]  # (annotator, grade), in the order they were given
    adjudicators: tuple[str, ...]
    latest: int
    median: int
    adjudicated: int | None  # None: no adjudicator has graded it

    def resolved(self, rule: str) -> int | None:
        return {"latest": self.latest, "median": self.median, "adjudicated": self.adjudicated}[rule]


@dataclass(frozen=True)
class Consensus:
    """The judged universe under one rule, its digest, and what the rule left out."""

    rule: str
    judgments: dict[str, dict[str, int]]
    digest: str
    disagreements: tuple[Disagreement, ...] = field(default=())
    unresolved: tuple[Disagreement, ...] = field(default=())

    @property
    def judged(self) -> int:
        return sum(len(docs) for docs in self.judgments.values())


def check_rule(rule: str) -> None:
    if rule not in CONSENSUS_RULES:
        raise InputError(
            f"unknown consensus rule {quoted(rule)}; choose one of {', '.join(CONSENSUS_RULES)}"
        )


def consensus(ws: Workspace, rule: str) -> Consensus:
    """One grade per judged (query, doc) under ``rule``, with its qrels digest.

    The digest is `judgepool.formats.trec.qrels_digest` over the result, so it
    equals the digest of the exported qrels read back, and changes when and
    only when the judged universe (which items, which grades) changes.
    """
    check_rule(rule)
    # A single consistent read: one statement sees one snapshot of the file.
    rows = ws.conn.execute(
        "SELECT c.query_id, c.doc_id, c.annotator, c.grade, c.event_id, "
        "       COALESCE(a.adjudicator, 0) "
        "FROM current_judgments c LEFT JOIN annotators a ON a.name = c.annotator "
        "WHERE c.grade IS NOT NULL ORDER BY c.query_id, c.doc_id, c.event_id"
    ).fetchall()
    judgments: dict[str, dict[str, int]] = {}
    disagreements: list[Disagreement] = []
    unresolved: list[Disagreement] = []
    index = 0
    while index < len(rows):
        query_id, doc_id = rows[index][0], rows[index][1]
        end = index + 1
        while end < len(rows) and rows[end][0] == query_id and rows[end][1] == doc_id:
            end += 1
        group = rows[index:end]
        index = end
        distinct = {row[3] for row in group}
        if len(distinct) == 1:
            judgments.setdefault(query_id, {})[doc_id] = group[0][3]
            continue
        # rows are ordered by event ID, so the last is the latest
        adjudicator_rows = [row for row in group if row[5]]
        item = Disagreement(
            query_id=query_id,
            doc_id=doc_id,
            grades=tuple((row[2], row[3]) for row in group),
            adjudicators=tuple(row[2] for row in adjudicator_rows),
            latest=group[-1][3],
            median=low_median([row[3] for row in group]),
            adjudicated=adjudicator_rows[-1][3] if adjudicator_rows else None,
        )
        disagreements.append(item)
        grade = item.resolved(rule)
        if grade is None:
            unresolved.append(item)
        else:
            judgments.setdefault(query_id, {})[doc_id] = grade
    return Consensus(
        rule, judgments, qrels_digest(judgments), tuple(disagreements), tuple(unresolved)
    )


def list_disagreements(ws: Workspace) -> list[Disagreement]:
    """Every item whose annotators currently hold different grades."""
    return list(consensus(ws, "latest").disagreements)
