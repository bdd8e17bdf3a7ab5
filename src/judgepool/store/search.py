"""Full-text search over the documents' title and text.

The index is SQLite's FTS5 (schema migration 4, made and searched through
sqlite-utils): it reads the text from the ``documents`` table itself and is
kept in step by triggers in the same transaction as every import or
correction of a document. A search is words as a person types them, never
FTS5's query language: each word (or "quoted phrase") must appear, and words
like OR, NOT or NEAR are words to find. Matches come best first (FTS5's
bm25 rank), then by document ID.
"""

from __future__ import annotations

from typing import Final

from judgepool.core.terms.errors import InputError
from judgepool.store.workspace import Workspace

DEFAULT_LIMIT: Final = 50


def search_documents(
    ws: Workspace, text: str, *, limit: int = DEFAULT_LIMIT, any_word: bool = False
) -> list[str]:
    """The IDs of at most ``limit`` documents holding every word of ``text`` (or,
    with ``any_word``, at least one of them) in their title or text, best match
    first; none for text without a word."""
    if limit <= 0:
        raise ValueError(f"limit must be positive, got {limit}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            "the search text holds bytes that are not UTF-8; type it in UTF-8"
        ) from None
    # A NUL ends FTS5's reading of the query: as a separator it means what a
    # person typing it could mean.
    query = ws.db.quote_fts(text.replace("\x00", " "))
    if not query:
        return []
    if any_word:
        # quote_fts writes each word quoted, separated by spaces (FTS5's AND)
        query = " OR ".join(_quoted_words(query))
    rows = ws.db.table("documents").search(
        query,
        columns=["id"],
        order_by="rank, id",
        limit=limit,
    )
    return [row["id"] for row in rows]


def _quoted_words(query: str) -> list[str]:
    """The quoted words (or phrases) of a query `quote_fts` wrote."""
    words: list[str] = []
    at = 0
    while at < len(query):
        if query[at] != '"':
            at += 1
            continue
        end = at + 1
        while end < len(query):
            if query[end] == '"' and query[end + 1 : end + 2] == '"':
                end += 2  # a doubled quote is a quote inside the word
                continue
            if query[end] == '"':
                break
            end += 1
        words.append(query[at : end + 1])
        at = end + 1
    return words
