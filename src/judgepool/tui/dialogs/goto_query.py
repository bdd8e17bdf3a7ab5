"""A small modal asking which query to grade: its ID, or words of its text.

Dismisses with what was typed (stripped) on Enter, or None on Escape; the
grade screen finds the query (`judgepool.tui.grading.GradingSession.find_query`).
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


class GotoQueryDialog(ModalScreen[str | None]):
    """Asks for a query ID or words; the caller goes there."""

    REACH: ClassVar[Reach] = "grade"

    DEFAULT_CLASSES = "dialog"

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, last: str = "") -> None:
        super().__init__()
        self._last = last

    def compose(self) -> ComposeResult:
        with Vertical(id="goto-box"):
            yield Static(Text("Go to query", style="bold"), markup=False)
            yield Input(
                value=self._last,
                placeholder="a query ID, or words of its text…",
                id="goto-input",
            )
            yield Static(
                Text("Enter goes (again: the next match) · Escape cancels", style="dim"),
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
