"""The help screen (``?``): every key of the app and of each screen and dialog,
read from their bindings so the list cannot fall behind the code.

Grade keys are shown as one row naming the grades of the workspace's scale.
The help shows what the user's role reaches (`judgepool.tui.reach`): the
sections of screens and dialogs outside it are left out, and one line says
who has them; the app's keys that the role cannot use are left out too. A
description too long for the box wraps under itself, beside its keys, never
back at the left edge. Escape or ``?`` closes it; ``g`` ``a`` ``s`` and ``q``
work as everywhere.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from rich.text import Text
from textual import events
from textual.actions import parse
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from judgepool.core.team.roles import WHO_REACHES, Reach
from judgepool.core.terms.contract import Scale
from judgepool.tui.dialogs.screen_keys import SCREEN_KEYS
from judgepool.tui.footer_keys import HELP_AND_QUIT
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
    "slash": "/",
    "plus": "+",
    "minus": "-",
}
# the key column's indent, and the gap between keys and description
_INDENT: Final = 2
_GAP: Final = 3


def key_name(binding: Binding) -> str:
    """A key as help shows it (``?``, ``]``, ``esc``...)."""
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
                grades.append(key_name(binding))
            continue
        keys = rows.setdefault(binding.action, [])
        if key_name(binding) not in keys:
            keys.append(key_name(binding))
        helps.setdefault(binding.action, binding.tooltip or binding.description)
    result: list[tuple[str, str]] = []
    if grades:
        result.append((" ".join(grades), grade_help))
    result.extend((" / ".join(keys), helps[action]) for action, keys in rows.items())
    return result


@dataclass(frozen=True)
class Part:
    """A screen or dialog as help lists it: its title, the classes whose keys
    it lists, what opening it needs, and what its grade keys do."""

    title: str
    classes: tuple[type[DOMNode], ...]
    reach: Reach
    # for the line naming what the role does not reach ("" for a dialog of a screen)
    name: str = ""
    grade_help: str = "grade the document here"
    # a section of its own after the keys: what the words or columns mean
    legend: tuple[str, tuple[tuple[str, str], ...]] | None = None


def parts() -> list[Part]:
    """Every screen and dialog help lists, in order."""
    # Imported here, when help is first opened: the app imports this module at
    # start, and the audit and scores screens are imported when first needed.
    from judgepool.tui.dialogs.all_holes import AllHolesScreen
    from judgepool.tui.dialogs.comparison import ComparisonScreen
    from judgepool.tui.dialogs.drilldown import DrilldownScreen
    from judgepool.tui.dialogs.goto_query import GotoQueryDialog
    from judgepool.tui.dialogs.guidelines import GuidelinesDialog
    from judgepool.tui.dialogs.note import NoteDialog
    from judgepool.tui.dialogs.own_items import OwnItemsDialog
    from judgepool.tui.dialogs.search import SearchDialog
    from judgepool.tui.dialogs.side_by_side import SideBySideScreen
    from judgepool.tui.dialogs.verdicts import PAIR_LEGEND, VerdictsScreen
    from judgepool.tui.reach import reach_of
    from judgepool.tui.screens.adjudicate import AdjudicateScreen
    from judgepool.tui.screens.agreement import AgreementScreen
    from judgepool.tui.screens.audit import AuditScreen
    from judgepool.tui.screens.grade import GradeScreen
    from judgepool.tui.screens.review import ReviewScreen
    from judgepool.tui.screens.scores import ScoresScreen
    from judgepool.tui.screens.sign_in import SignInScreen
    from judgepool.tui.widgets.audit_findings import HoleTable
    from judgepool.tui.widgets.score_contract import ContractDialog

    def part(title: str, *classes: Any, **more: Any) -> Part:
        return Part(title, classes, more.pop("reach", reach_of(classes[0])), **more)

    status = ("The audit's status column (per query)", STATUS_MEANINGS)
    columns = ("The columns of the pairs (two figures each, one over the other)", PAIR_LEGEND)
    return [
        part("Grade screen", GradeScreen, grade_help=GRADE_AND_GO),
        part("Grading guidelines (i on the grade screen)", GuidelinesDialog),
        part("Your unsure and noted items (m on the grade screen)", OwnItemsDialog),
        part("Go to a query (ctrl+g or / on the grade screen)", GotoQueryDialog),
        part("A note (e on the grade screen)", NoteDialog),
        part("Find documents (f on the grade screen)", SearchDialog),
        # the keys both review screens inherit (p) come first on each
        part("Audit screen", ReviewScreen, AuditScreen, HoleTable, name="audit", legend=status),
        part("Every run's holes (H on the audit)", AllHolesScreen),
        part("Scores screen", ReviewScreen, ScoresScreen, name="scores"),
        part("A query's ranked lists (d on the scores)", DrilldownScreen),
        part("Two runs query by query (v on the scores)", ComparisonScreen),
        part("The contract (c on the audit or the scores)", ContractDialog),
        part("Runs pair by pair (p on the audit or the scores)", VerdictsScreen, legend=columns),
        part("A query side by side (o in the pairs)", SideBySideScreen),
        part(
            "Adjudicate screen (D, adjudicators and leads)",
            AdjudicateScreen,
            name="adjudicate",
            grade_help="settle the highlighted disagreement with that grade",
        ),
        part("Agreement screen (K)", AgreementScreen, name="agreement"),
        part("Signing in (judgepool serve)", SignInScreen, reach="grade"),
        part("This help (?)", HelpScreen, reach="grade"),
    ]


def own_bindings(part: Part) -> list[BindingType]:
    """The keys of a part's classes, without the app's keys they repeat
    (listed under Everywhere)."""
    repeated = (*SCREEN_KEYS, *HELP_AND_QUIT)
    bindings: list[BindingType] = []
    for kind in part.classes:
        bindings += [b for b in vars(kind).get("BINDINGS", []) if b not in repeated]
    return [b for b in bindings if not _app_key(b)]


def _app_key(binding: BindingType) -> bool:
    """A binding that is the app's own key again (help's g a s q)."""
    return isinstance(binding, Binding) and binding.action.startswith("app.")


@dataclass(frozen=True)
class Section:
    """A titled list of (keys, what they do)."""

    title: str
    rows: list[tuple[str, str]]


def help_sections(
    app_bindings: Iterable[BindingType],
    scale: Scale,
    *,
    allows: Callable[[Reach], bool] = lambda _reach: True,
    app_key_shown: Callable[[Binding], bool] = lambda _binding: True,
) -> tuple[list[Section], str]:
    """The sections a role sees (``allows``: whether it reaches what a part
    needs; ``app_key_shown``: whether an app key is the role's), and the line
    naming what it does not reach ("" when it reaches everything)."""
    everywhere = [b for b in Binding.make_bindings(app_bindings) if app_key_shown(b)]
    sections = [
        Section(
            "Everywhere",
            [*key_rows(everywhere, scale), ("ctrl+p", "command palette: every action by name")],
        )
    ]
    # the screens the role does not reach, by who does
    withheld: dict[str, list[str]] = {}
    for part in parts():
        if not allows(part.reach):
            if part.name:
                withheld.setdefault(WHO_REACHES[part.reach], []).append(part.name)
            continue
        sections.append(Section(part.title, key_rows(own_bindings(part), scale, part.grade_help)))
        if part.legend is not None:
            sections.append(Section(part.legend[0], list(part.legend[1])))
    others = [f"{', '.join(names)} ({who})" for who, names in withheld.items()]
    return sections, "; ".join(others)


def help_text(
    sections: Sequence[Section], scale: Scale, withheld: str = "", width: int | None = None
) -> Text:
    """The whole key list as one `Text`; with ``width``, a description too long
    for it wraps under itself, beside its keys."""
    keys_width = max(len(keys) for section in sections for keys, _ in section.rows) + _GAP
    text = Text()
    for index, section in enumerate(sections):
        if index:
            text.append("\n")
        text.append(f"{section.title}\n", style="bold underline")
        for keys, meaning in section.rows:
            text.append(" " * _INDENT + f"{keys:<{keys_width}}", style="bold cyan")
            said = meaning[:1].upper() + meaning[1:]
            room = None if width is None else width - _INDENT - keys_width
            if room is None or room < 20:
                text.append(f"{said}\n")
                continue
            lines = textwrap.wrap(said, room) or [""]
            text.append(lines[0] + "\n")
            for line in lines[1:]:
                text.append(" " * (_INDENT + keys_width) + line + "\n")
    if withheld:
        text.append("\n" + _wrapped(f"For other roles: {withheld}.", width) + "\n", style="italic")
    closing = f"Grades of this workspace: {scale}. Press escape or ? to close."
    text.append("\n" + _wrapped(closing, width), style="dim")
    return text


def _wrapped(paragraph: str, width: int | None) -> str:
    """A paragraph of help in lines of ``width`` (as it is without one)."""
    return paragraph if width is None else "\n".join(textwrap.wrap(paragraph, width))


class KeyList(Static):
    """The key list, wrapped to its own width whenever that changes."""

    def __init__(self, sections: list[Section], scale: Scale, withheld: str, **kwargs: Any):
        super().__init__(help_text(sections, scale, withheld), markup=False, **kwargs)
        self._sections = sections
        self._scale = scale
        self._withheld = withheld

    def on_resize(self, event: events.Resize) -> None:
        self.update(help_text(self._sections, self._scale, self._withheld, event.size.width))


class HelpScreen(ModalScreen[None]):
    """Every key the role reaches, by screen."""

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
        scale = grading_host(self.app).ws.scale
        guard = getattr(self.app, "guard", None)
        allows: Callable[[Reach], bool] = guard.allows if guard is not None else lambda _reach: True
        sections, withheld = help_sections(
            self.app.BINDINGS, scale, allows=allows, app_key_shown=self._app_key_shown
        )
        with VerticalScroll(id="help-box"):
            yield KeyList(sections, scale, withheld, id="help-text")

    def _app_key_shown(self, binding: Binding) -> bool:
        """Whether the app would run the key for this user (a screen key
        outside the role is neither shown nor run)."""
        _, action, parameters = parse(binding.action)
        return self.app.check_action(action, parameters) is not False

    def on_mount(self) -> None:
        self.query_one("#help-box", VerticalScroll).border_title = "Keys"

    def action_close(self) -> None:
        self.dismiss(None)
