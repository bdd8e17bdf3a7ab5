"""What the app announces to its views: the judgment events on disk.

`GradeSaved` is published on the app's ``grade_saved_signal`` (a Textual
`Signal`) after every judgment event is committed (a grade, an "unsure", a
note, or an undo), given in this app or, taken in by the live refresh
(`judgepool.tui.live`), in another terminal.

A view follows them one way: it asks the app on mount (``follow_grades``,
`judgepool.tui.hosts`) and handles `GradesSaved`, a message posted to it for
each event. A burst of events (a colleague's grades taken in at once) reaches
it as one message holding them all: a `GradesSaved` still waiting in the
view's queue gives way to the next, which takes over its events
(`GradesSaved.can_replace`), so the view re-reads once. A view not showing
marks itself stale and reads again when shown; one never shown is never
created, and so never told.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass(frozen=True)
class GradeSaved:
    """A judgment event for ``(query_id, doc_id)`` is on disk.

    ``grade`` is the document's current grade after the event: an integer of
    the scale, or ``None`` when it now has none (marked unsure, or an undo took
    its only grade back).
    """

    query_id: str
    doc_id: str
    grade: int | None


@dataclass
class GradesSaved(Message, bubble=False):
    """Judgment events on disk, oldest first, for a view that follows them."""

    saved: list[GradeSaved]

    def can_replace(self, message: Message) -> bool:
        """A burst is one message: this one, not yet handled, gives way to the
        next, which carries this one's events too."""
        if not isinstance(message, GradesSaved):
            return False
        message.saved[:0] = self.saved
        return True
