"""What the grade screen writes: a grade, an unsure mark, a note on a judgment, an undo.

`SessionJudgments` writes each with `judgepool.services.judging` (one short
transaction, committed, and synced, before the call returns, so the screen
only ever says "saved" of a grade on disk and no keystroke is handled before
the previous grade's commit), takes it into the grading plan and announces
it (`judgepool.tui.hosts.GradingHost.grade_saved`). It keeps what this
session wrote (`judgepool.tui.screens.grade.status.SessionTally`: undo takes
it back newest first) and the notes typed for a document not yet judged,
which wait for its grade and are saved with it (``waiting``; lost on quit,
which asks first). A refusal is raised as it comes (`JudgepoolError`,
`StorageError`), for the screen to say.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from judgepool.services import app_queries
from judgepool.services import judging as services
from judgepool.services.app_queries import Item, ItemJudgment
from judgepool.tui.grading import GradingSession
from judgepool.tui.hosts import GradingHost
from judgepool.tui.screens.grade.status import SessionTally


def back_to(judgment: ItemJudgment) -> str:
    """Where an item stands for the annotator, after an undo."""
    if judgment.own_grade is not None:
        return f"grade {judgment.own_grade}"
    if judgment.own_unsure:
        return "unsure"
    return "unjudged"


def undo_line(undone: str, doc_id: str, judgment: ItemJudgment) -> Text:
    """ "undone: grade 2 of D back to unjudged", the document shown literally."""
    line = Text("undone", style="bold")
    line.append(f": {undone} of ")
    line.append(doc_id)
    line.append(" back to ")
    line.append(back_to(judgment), style="bold")
    return line


@dataclass(frozen=True)
class Saved:
    """A judgment event on disk: the item's grade now (None when unsure),
    whether it is unsure, and whether the event holds a note."""

    grade: int | None
    unsure: bool
    noted: bool


class SessionJudgments:
    """The judgment events this session of the grade screen writes and takes back."""

    def __init__(self, session: GradingSession) -> None:
        self.session = session
        self.tally = SessionTally()
        self.waiting: dict[Item, str] = {}
        """The notes typed for a document not yet judged, by item."""

    def write(
        self,
        host: GradingHost,
        item: Item,
        grade: int | None,
        *,
        unsure: bool,
        note: str | None = None,
        seconds: float | None = None,
        adds_note: bool = False,
    ) -> Saved:
        """Judge ``item``: a grade, or ``unsure``, with ``note`` (else the note
        waiting for it) and the ``seconds`` spent; ``adds_note``: only a note is
        added to the judgment given already (the tally does not count it as a
        judgment). What is saved, once it is committed."""
        query_id, doc_id = item
        note = note if note is not None else self.waiting.get(item)
        event = services.judge(
            host.ws,
            query_id,
            doc_id,
            grade,
            annotator=host.annotator,
            unsure=unsure,
            note=note,
            seconds=seconds,
        )
        self.waiting.pop(item, None)
        before = self.session.judgment(query_id, doc_id)
        self.session.record(
            query_id,
            doc_id,
            ItemJudgment(event.grade, event.unsure, event.id, before.others_graded, before.others),
        )
        self.tally.add(event.id, item, note=adds_note, unsure=event.unsure)
        host.grade_saved(query_id, doc_id, event.grade)
        return Saved(event.grade, event.unsure, bool(event.note))

    def undo(self, host: GradingHost) -> tuple[Item, Text] | None:
        """Take back the session's newest event: its item and what the status
        line says of it; None when the session wrote nothing (left to undo)."""
        last = self.tally.pop()
        if last is None:
            return None
        event_id, (query_id, doc_id) = last
        undone = app_queries.describe_event(host.ws, event_id)
        services.undo(host.ws, event_id, annotator=host.annotator)
        judgment = app_queries.item_judgment(host.ws, host.annotator, query_id, doc_id)
        self.session.record(query_id, doc_id, judgment)
        host.grade_saved(query_id, doc_id, judgment.own_grade)
        return (query_id, doc_id), undo_line(undone, doc_id, judgment)
