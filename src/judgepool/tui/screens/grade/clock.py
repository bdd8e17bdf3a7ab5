"""The grade screen's clock: how long the current document has been shown, and
the annotator's grades per hour (shown at the end of the status line,
`judgepool.tui.screens.grade.status.StatusLine`).

The seconds run from when the grade screen first showed the document (a note
or an undo that shows it again does not restart them); they are what a grade
of it records (`GradeClock.seconds`, the ``seconds`` of
`judgepool.services.judging.judge`). The rate is ``judgepool progress``'s:
the annotator's timed grades per hour of the time the app recorded for them
(`judgepool.services.own_review.own_rate`), read again whenever another
document is shown, which is after every grade.

`now` is the clock's time source, module-level so that a test can hold the
clock still (pictures of the screen must not depend on how fast it drew).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text

Item = tuple[str, str]
RateReader = Callable[[], "float | None"]
"""Reads the annotator's grades per hour (None: nothing timed, or unreadable)."""


def now() -> float:
    """The clock's time, in seconds (monotonic)."""
    return time.monotonic()


def duration(seconds: float) -> str:
    """``seconds`` as people read a short time: "14 s", "3:05 min", "1:02:03 h"."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60}:{whole % 60:02d} min"
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d} h"


def clock_line(seconds: float | None, rate: float | None, narrow: bool) -> Text:
    """The clock's words: the time on the document (None: no document) and the
    rate (None: nothing timed yet), in full or (``narrow``) short."""
    parts: list[str] = []
    if seconds is not None:
        parts.append(duration(seconds) + ("" if narrow else " on this document"))
    if rate is not None:
        parts.append(f"{rate:,.1f}/h" if narrow else f"you: {rate:,.1f} grades/h")
    return Text(" · ".join(parts), style="dim")


class GradeClock:
    """Seconds on the current document, and grades per hour."""

    def __init__(self, read_rate: RateReader) -> None:
        self._read_rate = read_rate
        self._counting = False  # an item (or nothing to grade) was shown
        self._item: Item | None = None
        self._since = 0.0
        self._rate: float | None = None

    def shown(self, item: Item | None) -> bool:
        """The grade screen shows ``item`` (None: nothing to grade): another item
        than before starts the count again, and the rate is read afresh; True
        then (the line changed)."""
        if self._counting and item == self._item:
            return False
        self._counting, self._item = True, item
        self._since = now()
        self._rate = self._read_rate()
        return True

    def seconds(self) -> float:
        """How long the current document has been shown, in seconds."""
        return now() - self._since

    def line(self, narrow: bool) -> Text:
        """What the clock says now, in full or short."""
        seconds = None if self._item is None else self.seconds()
        return clock_line(seconds, self._rate, narrow)
