"""Search and judge: full-text search over the documents from the grade
screen, to find relevant documents the pool missed, as TREC assessors do
outside the pool. A document found this way joins the pool (source
``search``, with the words and who added it: `judgepool.store.pool_finds`) and
is graded like any other.

The workspace's setting (`judgepool.services.settings.search_judging`) has
the lead's say: ``allowed``, a new document joins the pool at once;
``review``, it is proposed, and joins once a lead accepts it
(`decide_proposals`, ``judgepool finds``); ``off``, nothing is searched. A
document already judged (by a person, an import or an adjudicator) is not
added to anyone's queue: there is nothing the pool missed (it used to be put
in the finder's queue, and into the pool).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from judgepool.core.terms.errors import InputError, PolicyError
from judgepool.display import quoted
from judgepool.services.entry_checks import annotator_name, check_id, check_known_item
from judgepool.services.settings import search_judging
from judgepool.services.text_parts import text_part
from judgepool.store.pool_finds import (
    Decision,
    Proposal,
    add_find,
    decide,
    judged_query_docs,
    pooled_query_docs,
    proposals,
    propose_find,
)
from judgepool.store.search import DEFAULT_LIMIT, search_documents
from judgepool.store.workspace import Workspace

FoundOutcome = Literal["added", "pooled", "proposed", "judged"]
"""What became of a document chosen from the results: it joined the pool, was
pooled already, was proposed to a lead, or is judged already (nothing done)."""

SEARCH_OFF: Final = (
    "search and judge is off in this workspace (a lead turns it on: judgepool settings WS "
    "--search-judge allowed|review)"
)

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
    as stored (the app shows it repaired, on one line: `judgepool.display.one_line`),
    whether the query's pool holds it already and whether it is judged for the
    query (by anyone but a model; not by whom, nor the grade)."""

    doc_id: str
    snippet: str
    pooled: bool
    judged: bool = False


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
    judged = judged_query_docs(ws, query_id, found)
    hits = []
    for doc_id in found:
        part = text_part(ws, "document text", doc_id, limit=SNIPPET_CHARACTERS)
        snippet = part.text if part is not None else ""
        hits.append(SearchHit(doc_id, snippet, doc_id in pooled, doc_id in judged))
    return SearchResult(hits, any_word)


def search_refusal(ws: Workspace) -> str | None:
    """Why search and judge may not search in ``ws`` (None: it may)."""
    return SEARCH_OFF if search_judging(ws) == "off" else None


def add_found_document(
    ws: Workspace, query_id: str, doc_id: str, *, words: str, annotator: str
) -> FoundOutcome:
    """Put ``doc_id``, found by searching ``words``, into the pool of
    ``query_id`` with source ``search`` as the workspace's setting says (see
    the module): what became of it. Refused (`PolicyError`) when search and
    judge is off."""
    check_id("query", query_id)
    check_id("document", doc_id)
    annotator = annotator_name(ws, annotator)
    check_known_item(ws, query_id, doc_id)
    if not words.strip():
        raise InputError(f"say which words found document {quoted(doc_id)}")
    mode = search_judging(ws)
    if mode == "off":
        raise PolicyError(SEARCH_OFF)
    with ws.write() as conn:
        # read in the write transaction: no grade can slip in between
        if judged_query_docs(ws, query_id, [doc_id]):
            return "judged"
        if mode == "review" and not pooled_query_docs(ws, query_id, [doc_id]):
            propose_find(conn, SEARCH_POOL, query_id, doc_id, words=words, annotator=annotator)
            return "proposed"
        added = add_find(
            conn, SEARCH_POOL, query_id, doc_id, source="search", words=words, annotator=annotator
        )
    return "added" if added else "pooled"


def found_proposals(ws: Workspace, *, open_only: bool = False) -> list[Proposal]:
    """The documents proposed under a lead's review, in the order proposed,
    with the lead's decision (``open_only``: those not decided yet)."""
    return [found for found in proposals(ws) if not open_only or found.decision is None]


def decide_proposals(
    ws: Workspace,
    decision: Decision,
    *,
    lead: str,
    query_id: str | None = None,
    doc_id: str | None = None,
) -> list[Proposal]:
    """Record ``lead``'s decision on the open proposal of ``doc_id`` for
    ``query_id``, or (both None) on every open one, in one transaction;
    accepted, a document joins the pool as its finder's ``search`` find. The
    proposals decided; refused when there is no such open proposal."""
    lead = annotator_name(ws, lead)
    if (query_id is None) != (doc_id is None):
        raise InputError("name both the query and the document, or neither (every open one)")
    with ws.write() as conn:
        chosen = [
            found
            for found in found_proposals(ws, open_only=True)
            if query_id is None or (found.query_id, found.doc_id) == (query_id, doc_id)
        ]
        if not chosen:
            what = (
                ""
                if query_id is None
                else f" of query {quoted(query_id)} doc {quoted(str(doc_id))}"
            )
            raise InputError(f"no open proposal{what} (judgepool finds WS lists them)")
        for found in chosen:
            decide(conn, found, decision, lead)
    return chosen
