"""Help and quit, first in every screen's footer.

The footer lists a screen's keys before the app's, and cuts what does not fit:
at 80 columns the app's ``?`` and ``q`` fell off the grade, audit and scores
screens. Each screen binds them again, first, so they are always shown; the
actions are the app's. The help screen lists them once, under Everywhere.
"""

from __future__ import annotations

from typing import Final

from textual.binding import Binding, BindingType

HELP_AND_QUIT: Final[list[BindingType]] = [
    Binding("question_mark", "app.help", "help", key_display="?", tooltip="List every key"),
    Binding("q", "app.quit", "quit", tooltip="Quit judgepool (every grade is already saved)"),
]
