"""Reading the grade screen's document: ``r`` raw text, and paging through a long one.

Text is shown repaired by default (`judgepool.core.readable`: MS MARCO's
mojibake undone); ``r`` shows the stored characters instead, and ``r`` again
the repaired text. The store is never changed. Markup and escapes are shown
literally either way.

``space``/``pgdn`` and ``b``/``pgup`` scroll the document a screen at a time,
then go on to the next or back to the previous part of a long document;
``home``/``end`` show its first or last part (a bounded part at a time,
`judgepool.services.text_parts`).
"""

from __future__ import annotations

from judgepool.services.text_parts import PartWhere
from judgepool.tui.screens.grade.status import Words
from judgepool.tui.widgets.grading_panels import DocumentView, PartReader, QueryPanel


class Reading:
    """How the query and document panels show their text, and the document's paging."""

    def __init__(self, query: QueryPanel, document: DocumentView) -> None:
        self.query = query
        self.document = document

    @property
    def pageable(self) -> bool:
        """The document holds more than the view shows (the paging keys are in the footer)."""
        return self.document.has_class("-pageable")

    def toggle_raw(self) -> None:
        """Show the text as stored from now on, or repaired for reading again
        (the screen shows the document again)."""
        self.document.raw = not self.document.raw
        self.query.raw = self.document.raw

    def page(self, direction: int) -> bool:
        """Scroll a screen down (``direction`` 1) or up (-1); False at the bottom or top."""
        return self.document.page(direction)

    def turn(self, where: PartWhere, read: PartReader) -> Words:
        """Show the ``where`` part of the document, read with ``read``; what the
        status line says (the start or end reached, else nothing). Raises
        `StorageError` when the part cannot be read."""
        edge = self.document.turn(where, read)
        return (f"the {edge} of the document", "dim") if edge else ("", "")
