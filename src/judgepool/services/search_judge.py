"""Search and judge: full-text search over the documents from the grade
screen, to find relevant documents the pool missed, as TREC assessors do
outside the pool. A document found this way joins the pool (source
``search``, with the words and who added it: `judgepool.store.pool_finds`) and
is graded like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from judgepool.core.errors import InputError
from judgepool.display import quoted
from judgepool.services.entry_checks import annotator_name, check_id, check_known_item
from judgepool.services.text_parts import text_part
from judgepool.store.pool_finds import add_find, pooled_query_docs
from judgepool.store.search import DEFAULT_LIMIT, search_documents
from judgepool.store.workspace import Workspace

SEARCH_POOL: Final = "default"
"""The pool a found document joins: the one `judgepool pool` fills by default."""

SNIPPET_CHARACTERS: Final = 200


@dataclass(frozen=True)
class SearchResult:
    """What a search found, and whether it needed every word or any of them."""

    hits: list[SearchHit]
    any_word: bool


@dataclass(frozen=True)
class SearchHit:
    """A document that holds every word searched: its ID, the start of its text
    as stored (the app shows it repaired, on one line: `judgepool.display.one_line`)
    and whether the query's pool holds it already."""

    doc_id: str
    snippet: str
    pooled: bool


def search_for_query(
    ws: Workspace, query_id: str, words: str, *, limit: int = DEFAULT_LIMIT
) -> SearchResult:
    """The documents holding every word of ``words``, best first, each saying
    whether it is pooled for ``query_id``; when none holds them all (a query's
    whole text rarely is in one passage), those holding any of them."""
    any_word = False
    found = search_documents(ws, words, limit=limit)
    if not found:
        any_word = True
        found = search_documents(ws, words, limit=limit, any_word=True)
    pooled = pooled_query_docs(ws, query_id, found)
    hits = []
    for doc_id in found:
        part = text_part(ws, "document text", doc_id, limit=SNIPPET_CHARACTERS)
        snippet = part.text if part is not None else ""
        hits.append(SearchHit(doc_id, snippet, doc_id in pooled))
    return SearchResult(hits, any_word)


def add_found_document(
    ws: Workspace, query_id: str, doc_id: str, *, words: str, annotator: str
) -> bool:
    """Add ``doc_id``, found by searching ``words``, to the pool of ``query_id``
    with source ``search``; True when it was not pooled for the query before."""
    check_id("query", query_id)
    check_id("document", doc_id)
    annotator = annotator_name(ws, annotator)
    check_known_item(ws, query_id, doc_id)
    if not words.strip():
        raise InputError(f"say which words found document {quoted(doc_id)}")
    with ws.write() as conn:
        return add_find(
            conn, SEARCH_POOL, query_id, doc_id, source="search", words=words, annotator=annotator
        )
