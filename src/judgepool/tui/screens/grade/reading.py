"""The grade screen's ``r``: the text raw, as stored, or repaired for reading.

Text is shown repaired by default (`judgepool.core.readable`: MS MARCO's
mojibake undone); ``r`` shows the stored characters instead, and ``r`` again
the repaired text. The store is never changed. Markup and escapes are shown
literally either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from judgepool.tui.widgets.grading_panels import DocumentView, QueryPanel

if TYPE_CHECKING:
    from judgepool.tui.screens.grade.parts import GradeScreenParts


class RawTextToggle(Screen[None]):
    """The raw-text key of the grade screen."""

    def action_raw_text(self: GradeScreenParts) -> None:
        """Show the query and document as stored, or repaired for reading."""
        document = self.query_one("#grade-document", DocumentView)
        document.raw = not document.raw
        self.query_one("#grade-query", QueryPanel).raw = document.raw
        self._show()
