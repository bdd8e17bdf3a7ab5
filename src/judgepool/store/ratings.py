"""Each rater's current grade per item, for agreement statistics, as columns.

A rater is an annotator, except that a grade whose event has the source
``model:NAME`` belongs to the rater ``model:NAME`` whoever recorded it: a
model's labels are compared with people's, never counted as one of them.
Unsure is not a grade, and a withdrawn judgment is no grade at all.

Two readings: `current_ratings`, every grade with its query and document as
columns in item order (the order `current_judgments` is stored in, so SQLite
need not sort); and `coded_ratings`, for statistics over all items, which do
not depend on the items' order: SQLite writes each grade as one number
(rater and grade) in one text, grouped by item, which numpy parses at once,
so 100 k grades cost no Python object each.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from judgepool.store.snapshots import read_snapshot
from judgepool.store.workspace import Workspace

IntArray = np.ndarray[Any, np.dtype[np.int64]]

# A coded rating is rater * _SPAN + grade + _OFFSET; grades lie within ±1000.
_SPAN: Final = 4096
_OFFSET: Final = 2048
_ITEM_END: Final = -1

# Model grades recorded under a person's name (few): found through the
# partial index of model events, without reading the whole ledger.
_BORROWED: Final = (
    "FROM judgment_events e INDEXED BY judgment_events_model "
    "JOIN current_judgments c ON c.query_id = e.query_id AND c.doc_id = e.doc_id "
    "  AND c.annotator = e.annotator AND c.event_id = e.id "
    "WHERE e.source LIKE 'model:_%' AND e.source <> e.annotator"
)


@dataclass(frozen=True)
class RatingColumns:
    """Every rater's current grade of every item, sorted by (query, doc, rater
    as recorded); row i is ``query_ids[i], doc_ids[i], raters[i], grades[i]``."""

    query_ids: tuple[str, ...]
    doc_ids: tuple[str, ...]
    raters: tuple[str, ...]
    grades: tuple[int, ...]


def current_ratings(ws: Workspace) -> RatingColumns:
    """Every rater's current grade of every item. Where one model's grade of an
    item was recorded by several annotators (or imported too), the latest alone
    is kept."""
    with read_snapshot(ws.conn) as conn:
        rows = conn.execute(
            "SELECT query_id, doc_id, annotator, grade, event_id FROM current_judgments "
            "WHERE grade IS NOT NULL ORDER BY query_id, doc_id, annotator"
        ).fetchall()
        borrowed = conn.execute(
            f"SELECT c.query_id, c.doc_id, c.annotator, e.source {_BORROWED}"
        ).fetchall()
    if not rows:
        return RatingColumns((), (), (), ())
    query_ids, doc_ids, annotators, grades, events = zip(*rows, strict=True)
    if not borrowed:
        return RatingColumns(query_ids, doc_ids, annotators, grades)
    # rows are sorted by (query, doc, annotator) as Python sorts them (UTF-8
    # byte order is code point order), so each row is found by bisection
    keys = list(zip(query_ids, doc_ids, annotators, strict=True))
    raters = list(annotators)
    claims: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    for query_id, doc_id, annotator, source in borrowed:
        position = bisect_left(keys, (query_id, doc_id, annotator))
        raters[position] = source
        claims.setdefault((query_id, doc_id, source), []).append((events[position], position))
    dropped: set[int] = set()
    for key, claimed in claims.items():
        position = bisect_left(keys, key)  # the model's own judgment (an import), if any
        if position < len(keys) and keys[position] == key:
            claimed.append((events[position], position))
        dropped.update(position for _, position in sorted(claimed)[:-1])
    kept = [i for i in range(len(rows)) if i not in dropped]
    return RatingColumns(
        tuple(query_ids[i] for i in kept),
        tuple(doc_ids[i] for i in kept),
        tuple(raters[i] for i in kept),
        tuple(grades[i] for i in kept),
    )


@dataclass(frozen=True)
class CodedRatings:
    """Every current grade as numbers: ``rater[i]`` (an index into ``raters``,
    every rater with a grade, sorted) gave ``grade[i]`` to the item numbered
    ``item[i]``; items are numbered 0, 1, ... in no particular order."""

    raters: tuple[str, ...]
    rater: IntArray
    item: IntArray
    grade: IntArray


def coded_ratings(ws: Workspace) -> CodedRatings | None:
    """Every current grade, coded (see `CodedRatings`); None when some model
    grade was recorded under a person's name (read `current_ratings` then)."""
    empty = np.zeros(0, dtype=np.int64)
    with read_snapshot(ws.conn) as conn:
        if conn.execute(f"SELECT EXISTS (SELECT 1 {_BORROWED})").fetchone()[0]:
            return None
        raters = tuple(
            name
            for (name,) in conn.execute(
                "SELECT DISTINCT annotator FROM current_judgments WHERE grade IS NOT NULL "
                "ORDER BY annotator"
            )
        )
        if not raters:
            return CodedRatings((), empty, empty, empty)
        whens = " ".join("WHEN ? THEN ?" for _ in raters)
        params: list[object] = [
            value for index, name in enumerate(raters) for value in (name, index)
        ]
        (text,) = conn.execute(
            # only placeholders are formatted into the statement
            f"SELECT group_concat(codes, ',{_ITEM_END},') FROM ("
            f"  SELECT group_concat((CASE annotator {whens} END) * {_SPAN} + grade + {_OFFSET})"
            "   AS codes FROM current_judgments WHERE grade IS NOT NULL "
            "  GROUP BY query_id, doc_id)",
            params,
        ).fetchone()
    numbers = np.array(np.fromstring(text, dtype=np.int64, sep=","), dtype=np.int64)
    ends = numbers == _ITEM_END
    codes = numbers[~ends]
    return CodedRatings(raters, codes // _SPAN, np.cumsum(ends)[~ends], codes % _SPAN - _OFFSET)
