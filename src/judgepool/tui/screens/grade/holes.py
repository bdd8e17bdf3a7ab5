"""Documents sent to the grade screen, and the audit-to-grading loop.

`HoleLoop.queue_document` shows one document now (the app's
``queue_for_grading``, and the annotator's own list of items to go back
to); after it is graded, grading returns to where the annotator was.

The audit sends a hole (an unjudged document of a run's top k) to grading
with every other hole of the run, in order: the same query's first, by rank,
then the other queries' as the audit lists them (worst first); the list of
every run's holes (``H`` on the audit) sends all of them, in its order. After the
annotator grades (or marks unsure) the hole on screen, the next hole not yet
judged by them comes, until none is left; then grading returns to where the
annotator was. Moving elsewhere by hand leaves the holes queued: grading the
next queued hole picks the loop up again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from judgepool.tui.screens.grade.parts import GradeScreenParts

Item = tuple[str, str]


class HoleLoop(Screen[None]):
    """Holes sent from the audit, graded one after another."""

    holes: tuple[Item, ...] = ()
    """The holes queued, the one on screen first."""

    def queue_document(
        self: GradeScreenParts, query_id: str, doc_id: str, said: str = "sent here for grading: "
    ) -> None:
        """Show ``doc_id`` of ``query_id`` now, saying ``said`` and its ID."""
        self._bring(query_id, doc_id)
        self._say((said, "bold"), (doc_id, ""))
        self._show()

    def queue_holes(self: GradeScreenParts, holes: Sequence[Item]) -> None:
        """Show the first of ``holes`` now and queue the rest."""
        if not holes:
            return
        self.holes = tuple(holes)
        query_id, doc_id = self.holes[0]
        self._bring(query_id, doc_id)
        left = len(self.holes)
        self._say(("sent here for grading: ", "bold"), (doc_id, ""), (_left(left), "dim"))
        self._show()

    def _next_hole(self: GradeScreenParts, query_id: str, doc_id: str) -> bool:
        """After ``doc_id`` of ``query_id`` is judged: bring the next queued hole
        the annotator has not judged; False when the item was not a queued
        hole, or none is left (grading goes on as it would have)."""
        if (query_id, doc_id) not in self.holes:
            return False
        session = self.session
        remaining = tuple(
            item
            for item in self.holes
            if item != (query_id, doc_id) and not session.judgment(*item).judged
        )
        self.holes = remaining
        saved = self._status.plain + " · " if self._status.plain else ""
        if not remaining:
            self._say((saved, ""), ("every hole sent from the audit is judged", "bold green"))
            return False
        self._bring(*remaining[0])
        self._say(
            (saved, ""),
            ("next hole: ", "bold"),
            (remaining[0][1], ""),
            (_left(len(remaining)), "dim"),
        )
        return True


def _left(count: int) -> str:
    return f" · {count} hole{'s' if count != 1 else ''} left to judge"
