"""What the app announces to its screens.

`GradeSaved` is published on the app's ``grade_saved_signal`` (a Textual
`Signal`) after every judgment event is committed (a grade, an "unsure", a
note, or an undo). The audit and scores screens subscribe to it when they are
mounted, so they can recompute; a screen that was never shown is never
created, and so never told.
"""

from __future__ import annotations

from dataclasses import dataclass


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
