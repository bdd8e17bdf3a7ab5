"""Documents a person added to a pool, not a run: found by full-text search
from the grade screen (source ``search``), with who added each and the words
that found it. Such a document is a pool member like any other.

Under a lead's review a find is first a ``proposal`` (recorded, not pooled);
the lead's decision is a row of its own, ``accepted`` (the document joins the
pool as a ``search`` find of the proposer's) or ``rejected``, its annotator
the lead: the table is the log of finds, and nothing in it changes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Final, Literal

from judgepool.store.workspace import Workspace, now

PROPOSAL: Final = "proposal"
Decision = Literal["accepted", "rejected"]


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


def judged_query_docs(ws: Workspace, query_id: str, doc_ids: list[str]) -> set[str]:
    """Those of ``doc_ids`` with a current grade for the query from a person or
    an import (not a model's label: evidence, not a judgment) or a current
    adjudication."""
    if not doc_ids:
        return set()
    marks = ",".join("?" * len(doc_ids))
    return {
        str(row[0])
        for row in ws.conn.execute(
            "SELECT c.doc_id FROM current_judgments c JOIN judgment_events e ON e.id = c.event_id "
            f"WHERE c.query_id = ? AND c.doc_id IN ({marks}) AND c.grade IS NOT NULL "
            "  AND c.annotator NOT LIKE 'model:_%' AND e.source NOT LIKE 'model:_%' "
            "UNION SELECT doc_id FROM current_adjudications "
            f"WHERE query_id = ? AND doc_id IN ({marks})",
            (query_id, *doc_ids, query_id, *doc_ids),
        )
    }


def propose_find(
    conn: sqlite3.Connection, pool: str, query_id: str, doc_id: str, *, words: str, annotator: str
) -> bool:
    """Record a proposal that the document join ``pool`` for the query, inside
    the caller's transaction; True when it was not proposed before."""
    return (
        conn.execute(
            "INSERT OR IGNORE INTO pool_finds "
            "(pool, query_id, doc_id, source, words, annotator, added_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (pool, query_id, doc_id, PROPOSAL, words, annotator, now()),
        ).rowcount
        > 0
    )


@dataclass(frozen=True)
class Proposal:
    """A find proposed under a lead's review, and the decision (None: open)."""

    pool: str
    query_id: str
    doc_id: str
    words: str
    annotator: str
    proposed_at: str
    decision: Decision | None = None
    lead: str | None = None
    decided_at: str | None = None


def proposals(ws: Workspace) -> list[Proposal]:
    """Every proposal, in the order proposed, with its decision."""
    return [
        Proposal(*row)
        for row in ws.conn.execute(
            "SELECT p.pool, p.query_id, p.doc_id, p.words, p.annotator, p.added_at, "
            "  d.source, d.annotator, d.added_at FROM pool_finds p "
            "LEFT JOIN pool_finds d ON d.pool = p.pool AND d.query_id = p.query_id "
            "  AND d.doc_id = p.doc_id AND d.source IN ('accepted', 'rejected') "
            "WHERE p.source = ? ORDER BY p.added_at, p.query_id, p.doc_id",
            (PROPOSAL,),
        )
    ]


def decide(conn: sqlite3.Connection, proposal: Proposal, decision: Decision, lead: str) -> None:
    """Record ``lead``'s decision on an open proposal inside the caller's
    transaction; accepted, the document joins the pool as the proposer's find."""
    conn.execute(
        "INSERT INTO pool_finds (pool, query_id, doc_id, source, words, annotator, added_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (proposal.pool, proposal.query_id, proposal.doc_id, decision, proposal.words, lead, now()),
    )
    if decision == "accepted":
        add_find(
            conn, proposal.pool, proposal.query_id, proposal.doc_id, source="search",
            words=proposal.words, annotator=proposal.annotator,
        )  # fmt: skip
