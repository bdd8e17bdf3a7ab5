"""The app's own keys: show a screen (``g`` ``a`` ``s``, ``D``, ``K``), help,
quit and re-read, active on every screen that does not bind the key itself.

Kept beside `judgepool.tui.app` as the screens keep theirs (`..screens.grade.keys`,
`..screens.adjudicate_keys`), so the shell's module holds its behaviour; the
footer, the help screen and the palette list these bindings with their
tooltips, and the app's ``check_action`` leaves out those of screens outside
the role.
"""

from __future__ import annotations

from typing import Final

from textual.binding import Binding, BindingType

_SCREENS: Final = Binding.Group("screens")

APP_BINDINGS: Final[list[BindingType]] = [
    Binding(
        "g", "show_screen('grade')", "screens", group=_SCREENS, tooltip="Show the grade screen"
    ),
    Binding(
        "a", "show_screen('audit')", "screens", group=_SCREENS, tooltip="Show the audit screen"
    ),
    Binding(
        "s",
        "show_screen('scores')",
        "screens",
        group=_SCREENS,
        tooltip="Show the scores screen",
    ),
    # not in the footer, which keeps room for help and quit at 80 columns
    Binding(
        "D",
        "adjudicate",
        "adjudicate",
        show=False,
        tooltip="Adjudicate: settle the disagreements (adjudicators and leads)",
    ),
    Binding(
        "K",
        "show_screen('agreement')",
        "agreement",
        show=False,
        tooltip="Agreement between annotators (κ per pair, Fleiss' κ, Krippendorff's α)",
    ),
    Binding("question_mark", "help", "help", key_display="?", tooltip="List every key"),
    Binding("q", "quit", "quit", tooltip="Quit judgepool (every grade is already saved)"),
    Binding(
        "f5,R",  # R too: a browser keeps F5 (judgepool serve)
        "reread",
        "re-read",
        show=False,
        tooltip="Re-read the workspace now (grades from other terminals show by themselves)",
    ),
]
