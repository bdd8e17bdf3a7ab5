"""The team's grading guidelines over the grade screen (key ``i``), and their
showing on first open and after a change (`GuidelinesOffer`).

`GuidelinesDialog` shows the grades of the scale with their labels, then the
guidelines as Markdown, rendered by Textual's own `Markdown` widget. The text
is the team's, yet it is data: Textual's Markdown passes an escape sequence
through to the terminal (ESC and what follows reach it as written; Rich
markup it shows as written, Markdown being parsed instead), so every
character a terminal would act on is replaced by its visible escape first
(`markdown_source`, as `judgepool.display.literal` does for other data).
Links are shown, never opened: a click in a served session would open
whatever the link says in the annotator's browser.

Once the dialog is shown, it records that the annotator was shown this text
(`judgepool.services.guidelines.mark_seen`); a workspace that cannot be
written shows them again at the next open.

`GuidelinesOffer` is the grade screen's: when it is shown (on opening, and
back from any dialog) and whenever another connection wrote (a lead may
change the guidelines while the team grades), it shows the guidelines if the
annotator has not been shown this text, over the grade screen only (never
over a dialog the annotator is typing in).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Markdown, Static

from judgepool.core.team.roles import Reach
from judgepool.core.terms.errors import JudgepoolError
from judgepool.display import literal
from judgepool.services.guidelines import (
    DueGuidelines,
    Guidelines,
    current_guidelines,
    guidelines_due,
    mark_seen,
)
from judgepool.services.workspace import StorageError
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.hosts import grading_host
from judgepool.tui.widgets.highlight import literal_text

NO_GUIDELINES = (
    "This workspace has no grading guidelines yet. A lead adds them with: "
    "judgepool settings WORKSPACE --guidelines FILE.md"
)


def markdown_source(text: str) -> str:
    """``text`` with every control, bidi or surrogate character a visible
    escape (`judgepool.display.literal`), line breaks and tabs kept: they are
    Markdown's own."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join("\t".join(literal(part) for part in line.split("\t")) for line in lines)


def scale_line(labels: Mapping[int, str]) -> Text:
    """Every grade of the scale beside its label: "0 Irrelevant · 1 Related · …"."""
    line = Text()
    for index, (grade, label) in enumerate(sorted(labels.items())):
        if index:
            line.append(" · ", style="dim")
        line.append(str(grade), style="bold")
        if label != str(grade):
            line.append(" ")
            line.append_text(literal_text(label))
    line.append(" · ", style="dim")
    line.append("u", style="bold")
    line.append(" unsure")
    return line


def heading(guidelines: Guidelines | None, due: DueGuidelines | None) -> Text:
    """What the dialog says above the text: why it is shown."""
    if guidelines is None:
        return Text(NO_GUIDELINES, style="italic")
    if due is not None and due.changed:
        line = Text("The guidelines changed since you last read them", style="bold yellow")
    elif due is not None:
        line = Text("Please read the team's guidelines before you grade", style="bold")
    else:
        line = Text("The team's grading guidelines", style="bold")
    line.append("  (i shows them again)", style="dim")
    return line


class GuidelinesDialog(ModalScreen[None]):
    """The grades with their labels, and the guidelines in Markdown."""

    REACH: ClassVar[Reach] = "own"

    DEFAULT_CLASSES = "dialog"
    DEFAULT_CSS = """
    GuidelinesDialog > Vertical {
        width: 96%;
        max-width: 110;
        height: 94%;
    }
    GuidelinesDialog .guidelines-line {
        height: auto;
        padding: 0 1;
    }
    GuidelinesDialog #guidelines-scroll {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *HELP_AND_QUIT,
        Binding("escape,i", "close", "close", tooltip="Close the guidelines"),
        Binding("space,pagedown", "page(1)", "page", tooltip="Read on: scroll down a page"),
        Binding("b,pageup", "page(-1)", "page", show=False, tooltip="Read back: scroll up a page"),
    ]

    def __init__(
        self, guidelines: Guidelines | None, labels: Mapping[int, str], due: DueGuidelines | None
    ) -> None:
        super().__init__()
        self.guidelines = guidelines
        self._labels = labels
        self._due = due

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-frame"):
            yield Static(heading(self.guidelines, self._due), classes="guidelines-line")
            yield Static(scale_line(self._labels), classes="guidelines-line", id="guidelines-scale")
            with VerticalScroll(id="guidelines-scroll"):
                if self.guidelines is not None:
                    yield Markdown(markdown_source(self.guidelines.text), open_links=False)
            yield Footer()

    def on_mount(self) -> None:
        self.query_one(".dialog-frame", Vertical).border_title = "Grading guidelines"
        self.query_one("#guidelines-scroll", VerticalScroll).focus()
        if self.guidelines is not None:
            host = grading_host(self.app)
            # read-only or busy: shown again at the next open
            with contextlib.suppress(JudgepoolError, StorageError):
                mark_seen(host.ws, host.annotator, self.guidelines.digest)

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#guidelines-scroll", VerticalScroll)
        if direction > 0:
            scroll.scroll_page_down(animate=False)
        else:
            scroll.scroll_page_up(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)


class GuidelinesOffer:
    """Shows the grade screen's annotator the guidelines they have not been shown."""

    def __init__(self, screen: Screen[None]) -> None:
        self._screen = screen
        self._offered: str | None = None  # the digest shown in this session

    def check(self) -> None:
        """Show the guidelines if they are due, over the grade screen only; each
        text once per session, even where it cannot be recorded as shown."""
        app = self._screen.app
        if app.screen is not self._screen:
            return
        host = grading_host(app)
        try:
            due = guidelines_due(host.ws, host.annotator)
        except (JudgepoolError, StorageError):
            return  # a busy or vanished file: asked again at the next change
        if due is not None and due.guidelines.digest != self._offered:
            self._offered = due.guidelines.digest
            app.push_screen(GuidelinesDialog(due.guidelines, host.ws.labels(), due))

    def show(self) -> None:
        """Show the guidelines now (key ``i``), or say there are none."""
        host = grading_host(self._screen.app)
        try:
            guidelines = current_guidelines(host.ws)
        except (JudgepoolError, StorageError) as exc:
            message = literal(f"cannot read the guidelines: {exc}")
            self._screen.notify(message, severity="error", markup=False)
            return
        if guidelines is not None:
            self._offered = guidelines.digest
        self._screen.app.push_screen(GuidelinesDialog(guidelines, host.ws.labels(), None))
