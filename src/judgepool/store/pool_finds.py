"""Documents a person added to a pool, not a run: found by full-text search
from the grade screen (source ``search``), with who added each and the words
that found it. Such a document is a pool member like any other."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from judgepool.store.workspace import Workspace, now


@dataclass(frozen=True)
class PoolFind:
    """A document added to a pool by a person, and how it was found."""

    pool: str
    query_id: str
    doc_id: str
    source: str
    words: str
    annotator: str
    added_at: str


def add_find(
    conn: sqlite3.Connection,
    pool: str,
    query_id: str,
    doc_id: str,
    *,
    source: str,
    words: str,
    annotator: str,
) -> bool:
    """Make the document a member of ``pool`` for the query, recording how it was
    found, inside the caller's transaction; True when it was not a member yet.
    The first find of a document is the one kept."""
    stamp = now()
    conn.execute("INSERT OR IGNORE INTO pools (name, created_at) VALUES (?, ?)", (pool, stamp))
    added = conn.execute(
        "INSERT OR IGNORE INTO pool_members (pool, query_id, doc_id, added_at) VALUES (?, ?, ?, ?)",
        (pool, query_id, doc_id, stamp),
    ).rowcount
    conn.execute(
        "INSERT OR IGNORE INTO pool_finds "
        "(pool, query_id, doc_id, source, words, annotator, added_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (pool, query_id, doc_id, source, words, annotator, stamp),
    )
    return added > 0


def pool_finds(ws: Workspace, query_id: str | None = None) -> list[PoolFind]:
    """Every document added to a pool by a person (of one query, if given)."""
    where = "" if query_id is None else " WHERE query_id = ?"
    params = () if query_id is None else (query_id,)
    return [
        PoolFind(*row)
        for row in ws.conn.execute(
            "SELECT pool, query_id, doc_id, source, words, annotator, added_at "
            f"FROM pool_finds{where} ORDER BY added_at, pool, query_id, doc_id",
            params,
        )
    ]


def pooled_query_docs(ws: Workspace, query_id: str, doc_ids: list[str]) -> set[str]:
    """Those of ``doc_ids`` that are in some pool for the query."""
    if not doc_ids:
        return set()
    marks = ",".join("?" * len(doc_ids))
    return {
        row[0]
        for row in ws.conn.execute(
            f"SELECT DISTINCT doc_id FROM pool_members WHERE query_id = ? AND doc_id IN ({marks})",
            (query_id, *doc_ids),
        )
    }
