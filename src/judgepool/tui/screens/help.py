"""The help screen (``?``): every key of the app and of each screen, read from
their bindings so the list cannot fall behind the code.

Grade keys are shown as one row naming the grades of the workspace's scale.
Escape or ``?`` closes it; ``g`` ``a`` ``s`` and ``q`` work as everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from judgepool.core.contract import Scale
from judgepool.core.roles import Reach
from judgepool.tui.hosts import grading_host
from judgepool.tui.widgets.audit_status import STATUS_MEANINGS

_GRADE_ACTION: Final = re.compile(r"(?:grade|settle)\((-?\d+)\)")
_KEY_NAMES: Final = {
    "question_mark": "?",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "down": "↓",
    "up": "↑",
    "pagedown": "pgdn",
    "pageup": "pgup",
    "escape": "esc",
}


def _key(binding: Binding) -> str:
    return binding.key_display or _KEY_NAMES.get(binding.key, binding.key)


GRADE_AND_GO: Final = "grade the document with that grade and go to the next one"


def key_rows(
    bindings: Iterable[BindingType], scale: Scale, grade_help: str = GRADE_AND_GO
) -> list[tuple[str, str]]:
    """(keys, what they do) for a list of bindings: keys sharing an action are
    one row, and the grade keys one row limited to the scale (``grade_help``)."""
    rows: dict[str, list[str]] = {}
    helps: dict[str, str] = {}
    grades: list[str] = []
    for binding in Binding.make_bindings(bindings):
        match = _GRADE_ACTION.fullmatch(binding.action)
        if match is not None:
            if int(match.group(1)) in scale:
                grades.append(_key(binding))
            continue
        rows.setdefault(binding.action, []).append(_key(binding))
        helps.setdefault(binding.action, binding.tooltip or binding.description)
    result: list[tuple[str, str]] = []
    if grades:
        result.append((" ".join(grades), grade_help))
    result.extend((" / ".join(keys), helps[action]) for action, keys in rows.items())
    return result


def screen_bindings() -> list[tuple[str, list[BindingType]]]:
    """(title, bindings) of the screens and comparison dialogs help lists, in order."""
    # Imported here, when help is first opened: the app imports this module at
    # start, and the audit and scores screens are imported when first needed.
    from judgepool.tui.dialogs.all_holes import AllHolesScreen
    from judgepool.tui.dialogs.guidelines import GuidelinesDialog
    from judgepool.tui.dialogs.own_items import OwnItemsDialog
    from judgepool.tui.dialogs.side_by_side import SideBySideScreen
    from judgepool.tui.dialogs.verdicts import VerdictsScreen
    from judgepool.tui.screens.adjudicate import AdjudicateScreen
    from judgepool.tui.screens.agreement import AgreementScreen
    from judgepool.tui.screens.audit import AuditScreen
    from judgepool.tui.screens.grade import GradeScreen
    from judgepool.tui.screens.review import ReviewScreen
    from judgepool.tui.screens.scores import ScoresScreen

    # the keys both review screens inherit (p) come first on each
    return [
        ("Grade screen", _own(GradeScreen.BINDINGS)),
        ("Grading guidelines (i)", _own(GuidelinesDialog.BINDINGS)),
        ("Your unsure and noted items (m)", _own(OwnItemsDialog.BINDINGS)),
        ("Audit screen", _own([*ReviewScreen.BINDINGS, *AuditScreen.BINDINGS])),
        ("Every run's holes (H on the audit)", _own(AllHolesScreen.BINDINGS)),
        ("Scores screen", _own([*ReviewScreen.BINDINGS, *ScoresScreen.BINDINGS])),
        ("Runs pair by pair (p)", _own(VerdictsScreen.BINDINGS)),
        ("A query side by side (o in the pairs)", _own(SideBySideScreen.BINDINGS)),
        ("Adjudicate screen (D, adjudicators only)", _own(AdjudicateScreen.BINDINGS)),
        ("Agreement screen (K)", _own(AgreementScreen.BINDINGS)),
    ]


def _own(bindings: list[BindingType]) -> list[BindingType]:
    """A screen's or dialog's bindings without the app's keys it repeats (listed
    under Everywhere)."""
    from judgepool.tui.dialogs.screen_keys import SCREEN_KEYS
    from judgepool.tui.footer_keys import HELP_AND_QUIT

    return [binding for binding in bindings if binding not in (*SCREEN_KEYS, *HELP_AND_QUIT)]


def help_text(app_bindings: Iterable[BindingType], scale: Scale) -> Text:
    """The whole key list as one `Text`."""
    sections: list[tuple[str, list[tuple[str, str]]]] = [
        (
            "Everywhere",
            [
                *key_rows(app_bindings, scale),
                ("ctrl+p", "command palette: every action by name"),
            ],
        )
    ]
    for title, bindings in screen_bindings():
        grade_help = GRADE_AND_GO if title == "Grade screen" else "grade the document here"
        if title.startswith("Adjudicate"):
            grade_help = "settle the highlighted disagreement with that grade"
        sections.append((title, key_rows(bindings, scale, grade_help)))
        if title == "Audit screen":
            sections.append(("The audit's status column (per query)", list(STATUS_MEANINGS)))
    width = max(len(keys) for _, rows in sections for keys, _ in rows) + 3
    text = Text()
    for index, (title, rows) in enumerate(sections):
        if index:
            text.append("\n")
        text.append(f"{title}\n", style="bold underline")
        for keys, meaning in rows:
            text.append(f"  {keys:<{width}}", style="bold cyan")
            text.append(f"{meaning[:1].upper()}{meaning[1:]}\n")
    text.append("\nGrades of this workspace: ", style="dim")
    text.append(f"{scale}", style="dim")
    text.append(". Press escape or ? to close.", style="dim")
    return text


class HelpScreen(ModalScreen[None]):
    """Every key, by screen."""

    REACH: ClassVar[Reach] = "grade"

    DEFAULT_CLASSES = "dialog"

    # A modal screen cuts the app's bindings off, so help binds the keys
    # that should still work while it is open.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "close", "close", tooltip="Close help"),
        Binding("g", "app.show_screen('grade')", "grade", show=False),
        Binding("a", "app.show_screen('audit')", "audit", show=False),
        Binding("s", "app.show_screen('scores')", "scores", show=False),
        Binding("q", "app.quit", "quit", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(id="help-text", markup=False)

    def on_mount(self) -> None:
        box = self.query_one("#help-box", VerticalScroll)
        box.border_title = "Keys"
        scale = grading_host(self.app).ws.scale
        self.query_one("#help-text", Static).update(help_text(self.app.BINDINGS, scale))

    def action_close(self) -> None:
        self.dismiss(None)
