"""Each rater's current grade per item, for agreement statistics, as columns,
with the kind of each rater (`judgepool.core.team.raters`) and the number of
current adjudications (which are no rater's annotations).

A rater is an annotator, except that a grade whose event has the source
``model:NAME`` belongs to the rater ``model:NAME`` whoever recorded it: a
model's labels are compared with people's, never counted as one of them.
Imported qrels are the rater they were imported as (``import:FILE``, or the
name given with ``--annotator``), of the kind ``import``; where that name
also grades by hand, its imported grades are the rater ``import:FILE``, so
a person's rater holds only what they graded. Unsure is not a grade, a
withdrawn judgment is no grade at all, and adjudications are not in
``current_judgments``.

Two readings: `current_ratings`, every grade with its query and document as
columns in item order (the order `current_judgments` is stored in, so SQLite
need not sort); and `coded_ratings`, for statistics over all items, which do
not depend on the items' order: SQLite writes each grade as one number
(rater and grade) in one text, grouped by item, which numpy parses at once,
so 100 k grades cost no Python object each.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from judgepool.core.team.raters import IMPORT_PREFIX, RaterKind, kind_of_name
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
class _Annotators:
    """What the annotators' events say of them: the ones whose grades are
    imports only (their rater is of the kind import), and the ones who both
    import and grade by hand (their imported grades are the rater of the
    import's source)."""

    importers: frozenset[str]
    mixed: tuple[str, ...]


def _annotators(conn: sqlite3.Connection) -> _Annotators:
    # The ledger is read for the few events that are not a person's: with no
    # row to keep, a pass costs a few milliseconds per 100 k events (keeping
    # every row's pair for DISTINCT cost four times that).
    sources: dict[str, set[str]] = {}
    for annotator, source in conn.execute(
        "SELECT DISTINCT annotator, source FROM judgment_events "
        "WHERE source <> 'human' AND adjudicates = 0"
    ):
        sources.setdefault(annotator, set()).add(kind_of_name(source))
    # an import recorded under a name of its own: does that name grade by hand
    # too? (import:FILE is reserved for imports)
    named = [
        name
        for name, kinds in sources.items()
        if "import" in kinds and kind_of_name(name) == "person"
    ]
    graders: set[str] = set()
    if named:
        marks = ", ".join("?" for _ in named)
        graders = {
            name
            for (name,) in conn.execute(
                "SELECT DISTINCT annotator FROM judgment_events "
                f"WHERE source = 'human' AND adjudicates = 0 AND annotator IN ({marks})",
                named,
            )
        }
    importers = frozenset(
        name for name, kinds in sources.items() if "import" in kinds and name not in graders
    )
    return _Annotators(importers, tuple(sorted(graders)))


def _kind(rater: str, annotators: _Annotators) -> RaterKind:
    return "import" if rater in annotators.importers else kind_of_name(rater)


def _adjudications(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM current_adjudications").fetchone()[0])


@dataclass(frozen=True)
class RatingColumns:
    """Every rater's current grade of every item, sorted by (query, doc, rater
    as recorded); row i is ``query_ids[i], doc_ids[i], raters[i], grades[i]``.
    ``kinds``: each rater's kind; ``adjudications``: the current ones."""

    query_ids: tuple[str, ...]
    doc_ids: tuple[str, ...]
    raters: tuple[str, ...]
    grades: tuple[int, ...]
    kinds: dict[str, RaterKind] = field(default_factory=dict)
    adjudications: int = 0


def current_ratings(ws: Workspace) -> RatingColumns:
    """Every rater's current grade of every item. Where one model's grade of an
    item was recorded by several annotators (or imported too), the latest alone
    is kept; so is one import's."""
    with read_snapshot(ws.conn) as conn:
        annotators = _annotators(conn)
        rows = conn.execute(
            "SELECT query_id, doc_id, annotator, grade, event_id FROM current_judgments "
            "WHERE grade IS NOT NULL ORDER BY query_id, doc_id, annotator"
        ).fetchall()
        borrowed = conn.execute(
            f"SELECT c.query_id, c.doc_id, c.annotator, e.source {_BORROWED}"
        ).fetchall()
        if annotators.mixed:
            marks = ", ".join("?" for _ in annotators.mixed)
            borrowed += conn.execute(
                "SELECT c.query_id, c.doc_id, c.annotator, e.source FROM current_judgments c "
                "JOIN judgment_events e ON e.id = c.event_id "
                f"WHERE c.annotator IN ({marks}) AND c.grade IS NOT NULL AND e.source LIKE ?",
                (*annotators.mixed, IMPORT_PREFIX + "_%"),
            ).fetchall()
        adjudications = _adjudications(conn)
    if not rows:
        return RatingColumns((), (), (), (), {}, adjudications)
    query_ids, doc_ids, recorded, grades, events = zip(*rows, strict=True)
    raters = list(recorded)
    kept = list(range(len(rows)))
    if borrowed:
        raters, kept = _borrowed_raters(query_ids, doc_ids, recorded, events, borrowed)
    kinds = {raters[i]: _kind(raters[i], annotators) for i in kept}
    return RatingColumns(
        tuple(query_ids[i] for i in kept),
        tuple(doc_ids[i] for i in kept),
        tuple(raters[i] for i in kept),
        tuple(grades[i] for i in kept),
        dict(sorted(kinds.items())),
        adjudications,
    )


def _borrowed_raters(
    query_ids: tuple[str, ...],
    doc_ids: tuple[str, ...],
    recorded: tuple[str, ...],
    events: tuple[int, ...],
    borrowed: list[Any],
) -> tuple[list[str], list[int]]:
    """Each row's rater, a borrowed grade's being its source, and the rows
    kept: of several grades one rater holds of an item, the latest."""
    # rows are sorted by (query, doc, annotator) as Python sorts them (UTF-8
    # byte order is code point order), so each row is found by bisection
    keys = list(zip(query_ids, doc_ids, recorded, strict=True))
    raters = list(recorded)
    claims: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    for query_id, doc_id, annotator, source in borrowed:
        position = bisect_left(keys, (query_id, doc_id, annotator))
        raters[position] = source
        claims.setdefault((query_id, doc_id, source), []).append((events[position], position))
    dropped: set[int] = set()
    for key, claimed in claims.items():
        position = bisect_left(keys, key)  # the source's own judgment (an import), if any
        if position < len(keys) and keys[position] == key:
            claimed.append((events[position], position))
        dropped.update(position for _, position in sorted(claimed)[:-1])
    return raters, [i for i in range(len(keys)) if i not in dropped]


@dataclass(frozen=True)
class CodedRatings:
    """Every current grade as numbers: ``rater[i]`` (an index into ``raters``,
    every rater with a grade, sorted) gave ``grade[i]`` to the item numbered
    ``item[i]``; items are numbered 0, 1, ... in no particular order.
    ``kinds[j]`` is the kind of ``raters[j]``; ``adjudications``: the current ones."""

    raters: tuple[str, ...]
    rater: IntArray
    item: IntArray
    grade: IntArray
    kinds: tuple[RaterKind, ...] = ()
    adjudications: int = 0


def coded_ratings(ws: Workspace) -> CodedRatings | None:
    """Every current grade, coded (see `CodedRatings`); None when some model
    grade was recorded under a person's name, or some annotator both imports
    and grades by hand (read `current_ratings` then)."""
    empty = np.zeros(0, dtype=np.int64)
    with read_snapshot(ws.conn) as conn:
        annotators = _annotators(conn)
        if annotators.mixed:
            return None
        if conn.execute(f"SELECT EXISTS (SELECT 1 {_BORROWED})").fetchone()[0]:
            return None
        adjudications = _adjudications(conn)
        raters = tuple(
            name
            for (name,) in conn.execute(
                "SELECT DISTINCT annotator FROM current_judgments WHERE grade IS NOT NULL "
                "ORDER BY annotator"
            )
        )
        if not raters:
            return CodedRatings((), empty, empty, empty, (), adjudications)
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
    kinds = tuple(_kind(name, annotators) for name in raters)
    return CodedRatings(
        raters,
        codes // _SPAN,
        np.cumsum(ends)[~ends],
        codes % _SPAN - _OFFSET,
        kinds,
        adjudications,
    )
