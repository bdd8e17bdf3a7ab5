"""The grade screen's status line (`StatusLine`), and the session's tally behind it.

`SessionTally` keeps the judgment events this session of the grade screen
wrote, in order, each a grade, an unsure mark, or a note added to a judgment
already given (not a judgment): undo takes them back newest first, and the
status line counts them apart, "12 judged this session · 2 unsure", where
"judged" counts grades only. `status_line` puts the line together, and
`saved_line` says what was saved. The screen and its parts say what
happened as `Words`, (text, style) pairs, each text shown literally.

`StatusLine` shows that line, and at its right end the clock (the seconds on
the document and the annotator's rate, `judgepool.tui.screens.grade.clock`)
where there is room for it: in full, else short, else without the line's
hint of a key (``t settle order``), else not at all, so the line's own words
are never cut for the clock. It ticks once a second.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Literal

from rich.text import Text
from textual.widgets import Static

from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.own_review import own_rate
from judgepool.services.workspace import StorageError
from judgepool.tui.hosts import grading_host
from judgepool.tui.screens.grade.clock import GradeClock
from judgepool.tui.widgets.highlight import literal_text

Item = tuple[str, str]
Kind = Literal["grade", "unsure", "note"]
Words = tuple[str, str]
"""Words for the status line and their style; the words shown literally (data may be among them)."""


class SessionTally:
    """The session's judgment events, newest last, and how many of each kind."""

    def __init__(self) -> None:
        self._events: list[tuple[int, Item, Kind]] = []
        self._counts: Counter[Kind] = Counter()

    def add(self, event_id: int, item: Item, *, note: bool, unsure: bool) -> None:
        """An event of the session: a note added (``note``; no judgment), else an
        unsure mark or a grade."""
        kind: Kind = "note" if note else "unsure" if unsure else "grade"
        self._events.append((event_id, item, kind))
        self._counts[kind] += 1

    def pop(self) -> tuple[int, Item] | None:
        """The newest event and its item, taken off the tally (None: there is none)."""
        if not self._events:
            return None
        event_id, item, kind = self._events.pop()
        self._counts[kind] -= 1
        return event_id, item

    def count(self, kind: Kind) -> int:
        return self._counts[kind]


SETTLE_HINT = "t settle order"


def status_line(message: Text, waiting_note: bool, tally: SessionTally) -> Text:
    """The status line's words: the last message, whether a note waits for the
    current document's grade, the session's grades and unsure marks."""
    parts = [message] if message.plain else []
    if waiting_note:
        parts.append(Text("a note waits for this document's grade", style="italic"))
    parts.append(Text(f"{tally.count('grade')} judged this session", style="dim"))
    if tally.count("unsure"):
        parts.append(Text(f"{tally.count('unsure')} unsure", style="dim"))
    return Text(" · ", style="dim").join(parts)


def saved_line(grade: int | None, labels: Mapping[int, str], doc_id: str, with_note: bool) -> Text:
    """ "saved 2 Highly relevant for D" (``grade`` None: "saved: unsure for D"),
    the label and the document shown literally."""
    if grade is None:
        line = Text("saved: unsure", style="bold yellow")
    else:
        line = Text(f"saved {grade}", style="bold green")
        label = labels.get(grade, "")
        if label:
            line.append_text(literal_text(f" {label}", style="green"))
    line.append_text(literal_text(f" for {doc_id}"))
    if with_note and grade is not None:
        line.append(" with a note", style="italic")
    return line


class StatusLine(Static):
    """The status line, with the clock at its right end where it fits."""

    GAP = 3  # the least space between the line's words and the clock

    def __init__(self, *, id: str, markup: bool = False) -> None:
        super().__init__(id=id, markup=markup)
        self._message = Text("")
        self._hint: str | None = None
        self.clock = GradeClock(self._read_rate)

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh, name="grade-clock")

    def show(self, message: Text, hint: str | None = None) -> None:
        """Show ``message`` (see `status_line`) and the ``hint`` of a key after
        it, the clock at the end."""
        self._message, self._hint = message, hint
        self.refresh()

    def shown(self, item: Item | None) -> None:
        """The grade screen shows ``item``: the clock counts from now if it is new."""
        if self.clock.shown(item):
            self.refresh()

    def _read_rate(self) -> float | None:
        host = grading_host(self.app)
        try:
            return own_rate(host.ws, host.annotator)
        except (JudgepoolError, StorageError):
            return None  # a busy or damaged file: no rate until the next document

    def render(self) -> Text:
        hinted = self._message.copy()
        if self._hint is not None:
            hinted.append(" · ", style="dim")
            hinted.append(self._hint, style="dim")
        lines = [hinted] if self._hint is None else [hinted, self._message]
        for line in lines:
            for narrow in (False, True):
                clock = self.clock.line(narrow)
                room = self.size.width - line.cell_len
                if clock.cell_len and clock.cell_len + self.GAP <= room:
                    return line + Text(" " * (room - clock.cell_len)) + clock
        return hinted
