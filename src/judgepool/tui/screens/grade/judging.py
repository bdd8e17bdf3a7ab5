"""What the grade screen keeps of its judgments: this session's events, for
undo, and the notes waiting for their document's grade.

`SessionJudgments` writes a grade, an unsure mark, a note on a judgment and
an undo with `judgepool.tui.grade_writer`, the app's one writer (committed
before it returns, taken into the grading plan, announced; a refusal shown
and returned as `NotSaved`). It keeps what this session wrote
(`judgepool.tui.screens.grade.status.SessionTally`: undo takes it back newest
first) and the notes typed for a document not yet judged, which wait for its
grade and are saved with it (``waiting``; lost on quit, which asks first).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App

from judgepool.services.app_queries import Item, ItemJudgment
from judgepool.tui import grade_writer
from judgepool.tui.grade_writer import NotSaved, Written
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


class SessionJudgments:
    """The judgment events this session of the grade screen writes and takes back."""

    def __init__(self) -> None:
        self.tally = SessionTally()
        self.waiting: dict[Item, str] = {}
        """The notes typed for a document not yet judged, by item."""

    def write(
        self,
        app: App[Any],
        item: Item,
        grade: int | None,
        *,
        unsure: bool,
        note: str | None = None,
        seconds: float | None = None,
        adds_note: bool = False,
    ) -> Written | NotSaved:
        """Judge ``item``: a grade, or ``unsure``, with ``note`` (else the note
        waiting for it) and the ``seconds`` spent; ``adds_note``: only a note is
        added to the judgment given already (the tally does not count it as a
        judgment). What is saved, once it is committed, or the refusal."""
        note = note if note is not None else self.waiting.get(item)
        written = grade_writer.judge(app, item, grade, unsure=unsure, note=note, seconds=seconds)
        if isinstance(written, Written):
            self.waiting.pop(item, None)
            self.tally.add(written.event_id, item, note=adds_note, unsure=written.unsure)
        return written

    def undo(self, app: App[Any]) -> tuple[Item, Text] | NotSaved | None:
        """Take back the session's newest event: its item and what the status
        line says of it; None when the session wrote nothing (left to undo)."""
        last = self.tally.pop()
        if last is None:
            return None
        event_id, item = last
        undone = grade_writer.undo(app, event_id, item)
        if isinstance(undone, NotSaved):
            return undone
        return item, undo_line(undone.what, item[1], undone.judgment)
