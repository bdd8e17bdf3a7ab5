"""Queries and documents in the workspace: inserting (or correcting) them and reading them."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from judgepool.formats.tables import TableRow
from judgepool.store.workspace import Workspace

CorpusKind = Literal["queries", "documents"]

_EXTRA_COLUMN: Final[dict[str, str]] = {"queries": "narrative", "documents": "title"}


@dataclass(frozen=True)
class CorpusCounts:
    added: int
    updated: int
    unchanged: int


def upsert_rows(
    conn: sqlite3.Connection, kind: CorpusKind, rows: Sequence[TableRow]
) -> CorpusCounts:
    """Insert rows, replacing the text of IDs already present, inside the caller's transaction."""
    extra = _EXTRA_COLUMN[kind]
    existing = {
        identifier: (text, other)
        for identifier, text, other in conn.execute(f"SELECT id, text, {extra} FROM {kind}")
    }
    fresh: list[tuple[str, str, str | None]] = []
    changed: list[tuple[str, str | None, str]] = []
    unchanged = 0
    for row in rows:
        before = existing.get(row.id)
        if before is None:
            fresh.append((row.id, row.text, row.extra))
        elif before == (row.text, row.extra):
            unchanged += 1
        else:
            changed.append((row.text, row.extra, row.id))
    conn.executemany(f"INSERT INTO {kind} (id, text, {extra}) VALUES (?, ?, ?)", fresh)
    conn.executemany(f"UPDATE {kind} SET text = ?, {extra} = ? WHERE id = ?", changed)
    return CorpusCounts(len(fresh), len(changed), unchanged)


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    narrative: str | None


@dataclass(frozen=True)
class Document:
    id: str
    text: str
    title: str | None


def list_queries(ws: Workspace) -> list[Query]:
    return [
        Query(*row)
        for row in ws.conn.execute("SELECT id, text, narrative FROM queries ORDER BY id")
    ]


def get_query(ws: Workspace, query_id: str) -> Query | None:
    row = ws.conn.execute(
        "SELECT id, text, narrative FROM queries WHERE id = ?", (query_id,)
    ).fetchone()
    return None if row is None else Query(*row)


def get_document(ws: Workspace, doc_id: str) -> Document | None:
    row = ws.conn.execute(
        "SELECT id, text, title FROM documents WHERE id = ?", (doc_id,)
    ).fetchone()
    return None if row is None else Document(*row)


def count(ws: Workspace, kind: CorpusKind) -> int:
    return int(ws.conn.execute(f"SELECT COUNT(*) FROM {kind}").fetchone()[0])
