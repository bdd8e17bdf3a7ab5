"""Each rater's current grade per item, for agreement statistics.

A rater is an annotator, except that a grade whose event has the source
``model:NAME`` belongs to the rater ``model:NAME`` whoever recorded it: a
model's labels are compared with people's, never counted as one of them.
Unsure is not a grade, and a withdrawn judgment is no grade at all.
"""

from __future__ import annotations

from judgepool.store.workspace import Workspace

# (query ID, doc ID, rater, grade); plain tuples, as 100 k of them are read at once
Rating = tuple[str, str, str, int]


def current_ratings(ws: Workspace) -> list[Rating]:
    """Every rater's current grade of every item, in ledger order (so where two
    annotators recorded the same model's grade for one item, the later one is
    last)."""
    rows = ws.conn.execute(
        "SELECT c.query_id, c.doc_id, "
        "  CASE WHEN e.source LIKE 'model:_%' THEN e.source ELSE c.annotator END, c.grade "
        "FROM current_judgments c JOIN judgment_events e ON e.id = c.event_id "
        "WHERE c.grade IS NOT NULL ORDER BY c.event_id"
    )
    return rows.fetchall()
