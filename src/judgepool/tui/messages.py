"""Messages the app's screens exchange, as small dataclasses.

`GradeSaved` is the one screens other than the grade screen listen to: the app
posts it to every installed screen after a judgment event is committed (a
grade, an "unsure", or an undo), so audit and scores can recompute. It does
not bubble: the app delivers it to each screen itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class GradeSaved(Message, bubble=False):
    """A judgment event for ``(query_id, doc_id)`` is on disk.

    ``grade`` is the document's current grade after the event: an integer of
    the scale, or ``None`` when it now has none (marked unsure, or an undo took
    its only grade back).
    """

    query_id: str
    doc_id: str
    grade: int | None
