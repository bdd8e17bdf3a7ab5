"""The app's screen keys inside the comparison dialogs.

A modal screen cuts the app's bindings off (see the help screen), so the
dialogs that are views of their own (the runs pair by pair, a query side by
side) bind ``g`` ``a`` ``s`` and ``q`` again: the annotator can go from a
comparison straight to grading, as from any screen.
"""

from __future__ import annotations

from typing import Final

from textual.binding import Binding, BindingType

SCREEN_KEYS: Final[list[BindingType]] = [
    Binding("g", "app.show_screen('grade')", "grade", show=False, tooltip="Show the grade screen"),
    Binding("a", "app.show_screen('audit')", "audit", show=False, tooltip="Show the audit screen"),
    Binding(
        "s", "app.show_screen('scores')", "scores", show=False, tooltip="Show the scores screen"
    ),
    Binding("q", "app.quit", "quit", show=False, tooltip="Quit judgepool"),
]
