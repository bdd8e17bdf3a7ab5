"""The one way the app writes a judgment, whichever screen asks for it.

The grade screen (a grade, unsure, a note, an undo: `judge`, `undo`), the
comparison's side-by-side lists (a grade where the document is listed:
`judge`) and the adjudication screen (a settling grade, a note on it:
`settle`) all write here. Each call:

- writes through the services (`judgepool.services.judging`,
  `judgepool.services.adjudication`): one short transaction, committed and
  synced before the call returns, so a screen only ever says "saved" of a
  judgment on disk, and no keystroke is handled before the previous commit;
- takes an annotator's own judgment into the grading plan (``app.session``,
  which the grade screen shows and counts in its progress bars): its own
  state from the event, the others' as the plan held them (blinded as
  grading shows them); after an undo, the item as read again, since the
  undo restores a state the event does not hold. A settling grade is an
  adjudication, which the plan does not count;
- announces it (``app.grade_saved``: `judgepool.tui.messages.GradeSaved`), so
  every view that follows grades recomputes.

A refusal writes nothing and is shown one way: an error notice, its words
shown literally ("not saved: …": outside the scale, an unknown ID, not an
adjudicator; a read-only or busy workspace, saying why), and `NotSaved`
returned with the same words, for the screen's status line. Whose judgment
it is comes from the app (``app.annotator``); who may write is checked
before and beneath: a screen outside the role is never shown
(`judgepool.tui.reach`), and the adjudication service refuses anyone not an
adjudicator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from textual.app import App

from judgepool.core.terms.errors import JudgepoolError
from judgepool.display import literal
from judgepool.services import adjudication, app_queries, judging
from judgepool.services.app_queries import Item, ItemJudgment
from judgepool.services.workspace import StorageError
from judgepool.tui.hosts import grading_host

# what the services refuse with: every other error is a bug, and raised
REFUSALS: Final = (JudgepoolError, StorageError)


@dataclass(frozen=True)
class Written:
    """A judgment event on disk: its ledger ID, the item's grade now (None
    when unsure), whether it is unsure, and whether the event holds a note."""

    event_id: int
    grade: int | None
    unsure: bool
    noted: bool


@dataclass(frozen=True)
class NotSaved:
    """A write refused (nothing written): the words the error notice showed."""

    words: str


@dataclass(frozen=True)
class Undone:
    """An undo on disk: what it took back ("grade 2", "unsure", "a note") and
    the item's judgment now."""

    what: str
    judgment: ItemJudgment


def judge(
    app: App[Any],
    item: Item,
    grade: int | None,
    *,
    unsure: bool = False,
    note: str | None = None,
    seconds: float | None = None,
) -> Written | NotSaved:
    """Judge ``item`` as the app's annotator: a grade, or ``unsure``, with
    ``note`` and the ``seconds`` spent; taken into the plan and announced."""
    host = grading_host(app)
    query_id, doc_id = item
    try:
        event = judging.judge(
            host.ws,
            query_id,
            doc_id,
            grade,
            annotator=host.annotator,
            unsure=unsure,
            note=note,
            seconds=seconds,
        )
    except REFUSALS as exc:
        return refused(app, "not saved", exc)
    # the others as the plan holds them: blinded as grading shows them, and
    # no read of the store between two keystrokes
    before = host.session.judgment(query_id, doc_id)
    own = ItemJudgment(event.grade, event.unsure, event.id, before.others_graded, before.others)
    host.session.record(query_id, doc_id, own)
    host.grade_saved(query_id, doc_id, event.grade)
    return Written(event.id, event.grade, event.unsure, bool(event.note))


def undo(app: App[Any], event_id: int, item: Item) -> Undone | NotSaved:
    """Take back the annotator's event ``event_id`` on ``item``; the item's
    judgment, read again, taken into the plan and announced."""
    host = grading_host(app)
    query_id, doc_id = item
    try:
        what = app_queries.describe_event(host.ws, event_id)
        judging.undo(host.ws, event_id, annotator=host.annotator)
        judgment = app_queries.item_judgment(host.ws, host.annotator, query_id, doc_id)
    except REFUSALS as exc:
        return refused(app, "cannot undo", exc)
    host.session.record(query_id, doc_id, judgment)
    host.grade_saved(query_id, doc_id, judgment.own_grade)
    return Undone(what, judgment)


def settle(
    app: App[Any],
    item: Item,
    grade: int,
    *,
    note: str | None = None,
    refused_as: str = "not saved",
) -> Written | NotSaved:
    """Settle ``item`` with ``grade`` (and ``note``) as the app's annotator's
    adjudication, announced; ``refused_as``: the words a refusal starts with."""
    host = grading_host(app)
    query_id, doc_id = item
    try:
        event = adjudication.adjudicate(
            host.ws, query_id, doc_id, grade, adjudicator=host.annotator, note=note
        )
    except REFUSALS as exc:
        return refused(app, refused_as, exc)
    host.grade_saved(query_id, doc_id, event.grade)
    return Written(event.id, event.grade, event.unsure, bool(event.note))


def refused(app: App[Any], doing: str, error: BaseException) -> NotSaved:
    """Show ``doing: error`` as an error notice, literally (IDs and messages
    may hold any character); the same words, for the status line."""
    words = f"{doing}: {error}"
    app.notify(literal(words), severity="error", markup=False)
    return NotSaved(words)
