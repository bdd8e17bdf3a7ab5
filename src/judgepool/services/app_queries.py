"""What the app's grade screen reads from a workspace: the grading plan (queries,
the pooled documents of each, who has judged what), a bounded part of one
document, and one item's current judgments.

The plan hides how a document entered the pool: each query's documents are
ordered by a checksum of (query, document), never by run or rank, with the
documents nobody has graded yet first, so grading walks through the work
still to do before the work already done.

The plan is built from plain rows (`judgepool.store.grading`) rather than the
store's record per pool member, which carries every run and rank that
brought it in: run and rank are exactly what grading hides. Other
annotators' grades are read per document, when it is shown.

Texts reach the screen in bounded parts (`judgepool.services.text_parts`),
whatever their size: a query's text and narrative are read cut at
`PREVIEW_CHARACTERS`, a document's text a part at a time.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from judgepool.core.team.raters import kind_of_name
from judgepool.core.terms.contract import Scale
from judgepool.services.text_parts import (
    MAX_UTF8,
    PREVIEW_CHARACTERS,
    PartWhere,
    TextPart,
    preview,
    text_part,
    whole_text,
)
from judgepool.store import corpus, grading, grading_live
from judgepool.store.ledger import get_event
from judgepool.store.workspace import Workspace

Item = tuple[str, str]  # (query ID, document ID)


@dataclass(frozen=True)
class ItemJudgment:
    """The current judgments of one (query, document).

    ``own_*`` is the grading annotator's state (a grade, unsure, or nothing;
    ``own_event`` the ledger event behind it; ``own_note`` their latest note on
    the item). ``others_graded``: another annotator (imported qrels included)
    holds a grade; ``others`` lists them as (annotator, grade) and
    ``others_notes`` their notes as (annotator, note), when they were read and
    grading is open (see `item_judgment`).
    """

    own_grade: int | None = None
    own_unsure: bool = False
    own_event: int | None = None
    others_graded: bool = False
    others: tuple[tuple[str, int], ...] = ()
    own_note: str | None = None
    others_notes: tuple[tuple[str, str], ...] = ()

    @property
    def judged(self) -> bool:
        """Someone holds a grade for the item (unsure is not a grade)."""
        return self.own_grade is not None or self.others_graded


NOT_JUDGED = ItemJudgment()
GRADED_BY_OTHERS = ItemJudgment(others_graded=True)


@dataclass
class PlanQuery:
    """A query to grade and its pooled documents, in grading order; its text and
    narrative cut at `PREVIEW_CHARACTERS`."""

    id: str
    text: TextPart
    narrative: TextPart | None
    doc_ids: list[str] = field(default_factory=list)


@dataclass
class GradingPlan:
    """Everything the grade screen needs at start, read in one go.

    ``judgments`` holds the items someone has judged (or the annotator marked
    unsure); an item absent from it is not judged.
    """

    queries: list[PlanQuery]
    judgments: dict[Item, ItemJudgment]
    scale: Scale
    labels: dict[int, str]
    personal: bool = False
    """The plan is the annotator's own queue (their items of the current
    assignment): an item is done once *they* grade it. Otherwise it is the
    whole pool, where an item is done once anyone grades it."""


def done_for(judgment: ItemJudgment, personal: bool) -> bool:
    """Whether an item needs no more grading: graded by the annotator in a
    personal queue, by anyone in the whole pool."""
    return judgment.own_grade is not None if personal else judgment.judged


def order_for_grading(
    query_id: str,
    doc_ids: Iterable[str],
    judgments: Mapping[Item, ItemJudgment],
    personal: bool = False,
) -> list[str]:
    """Documents still to grade first, each group in the neutral (checksum) order."""
    # The neutral order is a checksum of (query, doc), not the doc ID: IDs can
    # encode rank (NovelEval's "3-0" is query 3's first search result), and
    # sorting by them would leak it. Keys are built in one comprehension rather
    # than by a key function: this runs for every pooled document at start.
    seed = zlib.crc32(f"{query_id}\x00".encode())
    keyed = [
        (
            (query_id, doc) in judgments and done_for(judgments[(query_id, doc)], personal),
            zlib.crc32(doc.encode(), seed),
            doc,
        )
        for doc in set(doc_ids)
    ]
    keyed.sort()
    return [doc for _, _, doc in keyed]


def grading_plan(ws: Workspace, annotator: str) -> GradingPlan:
    """The queries that have pooled documents (in any pool), in query order,
    each with its documents in grading order, and who has judged what. When
    the current assignment gives ``annotator`` items, only those: their queue."""
    pooled: dict[str, list[str]] = {}
    judgments: dict[Item, ItemJudgment] = {}
    mine = grading_live.assigned_to(ws, annotator)
    for query_id, doc_id, others_graded in grading.pooled_items(ws, annotator):
        if mine is not None and (query_id, doc_id) not in mine:
            continue
        pooled.setdefault(query_id, []).append(doc_id)
        if others_graded:
            judgments[(query_id, doc_id)] = GRADED_BY_OTHERS
    for query_id, doc_id, grade, unsure, event_id in grading.own_states(ws, annotator):
        item = (query_id, doc_id)
        others = judgments.get(item, NOT_JUDGED).others_graded
        judgments[item] = ItemJudgment(grade, unsure, event_id, others)
    known = {head.id: head for head in corpus.query_heads(ws, PREVIEW_CHARACTERS * MAX_UTF8)}
    ordered = [q for q in known if q in pooled] + sorted(q for q in pooled if q not in known)
    queries: list[PlanQuery] = []
    for query_id in ordered:
        head = known.get(query_id)
        text = whole_text("") if head is None else preview(ws, "query text", query_id, head.text)
        narrative = None
        if head is not None and head.narrative is not None:
            narrative = preview(ws, "query narrative", query_id, head.narrative)
        queries.append(
            PlanQuery(
                query_id,
                text,
                narrative,
                order_for_grading(query_id, pooled[query_id], judgments, mine is not None),
            )
        )
    return GradingPlan(queries, judgments, ws.scale, ws.labels(), personal=mine is not None)


def item_judgment(
    ws: Workspace, annotator: str, query_id: str, doc_id: str, *, blind: bool = False
) -> ItemJudgment:
    """One item's current judgments, seen from ``annotator``, with their latest
    note and, unless ``blind``, the other annotators' grades and notes listed
    (blind: only whether someone else holds a grade, never who or which)."""
    own: tuple[int | None, bool, int | None] = (None, False, None)
    others: list[tuple[str, int]] = []
    for who, grade, unsure, event_id in grading.item_states(ws, query_id, doc_id):
        if who == annotator:
            own = (grade, unsure, event_id)
        elif grade is not None:
            others.append((who, grade))
    notes = grading_live.latest_notes(ws, query_id, doc_id)
    others_notes = tuple((who, note) for who, note in notes.items() if who != annotator)
    # a model's label is not a person's grade: it does not make the item done
    # (`grading.pooled_items`), and grading open lists it under its name,
    # model:NAME, which says whose it is
    people = [who for who, _ in others if kind_of_name(who) != "model"]
    return ItemJudgment(
        *own,
        others_graded=bool(people),
        others=() if blind else tuple(others),
        own_note=notes.get(annotator),
        others_notes=() if blind else others_notes,
    )


def item_judgments(ws: Workspace, annotator: str) -> dict[Item, ItemJudgment]:
    """Every item with a current judgment, seen from ``annotator`` (for checks and
    reports: the app itself reads `grading_plan` and `item_judgment`)."""
    return {(q, d): item_judgment(ws, annotator, q, d) for q, d in grading.judged_items(ws)}


def plan_query(ws: Workspace, query_id: str) -> PlanQuery:
    """A query not yet in the plan (sent to grading from the audit), with no documents."""
    text = text_part(ws, "query text", query_id, limit=PREVIEW_CHARACTERS)
    narrative = text_part(ws, "query narrative", query_id, limit=PREVIEW_CHARACTERS)
    return PlanQuery(query_id, text or whole_text(""), narrative)


@dataclass(frozen=True)
class DocumentPart:
    """What the grade screen shows of a document: its title (cut at
    `PREVIEW_CHARACTERS`) and one part of its text."""

    id: str
    title: TextPart | None
    text: TextPart


def document_part(
    ws: Workspace, doc_id: str, where: PartWhere = "first", current: TextPart | None = None
) -> DocumentPart | None:
    """A part of a document's text (``where``, from the ``current`` part: see
    `judgepool.services.text_parts.text_part`) and its title; None when the
    workspace has no text for the document."""
    text = text_part(ws, "document text", doc_id, where, current)
    if text is None:
        return None
    title = text_part(ws, "document title", doc_id, limit=PREVIEW_CHARACTERS)
    return DocumentPart(doc_id, title, text)


def note_of(ws: Workspace, event_id: int | None) -> str | None:
    """The note of a ledger event (None without an event or a note)."""
    return None if event_id is None else get_event(ws, event_id).note


def describe_event(ws: Workspace, event_id: int) -> str:
    """What one of the app's judgment events did, for the undo message: "grade 2",
    "unsure", or "a note" (the grade or unsure kept, a note added)."""
    event = get_event(ws, event_id)
    if event.note is not None and event.previous_event is not None:
        before = get_event(ws, event.previous_event)
        if (before.grade, before.unsure) == (event.grade, event.unsure):
            return "a note"
    return "unsure" if event.unsure else f"grade {event.grade}"
