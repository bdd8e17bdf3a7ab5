"""A qrels file's grades as ledger events for one annotator, in bulk.

The file is compared with what the annotator currently holds: a grade that
is already there adds no event (re-importing a file changes nothing), a new
or changed grade adds one. The annotator's judgments the file does not have
are counted; with ``withdraw_missing`` each gets a withdrawal event (grade
NULL, unsure 0: what undoing a first grade appends), so the annotator then
holds exactly the file. The ledger is append-only: nothing is ever deleted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from judgepool.store.bulk import insert_flat
from judgepool.store.ledger import register_annotator
from judgepool.store.workspace import now

_INSERT_HEAD = (
    "INSERT INTO judgment_events (query_id, doc_id, grade, previous_grade, previous_event, "
    "annotator, created_at, source, unsure) VALUES"
)
_INSERT_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, 0)"
_WIDTH = 8


@dataclass(frozen=True)
class BulkResult:
    """What an import did: events added, grades already held, and the
    annotator's judgments absent from the file (``withdrawn`` of them)."""

    added: int
    unchanged: int
    missing: int
    withdrawn: int


def append_grades(
    conn: sqlite3.Connection,
    grades: Sequence[tuple[str, str, int]],
    *,
    annotator: str,
    source: str,
    withdraw_missing: bool = False,
) -> BulkResult:
    """Append a grade event per (query, doc, grade) that ``annotator`` does not
    already hold, inside the caller's transaction; with ``withdraw_missing``,
    also a withdrawal of each current judgment of theirs (a grade or unsure)
    whose item the file does not have. ``grades`` holds each item once."""
    register_annotator(conn, annotator)
    current = {
        (query_id, doc_id): (grade, event_id)
        for query_id, doc_id, grade, event_id in conn.execute(
            "SELECT query_id, doc_id, grade, event_id FROM current_judgments WHERE annotator = ?",
            (annotator,),
        )
    }
    stamp = now()
    flat: list[object] = []
    unchanged = 0
    for query_id, doc_id, grade in grades:
        previous = current.pop((query_id, doc_id), None)
        if previous is not None and previous[0] == grade:
            unchanged += 1
            continue
        previous_grade, previous_event = previous if previous is not None else (None, None)
        flat += (query_id, doc_id, grade, previous_grade, previous_event, annotator, stamp, source)
    added = len(flat) // _WIDTH
    # What is left in `current` is held by the annotator and absent from the file.
    missing = len(current)
    if withdraw_missing:
        for (query_id, doc_id), (previous_grade, previous_event) in sorted(current.items()):
            flat += (
                query_id,
                doc_id,
                None,
                previous_grade,
                previous_event,
                annotator,
                stamp,
                source,
            )
    # Inserted in the given order, so ledger IDs follow the file's lines. Every
    # value is a bound parameter: names and sources never become SQL text.
    insert_flat(conn, _INSERT_HEAD, _INSERT_ROW, _WIDTH, flat)
    return BulkResult(added, unchanged, missing, missing if withdraw_missing else 0)
