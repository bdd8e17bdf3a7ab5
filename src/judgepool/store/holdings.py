"""Which query and document IDs a workspace holds, and which of them look like
a given one.

A workspace **holds** an ID when any of its tables names it:

- queries: the ``queries`` table (imported topics), a judgment event (any
  annotator, any source, withdrawn ones included), a pool, or a stored run;
- documents: the ``documents`` table, a judgment event, a pool or a run.

Speed: ``judge`` asks on every call, so the answer is read from the cheapest
table first: the (query, doc) pair in a pool or the ledger (both indexed),
then the ID alone in its table (primary key) and the ledger and pools, and
only then a stored run, whose lines have no index on IDs (a run of 7 M lines
takes about a second to scan, stopping at the first line naming the ID).
Looking for similar IDs happens only when an ID is refused, in one pass per
table that reads only IDs sharing a long part with it (see `similar_ids`),
never every ID of a large run.
"""

from __future__ import annotations

import sqlite3
from typing import Final, Literal

IdKind = Literal["query", "document"]

# (table, column) holding IDs of each kind, cheapest lookup first.
_SOURCES: Final[dict[IdKind, tuple[tuple[str, str], ...]]] = {
    "query": (
        ("queries", "id"),
        ("judgment_events", "query_id"),
        ("pool_members", "query_id"),
        ("run_lines", "query_id"),
    ),
    "document": (
        ("documents", "id"),
        ("judgment_events", "doc_id"),
        ("pool_members", "doc_id"),
        ("run_lines", "doc_id"),
    ),
}

# A pattern matching more distinct IDs than this says nothing about which
# one was meant; it is dropped rather than read in full.
UNSELECTIVE: Final = 20_000


def holds_item(conn: sqlite3.Connection, query_id: str, doc_id: str) -> bool:
    """The pair itself is pooled or judged: both IDs are held (two index lookups)."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pool_members WHERE query_id = ? AND doc_id = ?) "
        "OR EXISTS (SELECT 1 FROM judgment_events WHERE query_id = ? AND doc_id = ?)",
        (query_id, doc_id, query_id, doc_id),
    ).fetchone()
    return bool(row[0])


def holds(conn: sqlite3.Connection, kind: IdKind, value: str) -> bool:
    """Whether the workspace holds ``value`` as a query or document ID (see the module)."""
    for table, column in _SOURCES[kind]:
        # Table and column names come from _SOURCES above, never from input.
        found = conn.execute(
            f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {column} = ?)", (value,)
        ).fetchone()[0]
        if found:
            return True
    return False


def glob_literal(text: str) -> str:
    """``text`` as a GLOB pattern matching itself only (``*``, ``?``, ``[`` bracketed)."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in text)


def affix_patterns(value: str) -> list[str]:
    """GLOB patterns for IDs one or two edits away from ``value``.

    A single edit (a character changed, added, dropped, or two swapped) at
    any position leaves either the first half or the second half intact, so
    an ID sharing either half is a candidate. IDs with a long common prefix
    (``msmarco_passage_00_…``, URLs) make the first half match nearly every
    ID; the all-but-the-last-three-characters prefix (and its mirror) then
    still finds the neighbours of a typo near the end.
    """
    size = len(value)
    middle = size // 2
    patterns = [glob_literal(value[:middle]) + "*", "*" + glob_literal(value[middle + 1 :])]
    if size >= 8:
        patterns += [glob_literal(value[:-3]) + "*", "*" + glob_literal(value[3:])]
    return patterns


def similar_ids(conn: sqlite3.Connection, kind: IdKind, value: str) -> set[str]:
    """Held IDs of ``kind`` sharing a long part with ``value`` (see `affix_patterns`).

    One pass over each table tries every pattern at once. A pattern matching
    more than `UNSELECTIVE` distinct IDs says nothing about which was meant:
    the pass stops as soon as one does, and starts again without it (it
    overflows early, so the aborted pass is short)."""
    found: set[str] = set()
    for table, column in _SOURCES[kind]:
        found |= _matching(conn, table, column, affix_patterns(value))
    return found


def _matching(conn: sqlite3.Connection, table: str, column: str, patterns: list[str]) -> set[str]:
    active = list(dict.fromkeys(patterns))
    while active:
        # Table, column and the number of placeholders come from this module.
        flags = ", ".join(f"{column} GLOB ?" for _ in active)
        where = " OR ".join(f"{column} GLOB ?" for _ in active)
        cursor = conn.execute(
            f"SELECT DISTINCT {column}, {flags} FROM {table} WHERE {where}", active + active
        )
        matches: list[set[str]] = [set() for _ in active]
        overflowed: int | None = None
        for row in cursor:
            for index, hit in enumerate(row[1:]):
                if hit:
                    matches[index].add(row[0])
                    if len(matches[index]) > UNSELECTIVE:
                        overflowed = index
            if overflowed is not None:
                break
        cursor.close()
        if overflowed is None:
            return set().union(*matches)
        del active[overflowed]
    return set()


def annotator_names(conn: sqlite3.Connection) -> list[str]:
    """Every annotator the workspace knows (few: read them all)."""
    return [row[0] for row in conn.execute("SELECT name FROM annotators ORDER BY name")]


def holds_annotator(conn: sqlite3.Connection, name: str) -> bool:
    """Whether ``name`` has graded, or was recorded, in the workspace."""
    row = conn.execute("SELECT EXISTS (SELECT 1 FROM annotators WHERE name = ?)", (name,))
    return bool(row.fetchone()[0])
