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
    terms = search_terms(text)
    if not terms:
        return []
    rows = ws.db.table("documents").search(
        (" OR " if any_word else " ").join(terms),  # FTS5: space is AND
        columns=["id"],
        order_by="rank, id",
        limit=limit,
    )
    return [row["id"] for row in rows]


def search_terms(text: str) -> list[str]:
    """``text`` as FTS5 strings, one per word or "quoted phrase", each in
    quotes so that nothing in it is FTS5's syntax (the user's quotes only
    delimit phrases, so no term holds one). A quote left open runs to the
    end; a phrase may span lines. Written here, not left to sqlite-utils'
    ``quote_fts``: that one looks for phrases within one line, so ``"``
    newline ``:`` became ``" ":""``, which FTS5 read as a column name and
    refused ("no such column")."""
    # A NUL ends FTS5's reading of the query: as a separator it means what a
    # person typing it could mean.
    text = text.replace("\x00", " ")
    terms: list[str] = []
    for at, part in enumerate(text.split('"')):
        # the parts between quotes are phrases, the others words
        for term in [part] if at % 2 else part.split():
            if term.strip():
                terms.append(f'"{term}"')
    return terms
