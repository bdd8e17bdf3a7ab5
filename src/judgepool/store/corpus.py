"""Queries and documents in the workspace: inserting (or correcting) them and reading
them, whole or (for the app) a bounded piece of a long text at a time."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final, Literal

from judgepool.formats.tables import TableRow
from judgepool.store.database import Database
from judgepool.store.workspace import Workspace

CorpusKind = Literal["queries", "documents"]

_EXTRA_COLUMN: Final[dict[str, str]] = {"queries": "narrative", "documents": "title"}


@dataclass(frozen=True)
class CorpusCounts:
    added: int
    updated: int
    unchanged: int


def upsert_rows(db: Database, kind: CorpusKind, rows: Sequence[TableRow]) -> CorpusCounts:
    """Insert rows, replacing the text of IDs already present, inside the caller's
    write transaction (`Workspace.write`, with the workspace's ``db``).

    New and changed rows go in through one sqlite-utils upsert, many rows per
    statement; for documents, the full-text index follows through its triggers
    (a row per statement made a 100 k-document import over twice as slow)."""
    if not db.conn.in_transaction:
        raise RuntimeError("upsert_rows writes inside Workspace.write() only")
    extra = _EXTRA_COLUMN[kind]
    existing = {
        identifier: (text, other)
        for identifier, text, other in db.execute(f"SELECT id, text, {extra} FROM {kind}")
    }
    fresh = 0
    changed: list[tuple[str, str, str | None]] = []
    unchanged = 0
    for row in rows:
        before = existing.get(row.id)
        if before == (row.text, row.extra):
            unchanged += 1
            continue
        fresh += before is None
        changed.append((row.id, row.text, row.extra))
    if changed:
        header: list[tuple[str, str, str]] = [("id", "text", extra)]
        db.table(kind).upsert_all(itertools.chain(header, changed), pk="id")
    return CorpusCounts(fresh, len(changed) - fresh, unchanged)


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


# -- reading long texts in bounded pieces ------------------------------------------
#
# A document (or a query's text, a title, a narrative) may be megabytes long; the
# app shows a bounded part of it at a time and must never load it whole. Texts
# are read as bytes of their UTF-8 through SQLite's incremental BLOB I/O, which
# reads only the pages that hold the bytes asked for. Not with SQL's length()
# and substr() on the text: both stop at the first NUL character, which a text
# may hold (a JSONL "\u0000"), and substr() on the text or on CAST(text AS
# BLOB) makes SQLite load the whole value first. Workspaces are UTF-8 databases
# (SQLite's default; judgepool never changes it), so the bytes are UTF-8.

TextField = Literal["document text", "document title", "query text", "query narrative"]

_FIELD_COLUMNS: Final[dict[TextField, tuple[str, str]]] = {
    "document text": ("documents", "text"),
    "document title": ("documents", "title"),
    "query text": ("queries", "text"),
    "query narrative": ("queries", "narrative"),
}
_CHUNK_BYTES: Final = 1 << 20  # what counting characters holds in memory at a time
# UTF-8 continuation bytes: every character has exactly one byte outside this range.
_CONTINUATION_BYTES: Final = bytes(range(0x80, 0xC0))


@contextmanager
def _open_text(ws: Workspace, field: TextField, identifier: str) -> Iterator[sqlite3.Blob | None]:
    """A read-only handle on the stored text's bytes; None without the row or the text."""
    table, column = _FIELD_COLUMNS[field]
    row = ws.conn.execute(
        f"SELECT rowid, {column} IS NULL FROM {table} WHERE id = ?", (identifier,)
    ).fetchone()
    if row is None or row[1]:
        yield None
        return
    # The rowid is read just before: documents and queries are updated in place
    # (see upsert_rows), never deleted, so it names the same row.
    with ws.conn.blobopen(table, column, row[0], readonly=True) as blob:
        yield blob


@dataclass(frozen=True)
class TextBytes:
    """Some bytes of a stored text's UTF-8 (``data``) and the text's whole size in bytes."""

    data: bytes
    size: int


def read_text(
    ws: Workspace, field: TextField, identifier: str, start: int, size: int
) -> TextBytes | None:
    """At most ``size`` bytes of a stored text from byte ``start`` (0-based; none past
    its end), and its whole size; None without the row or the text. Only those
    bytes are read, whatever the text's size."""
    with _open_text(ws, field, identifier) as blob:
        if blob is None:
            return None
        whole = len(blob)
        if size <= 0 or start >= whole:
            return TextBytes(b"", whole)
        blob.seek(max(start, 0))
        return TextBytes(blob.read(size), whole)


def text_characters(ws: Workspace, field: TextField, identifier: str) -> int | None:
    """The number of characters of a stored text (None without the row or the text),
    counted a chunk of bytes at a time, so memory stays bounded whatever its size."""
    with _open_text(ws, field, identifier) as blob:
        if blob is None:
            return None
        characters = 0
        while chunk := blob.read(_CHUNK_BYTES):
            characters += len(chunk.translate(None, _CONTINUATION_BYTES))
        return characters


@dataclass(frozen=True)
class QueryHead:
    """A query with the first bytes of its text and narrative, for the grading plan."""

    id: str
    text: TextBytes
    narrative: TextBytes | None


def query_heads(ws: Workspace, head_bytes: int) -> list[QueryHead]:
    """Every query, in ID order, with at most ``head_bytes`` bytes of its text and
    narrative. (A whole value passes through SQLite here, never through Python:
    queries are short, and this reads them all in one statement.)"""
    heads: list[QueryHead] = []
    for identifier, text, text_size_, narrative, narrative_size in ws.conn.execute(
        "SELECT id, substr(CAST(text AS BLOB), 1, :n), length(CAST(text AS BLOB)),"
        " substr(CAST(narrative AS BLOB), 1, :n), length(CAST(narrative AS BLOB))"
        " FROM queries ORDER BY id",
        {"n": head_bytes},
    ):
        heads.append(
            QueryHead(
                identifier,
                TextBytes(text, text_size_),
                None if narrative is None else TextBytes(narrative, narrative_size),
            )
        )
    return heads
