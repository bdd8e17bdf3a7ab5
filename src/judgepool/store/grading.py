"""What grading reads of the ledger and the pools, as plain rows: every pooled
item, each annotator's current state of an item, who has judged what.

The grading plan is read from these rows rather than from the store's record
per pool member (which carries every run and rank that brought it in) or per
judgment: it must be ready in well under a second on a pool of 100 k
documents, and run and rank are exactly what grading hides.
"""

from __future__ import annotations

from collections.abc import Iterator

from judgepool.store.workspace import Workspace

# (annotator, grade or None, unsure, ledger event ID)
ItemState = tuple[str, int | None, bool, int]


def pooled_items(ws: Workspace, annotator: str) -> Iterator[tuple[str, str, bool]]:
    """(query, doc, another annotator holds a grade) for every item in any pool,
    each once. A model's label (the rater ``model:NAME``) is no annotator's
    grade here: an item only a model labelled still waits for a person, and a
    person grading blind is not told that a model labelled it."""
    # The flag is an index lookup on current_judgments' key, done in SQLite.
    for query_id, doc_id, others_graded in ws.conn.execute(
        "SELECT m.query_id, m.doc_id, EXISTS ("
        "  SELECT 1 FROM current_judgments c"
        "  WHERE c.query_id = m.query_id AND c.doc_id = m.doc_id"
        "    AND c.grade IS NOT NULL AND c.annotator != ?"
        "    AND c.annotator NOT LIKE 'model:%')"
        " FROM (SELECT DISTINCT query_id, doc_id FROM pool_members) m",
        (annotator,),
    ):
        yield query_id, doc_id, bool(others_graded)


def own_states(ws: Workspace, annotator: str) -> Iterator[tuple[str, str, int | None, bool, int]]:
    """(query, doc, grade, unsure, event ID) of every item ``annotator`` holds a
    grade or unsure for."""
    for query_id, doc_id, grade, unsure, event_id in ws.conn.execute(
        "SELECT query_id, doc_id, grade, unsure, event_id FROM current_judgments "
        "WHERE annotator = ?",
        (annotator,),
    ):
        yield query_id, doc_id, grade, bool(unsure), event_id


def item_states(ws: Workspace, query_id: str, doc_id: str) -> list[ItemState]:
    """Every annotator's current state of one item, oldest event first."""
    return [
        (who, grade, bool(unsure), event_id)
        for who, grade, unsure, event_id in ws.conn.execute(
            "SELECT annotator, grade, unsure, event_id FROM current_judgments "
            "WHERE query_id = ? AND doc_id = ? ORDER BY event_id",
            (query_id, doc_id),
        )
    ]


def judged_items(ws: Workspace) -> list[tuple[str, str]]:
    """Every (query, doc) someone currently holds a grade or unsure for."""
    return [
        (query_id, doc_id)
        for query_id, doc_id in ws.conn.execute(
            "SELECT DISTINCT query_id, doc_id FROM current_judgments"
        )
    ]
