"""`RereadOnGrades`: a view that reads the workspace again after grades are saved.

A grade saved here or in another terminal is announced as `GradeSaved` (the
live refresh publishes other terminals' grades). A colleague's burst of
grades arrives as many announcements at once: they are gathered into one
re-read, made after the pending ones are handled, and only while the view is
showing; one that is not showing is marked stale, for its owner to read
again when it shows (`stale`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from judgepool.tui.messages import GradeSaved


class RereadOnGrades:
    """Calls ``reread`` once for a burst of grades while ``screen`` is showing.

    ``reread`` must call `read` (or `read` be called when it starts), which
    marks what is shown as current."""

    def __init__(self, screen: Screen[Any], reread: Callable[[], None]) -> None:
        self._screen = screen
        self._reread = reread
        self.stale = False  # a grade was saved since the view was read

    def subscribe(self) -> None:
        """Listen to the app's grades (an app without them: nothing to follow)."""
        signal = getattr(self._screen.app, "grade_saved_signal", None)
        if signal is not None:
            signal.subscribe(self._screen, self.grade_saved)

    def read(self) -> None:
        """What is shown is being read afresh."""
        self.stale = False

    def grade_saved(self, _saved: GradeSaved) -> None:
        if self.stale:
            return  # a re-read is already due
        self.stale = True
        if self._screen.is_current:
            self._screen.call_later(self._reread_if_stale)

    def _reread_if_stale(self) -> None:
        if self.stale and self._screen.is_current:
            self._reread()
