"""Pools: the documents chosen for judging per query, and every run and rank that brought each in.

A pool only grows: extending it (deeper, or with more runs) adds members and
sources and never removes one, so work already planned or done stays in it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from judgepool.store.workspace import Workspace, now


@dataclass(frozen=True)
class PoolSource:
    run: str
    rank: int
    depth: int


@dataclass(frozen=True)
class PoolMember:
    query_id: str
    doc_id: str
    added_at: str
    sources: tuple[PoolSource, ...]


def add_to_pool(
    conn: sqlite3.Connection,
    pool: str,
    contributions: Iterable[tuple[str, str, str, int]],
    depth: int,
) -> int:
    """Record (query, doc, run, rank) contributions inside the caller's transaction;
    returns how many (query, doc) members are new."""
    stamp = now()
    conn.execute("INSERT OR IGNORE INTO pools (name, created_at) VALUES (?, ?)", (pool, stamp))
    before = conn.execute("SELECT COUNT(*) FROM pool_members WHERE pool = ?", (pool,)).fetchone()[0]
    rows = list(contributions)
    conn.executemany(
        "INSERT OR IGNORE INTO pool_members (pool, query_id, doc_id, added_at) VALUES (?, ?, ?, ?)",
        ((pool, query_id, doc_id, stamp) for query_id, doc_id, _, _ in rows),
    )
    # A deeper extension does not rewrite how a document first came in.
    conn.executemany(
        "INSERT OR IGNORE INTO pool_sources (pool, query_id, doc_id, run, rank, depth, added_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        ((pool, query_id, doc_id, run, rank, depth, stamp) for query_id, doc_id, run, rank in rows),
    )
    after = conn.execute("SELECT COUNT(*) FROM pool_members WHERE pool = ?", (pool,)).fetchone()[0]
    return int(after) - int(before)


def list_pools(ws: Workspace) -> list[str]:
    return [row[0] for row in ws.conn.execute("SELECT name FROM pools ORDER BY name")]


def pool_members(ws: Workspace, pool: str, query_id: str | None = None) -> list[PoolMember]:
    """The pool's members by query and doc ID, each with its sources (best rank first)."""
    params: list[str] = [pool]
    where = "m.pool = ?"
    if query_id is not None:
        where += " AND m.query_id = ?"
        params.append(query_id)
    rows = ws.conn.execute(
        "SELECT m.query_id, m.doc_id, m.added_at, s.run, s.rank, s.depth "
        "FROM pool_members m LEFT JOIN pool_sources s "
        "  ON s.pool = m.pool AND s.query_id = m.query_id AND s.doc_id = m.doc_id "
        f"WHERE {where} ORDER BY m.query_id, m.doc_id, s.rank, s.run",
        params,
    )
    members: list[PoolMember] = []
    current: tuple[str, str] | None = None
    added_at = ""
    sources: list[PoolSource] = []
    for query, doc, added, run, rank, depth in rows:
        if (query, doc) != current:
            if current is not None:
                members.append(PoolMember(current[0], current[1], added_at, tuple(sources)))
            current, added_at, sources = (query, doc), added, []
        if run is not None:
            sources.append(PoolSource(run, rank, depth))
    if current is not None:
        members.append(PoolMember(current[0], current[1], added_at, tuple(sources)))
    return members


def pool_size(ws: Workspace, pool: str) -> tuple[int, int]:
    """(members, queries) of a pool."""
    row = ws.conn.execute(
        "SELECT COUNT(*), COUNT(DISTINCT query_id) FROM pool_members WHERE pool = ?", (pool,)
    ).fetchone()
    return int(row[0]), int(row[1])


def pooled_query_ids(ws: Workspace) -> list[str]:
    """Every query that some pool holds a document of, sorted."""
    rows = ws.conn.execute("SELECT DISTINCT query_id FROM pool_members ORDER BY query_id")
    return [str(row[0]) for row in rows]
