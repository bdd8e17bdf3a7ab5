"""What the app's grade screen reads from a workspace, built on the store's
public functions: the grading plan (queries, the pooled documents of each,
every current judgment), one document or query, and one item's judgments
after an undo.

The plan hides how a document entered the pool: each query's documents are
ordered by a hash of (query, document), never by run or rank, with the
documents nobody has graded yet first, so grading walks through the work
still to do before the work already done.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from judgepool.core.contract import Scale
from judgepool.store import corpus, ledger, pools
from judgepool.store.corpus import Document, Query
from judgepool.store.workspace import Workspace

Item = tuple[str, str]  # (query ID, document ID)


@dataclass(frozen=True)
class ItemJudgment:
    """The current judgments of one (query, document).

    ``own_*`` is the grading annotator's state (a grade, unsure, or nothing;
    ``own_event`` the ledger event behind it); ``others`` the grades other
    annotators (imported qrels included) currently hold.
    """

    own_grade: int | None = None
    own_unsure: bool = False
    own_event: int | None = None
    others: tuple[tuple[str, int], ...] = ()

    @property
    def judged(self) -> bool:
        """Someone holds a grade for the item (unsure is not a grade)."""
        return self.own_grade is not None or bool(self.others)


NOT_JUDGED = ItemJudgment()


@dataclass
class PlanQuery:
    """A query to grade and its pooled documents, in grading order."""

    id: str
    text: str
    narrative: str | None
    doc_ids: list[str] = field(default_factory=list)


@dataclass
class GradingPlan:
    """Everything the grade screen needs at start, read in one go."""

    queries: list[PlanQuery]
    judgments: dict[Item, ItemJudgment]
    scale: Scale
    labels: dict[int, str]


def _neutral_key(query_id: str, doc_id: str) -> bytes:
    # A hash, not the doc ID: IDs can encode rank (NovelEval's "3-0" is query
    # 3's first search result), and sorting by them would leak it.
    return hashlib.blake2b(f"{query_id}\x00{doc_id}".encode(), digest_size=8).digest()


def item_judgments(
    ws: Workspace, annotator: str, query_id: str | None = None
) -> dict[Item, ItemJudgment]:
    """Every current judgment (of one query, or all), seen from ``annotator``."""
    own: dict[Item, tuple[int | None, bool, int]] = {}
    others: dict[Item, list[tuple[str, int]]] = {}
    for row in ledger.current_judgments(ws, query_id=query_id):
        item = (row.query_id, row.doc_id)
        if row.annotator == annotator:
            own[item] = (row.grade, row.unsure, row.event_id)
        elif row.grade is not None:
            others.setdefault(item, []).append((row.annotator, row.grade))
    result: dict[Item, ItemJudgment] = {}
    for item in own.keys() | others.keys():
        grade, unsure, event = own.get(item, (None, False, None))
        result[item] = ItemJudgment(grade, unsure, event, tuple(others.get(item, ())))
    return result


def item_judgment(ws: Workspace, annotator: str, query_id: str, doc_id: str) -> ItemJudgment:
    """One item's current judgments, seen from ``annotator``."""
    return item_judgments(ws, annotator, query_id).get((query_id, doc_id), NOT_JUDGED)


def order_for_grading(
    query_id: str, doc_ids: Iterable[str], judgments: dict[Item, ItemJudgment]
) -> list[str]:
    """Unjudged documents first, each group in the neutral (hashed) order."""
    return sorted(
        set(doc_ids),
        key=lambda doc: (
            judgments.get((query_id, doc), NOT_JUDGED).judged,
            _neutral_key(query_id, doc),
        ),
    )


def grading_plan(ws: Workspace, annotator: str) -> GradingPlan:
    """The queries that have pooled documents (in every pool), in query order,
    each with its documents in grading order, and every current judgment."""
    pooled: dict[str, set[str]] = {}
    for name in pools.list_pools(ws):
        for member in pools.pool_members(ws, name):
            pooled.setdefault(member.query_id, set()).add(member.doc_id)
    judgments = item_judgments(ws, annotator)
    known = {query.id: query for query in corpus.list_queries(ws)}
    ordered = [q for q in known if q in pooled] + sorted(q for q in pooled if q not in known)
    queries: list[PlanQuery] = []
    for query_id in ordered:
        query = known.get(query_id)
        queries.append(
            PlanQuery(
                query_id,
                query.text if query is not None else "",
                query.narrative if query is not None else None,
                order_for_grading(query_id, pooled[query_id], judgments),
            )
        )
    return GradingPlan(queries, judgments, ws.scale, ws.labels())


def plan_query(ws: Workspace, query_id: str) -> PlanQuery:
    """A query not yet in the plan (sent to grading from the audit), with no documents."""
    query = corpus.get_query(ws, query_id)
    if query is None:
        return PlanQuery(query_id, "", None)
    return PlanQuery(query.id, query.text, query.narrative)


def document(ws: Workspace, doc_id: str) -> Document | None:
    """A document's text and title, or None when the workspace has no text for it."""
    return corpus.get_document(ws, doc_id)


def note_of(ws: Workspace, event_id: int | None) -> str | None:
    """The note of a ledger event (None without an event or a note)."""
    return None if event_id is None else ledger.get_event(ws, event_id).note


def query(ws: Workspace, query_id: str) -> Query | None:
    return corpus.get_query(ws, query_id)
