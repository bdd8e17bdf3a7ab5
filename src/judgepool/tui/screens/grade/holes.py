"""Holes sent to the grade screen from the audit, graded one after another.

The audit sends a hole (an unjudged document of a run's top k) to grading
with every other hole of the run, in order: the same query's first, by rank,
then the other queries' as the audit lists them (worst first); the list of
every run's holes (``H`` on the audit) sends all of them, in its order. After the
annotator grades (or marks unsure) the hole on screen, the next hole not yet
judged by them comes, until none is left; then grading returns to where the
annotator was. Moving elsewhere by hand leaves the holes queued: grading the
next queued hole picks the loop up again.

`HoleQueue` keeps the queue and says what comes next; the grade screen
(`judgepool.tui.screens.grade.screen`) shows it. A single document sent to
grading (the app's ``queue_for_grading``, the annotator's own items) is shown
at once and queues nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from judgepool.tui.screens.grade.status import Words

Item = tuple[str, str]

SENT: Final = "sent here for grading: "
ALL_JUDGED: Final[Words] = ("every hole sent from the audit is judged", "bold green")


def left(count: int) -> Words:
    """How many holes are left to judge, as the status line says it."""
    return f" · {count} hole{'s' if count != 1 else ''} left to judge", "dim"


@dataclass(frozen=True)
class AfterHole:
    """What follows the judgment of a queued hole: the next hole to show (None:
    every one is judged) and what the status line says of it."""

    next: Item | None
    words: tuple[Words, ...]


class HoleQueue:
    """The holes queued, the one on screen first."""

    def __init__(self) -> None:
        self.holes: tuple[Item, ...] = ()

    def send(self, holes: Sequence[Item]) -> tuple[Words, ...]:
        """Queue ``holes`` (not empty), the first to be shown now; what to say of it."""
        self.holes = tuple(holes)
        return (SENT, "bold"), (self.holes[0][1], ""), left(len(self.holes))

    def after(self, item: Item, judged: Callable[[Item], bool]) -> AfterHole | None:
        """``item`` is judged: the next queued hole the annotator has not
        ``judged``; None when ``item`` was not a queued hole (grading goes on
        as it would have)."""
        if item not in self.holes:
            return None
        self.holes = tuple(hole for hole in self.holes if hole != item and not judged(hole))
        if not self.holes:
            return AfterHole(None, (ALL_JUDGED,))
        first = self.holes[0]
        return AfterHole(first, (("next hole: ", "bold"), (first[1], ""), left(len(self.holes))))
