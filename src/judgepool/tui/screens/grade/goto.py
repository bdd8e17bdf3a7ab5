"""The grade screen's ``ctrl+g`` (or ``/``): go to a query of the queue by its ID
or by words of its text (`judgepool.tui.dialogs.goto_query.GotoQueryDialog`
asks; `judgepool.tui.grading.GradingSession.find_query` finds it).

The words asked last are offered again the next time, so a second ``ctrl+g``
and enter goes on to the next query they match.
"""

from __future__ import annotations

from judgepool.tui.dialogs.goto_query import GotoQueryDialog
from judgepool.tui.grading import GradingSession
from judgepool.tui.screens.grade.status import Words


class GotoQuery:
    """Finds the query asked for, remembering what was asked last."""

    def __init__(self) -> None:
        self.last = ""

    def dialog(self) -> GotoQueryDialog:
        """The dialog that asks, filled with what was asked last."""
        return GotoQueryDialog(self.last)

    def go(self, session: GradingSession, wanted: str) -> tuple[Words, ...] | None:
        """Go to the first query after the current one whose ID is ``wanted``, else
        whose text holds its words, at its first document to grade (a grade
        no longer returns to a document sent here). None once there; else
        what the status line says: no query matches (the position stays)."""
        self.last = wanted
        session.forget_resume()
        if session.find_query(wanted) is not None:
            return None
        return ("no query of your queue has the ID or the words ", "yellow"), (wanted, "")
