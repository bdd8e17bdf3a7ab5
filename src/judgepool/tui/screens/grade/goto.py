"""The grade screen's part in grading as a team: going to a query of the
queue by ID or words, taking in grades other terminals wrote (and guidelines
a lead changed meanwhile), the notes that wait for a grade, and what an undo
says.

A mixin of `judgepool.tui.screens.grade.GradeScreen`, kept apart so that
module holds grading itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.screen import Screen

from judgepool.services.app_queries import Item, ItemJudgment
from judgepool.tui.dialogs.goto_query import GotoQueryDialog
from judgepool.tui.grading import GradingSession

if TYPE_CHECKING:
    from judgepool.tui.dialogs.guidelines import GuidelinesOffer


def back_to(judgment: ItemJudgment) -> str:
    """Where an item stands for the annotator, after an undo."""
    if judgment.own_grade is not None:
        return f"grade {judgment.own_grade}"
    if judgment.own_unsure:
        return "unsure"
    return "unjudged"


def undo_line(undone: str, doc_id: str, judgment: ItemJudgment) -> Text:
    """ "undone: grade 2 of D back to unjudged", the document shown literally."""
    line = Text("undone", style="bold")
    line.append(f": {undone} of ")
    line.append(doc_id)
    line.append(" back to ")
    line.append(back_to(judgment), style="bold")
    return line


class GradeTeamActions(Screen[None]):
    """Go to a query, take in other terminals' grades, count waiting notes."""

    _last_search: str = ""
    # the grade screen's, declared here for the type checker
    session: GradingSession
    _pending_notes: dict[Item, str]
    guidelines: GuidelinesOffer

    if TYPE_CHECKING:

        def _show(self) -> None: ...
        def _moved(self) -> None: ...
        def _update_status(self) -> None: ...
        def _say(self, *parts: tuple[str, str]) -> None: ...

    def waiting_notes(self) -> int:
        """How many notes wait for their document's grade (lost on quit)."""
        return len(self._pending_notes)

    def store_changed(self) -> None:
        """Other connections wrote: show the session's counts and the current
        document's judgments as they now are (the document stays), and the
        guidelines if a lead changed them."""
        if self.is_mounted:
            self._show()
            self.guidelines.check()

    def action_goto_query(self) -> None:
        """Ask for a query ID or words, and go to the first match after the
        current query, at its first document to grade."""

        def go(wanted: str | None) -> None:
            if not wanted:
                return
            self._last_search = wanted
            self.session.forget_resume()
            if self.session.find_query(wanted) is None:
                self._say(
                    ("no query of your queue has the ID or the words ", "yellow"), (wanted, "")
                )
                self._update_status()
                return
            self._moved()

        self.app.push_screen(GotoQueryDialog(self._last_search), go)
