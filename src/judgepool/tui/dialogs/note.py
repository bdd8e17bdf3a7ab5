"""A small modal asking for a note on the current judgment.

Dismisses with the note's text (stripped; empty means no note) on Enter, or
None on Escape. A note already given starts the field as the app shows it
elsewhere (`judgepool.display.one_line`: an escape sequence in it would
otherwise reach the terminal raw); Enter on it unchanged keeps the stored
note as it is.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from judgepool.core.team.roles import Reach
from judgepool.display import one_line
from judgepool.tui.widgets.highlight import id_text


class NoteDialog(ModalScreen[str | None]):
    """Asks for a note about one document; the caller saves it."""

    REACH: ClassVar[Reach] = "grade"

    DEFAULT_CLASSES = "dialog"

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, doc_id: str, existing: str = "") -> None:
        super().__init__()
        self._doc_id = doc_id
        self._existing = existing
        self._shown = one_line(existing)

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            title = Text("Note on ")
            title.append_text(id_text(self._doc_id, style="bold"))
            yield Static(title, markup=False)
            yield Input(
                value=self._shown,
                placeholder="why this grade…",
                select_on_focus=False,
                id="note-input",
            )
            yield Static(Text("Enter saves · Escape cancels", style="dim"), markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = self._existing if event.value == self._shown else event.value
        self.dismiss(typed.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
