"""A small modal asking for a note on the current judgment.

Dismisses with the note's text (stripped; empty means no note) on Enter, or
None on Escape.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from judgepool.core.roles import Reach
from judgepool.tui.widgets.highlight import literal_text


class NoteDialog(ModalScreen[str | None]):
    """Asks for a note about one document; the caller saves it."""

    REACH: ClassVar[Reach] = "grade"

    DEFAULT_CLASSES = "dialog"

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, doc_id: str, existing: str = "") -> None:
        super().__init__()
        self._doc_id = doc_id
        self._existing = existing

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            title = Text("Note on ")
            title.append_text(literal_text(self._doc_id, style="bold"))
            yield Static(title, markup=False)
            yield Input(
                value=self._existing,
                placeholder="why this grade…",
                select_on_focus=False,
                id="note-input",
            )
            yield Static(Text("Enter saves · Escape cancels", style="dim"), markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
