"""The judgment ledger: appending events, each annotator's current judgment,
annotator roles, and the consensus that turns several annotators' grades into
one judged universe under one of the rules of `judgepool.core.consensus`
("unsure" is never a grade, and an item only deferred by everyone is not
judged; the ``adjudicated`` rule's adjudicators are set with `set_adjudicator`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final, cast

from judgepool.core.consensus import (
    CONSENSUS_RULES,
    HeldGrade,
    ItemGrades,
    Rule,
    low_median,
    resolve,
)
from judgepool.core.errors import InputError
from judgepool.display import quoted
from judgepool.formats.trec import qrels_digest
from judgepool.store.snapshots import read_snapshot
from judgepool.store.workspace import Workspace, now

_EVENT_COLUMNS: Final = (
    "id, query_id, doc_id, grade, unsure, annotator, created_at, previous_grade, "
    "previous_event, note, source, seconds, undoes, adjudicates, restored_from"
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


def latest_event_id(
    conn: sqlite3.Connection,
    query_id: str,
    doc_id: str,
    annotator: str,
    *,
    adjudicates: bool = False,
) -> int | None:
    """The ID of ``annotator``'s most recent event on the item of one kind
    (annotations, or with ``adjudicates`` adjudications; None: they have none),
    read on ``conn``: inside a write transaction, nothing can follow it."""
    row = conn.execute(
        "SELECT MAX(id) FROM judgment_events "
        "WHERE query_id = ? AND doc_id = ? AND annotator = ? AND adjudicates = ?",
        (query_id, doc_id, annotator, int(adjudicates)),
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


def adjudications(ws: Workspace, adjudicator: str | None = None) -> dict[tuple[str, str], int]:
    """Each (query, doc) an adjudicator currently settles, with the grade (the
    latest adjudication per item when ``adjudicator`` is None: anyone's)."""
    found: dict[tuple[str, str], int] = {}
    where = "" if adjudicator is None else " WHERE adjudicator = ?"
    for query_id, doc_id, grade in ws.conn.execute(
        f"SELECT query_id, doc_id, grade FROM current_adjudications{where} ORDER BY since_event",
        () if adjudicator is None else (adjudicator,),
    ):
        found[(query_id, doc_id)] = grade
    return found


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


@dataclass(frozen=True)
class Disagreement:
    """An item whose raters hold different grades, and how each rule resolves it."""

    query_id: str
    doc_id: str
    grades: tuple[tuple[str, int], ...]  # (rater, grade), in the order they were given
    adjudicators: tuple[str, ...]  # who adjudicated it, in the order they did
    latest: int
    median: int
    adjudicated: int | None  # the adjudicated rule's grade; None: it leaves the item out
    people: tuple[str, ...] = ()  # the raters who are people (not imports or models)

    def resolved(self, rule: str) -> int | None:
        return {"latest": self.latest, "median": self.median, "adjudicated": self.adjudicated}[rule]

    @property
    def between_people(self) -> bool:
        """The people who graded it hold different grades."""
        return len({grade for rater, grade in self.grades if rater in self.people}) > 1


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


def check_rule(rule: str) -> Rule:
    if rule not in CONSENSUS_RULES:
        raise InputError(
            f"unknown consensus rule {quoted(rule)}; choose one of {', '.join(CONSENSUS_RULES)}"
        )
    return cast(Rule, rule)


def item_grades(conn: sqlite3.Connection) -> Iterator[ItemGrades]:
    """Every item with a current grade or adjudication, its grades as the rules
    take them (`judgepool.core.consensus`), in (query, doc) order, read on
    one snapshot of the file (the caller's transaction, or one statement each)."""
    grades = conn.execute(
        "SELECT c.query_id, c.doc_id, c.annotator, c.grade, c.since_event, e.source "
        "FROM current_judgments c JOIN judgment_events e ON e.id = c.event_id "
        "WHERE c.grade IS NOT NULL ORDER BY c.query_id, c.doc_id"
    ).fetchall()
    settled: dict[tuple[str, str], list[HeldGrade]] = {}
    for query_id, doc_id, adjudicator, grade, since in conn.execute(
        "SELECT query_id, doc_id, adjudicator, grade, since_event FROM current_adjudications"
    ):
        settled.setdefault((query_id, doc_id), []).append(HeldGrade(adjudicator, grade, since))
    index = 0
    while index < len(grades):
        query_id, doc_id = grades[index][0], grades[index][1]
        end = index + 1
        while end < len(grades) and grades[end][0] == query_id and grades[end][1] == doc_id:
            end += 1
        held = tuple(
            HeldGrade(rater, grade, since, source == "human")
            for _, _, rater, grade, since, source in grades[index:end]
        )
        index = end
        yield ItemGrades(query_id, doc_id, held, tuple(settled.pop((query_id, doc_id), ())))
    for (query_id, doc_id), adjudications in sorted(settled.items()):
        yield ItemGrades(query_id, doc_id, (), tuple(adjudications))


def _disagreement(item: ItemGrades) -> Disagreement:
    ordered = item.ordered
    return Disagreement(
        query_id=item.query_id,
        doc_id=item.doc_id,
        grades=tuple((held.rater, held.grade) for held in ordered),
        adjudicators=tuple(
            held.rater for held in sorted(item.adjudications, key=lambda held: held.since)
        ),
        latest=ordered[-1].grade,
        median=low_median([held.grade for held in ordered]),
        adjudicated=resolve(item, "adjudicated"),
        people=tuple(held.rater for held in ordered if held.person),
    )


def consensus(ws: Workspace, rule: str) -> Consensus:
    """One grade per judged (query, doc) under ``rule``, with its qrels digest.

    The digest is `judgepool.formats.trec.qrels_digest` over the result, so it
    equals the digest of the exported qrels read back, and changes when and
    only when the judged universe (which items, which grades) changes.
    """
    chosen = check_rule(rule)
    judgments: dict[str, dict[str, int]] = {}
    disagreements: list[Disagreement] = []
    unresolved: list[Disagreement] = []
    with read_snapshot(ws.conn) as conn:
        items = list(item_grades(conn))
    for item in items:
        grade = resolve(item, chosen)
        if grade is not None:
            judgments.setdefault(item.query_id, {})[item.doc_id] = grade
        if item.disagree:
            found = _disagreement(item)
            disagreements.append(found)
            if grade is None:
                unresolved.append(found)
    return Consensus(
        rule, judgments, qrels_digest(judgments), tuple(disagreements), tuple(unresolved)
    )


def list_disagreements(ws: Workspace) -> list[Disagreement]:
    """Every item whose raters currently hold different grades."""
    return list(consensus(ws, "latest").disagreements)
