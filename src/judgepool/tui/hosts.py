"""What the screens need from the app, as protocols.

The app shell (`judgepool.tui.app.JudgepoolApp`) provides every attribute
named here. Screens and dialogs read them through these protocols, never
through the shell's class, so no screen imports the app module (the shell
imports the screens, not the other way round), and a test can host a screen
in any app with the same attributes.

- `GradingHost`: what the grade and help screens use (the app's own
  connection, who grades, the grading plan, and where to announce a saved
  judgment): what `judgepool.tui.grade_writer` writes with.
- `ReviewHost`: what the audit and scores screens use (read connections for
  their workers, the active contract, the announcements of saved judgments,
  and the way to send a document to grading).

Both offer ``follow_grades``, the one way a view follows the judgments saved
(`judgepool.tui.messages.GradesSaved`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual.app import App

from judgepool.core.terms.contract import Contract

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from judgepool.services.live import LiveScores
    from judgepool.services.review import Scoreboard
    from judgepool.services.workspace import Workspace
    from judgepool.tui.grading import GradingSession
    from judgepool.tui.readers import ReadConnections


class GradingHost(Protocol):
    """The app attributes the grade and help screens use."""

    annotator: str
    # the app's one connection for its main thread: the grade screen reads and writes on it
    ws: Workspace
    # read connections for thread workers (the settle order's)
    readers: ReadConnections
    # the active contract (the settle order ranks the holes under it)
    contract: Contract
    # grading is blind (the workspace's setting): no other annotator's grade or note shown
    blind: bool
    # the grading plan the grade screen shows: a judgment written anywhere is taken into it
    session: GradingSession

    @property
    def workspace_label(self) -> str:
        """The workspace's file name as the screens show it (saying when it is read-only)."""

    def grade_saved(self, query_id: str, doc_id: str, grade: int | None) -> None:
        """Announce that a judgment event for the document is committed."""

    def sees_model_grades(self) -> bool:
        """Whether the person may see a model's labels (a lead)."""

    def follow_grades(self, node: DOMNode) -> None:
        """Post `GradesSaved` to ``node`` (mounted) after every judgment event."""


class ReviewHost(Protocol):
    """The app attributes the review screens (audit, scores) use."""

    # the workspace file
    workspace: Path
    # read connections to it, one lent to each thread worker's job
    readers: ReadConnections
    annotator: str
    # the active contract: a reactive, so screens can watch it and recompute
    contract: Contract
    # every run scored against the judgments, kept between boards (and scored
    # ahead while a lead grades: `judgepool.tui.scores_ahead`)
    live_scores: LiveScores

    def queue_for_grading(self, query_id: str, doc_id: str) -> None:
        """Send a document to the grade screen ("judge the holes")."""

    def store_scores(self, board: Scoreboard) -> None:
        """Store the board's new scores as evaluations (as ``judgepool score`` does)."""

    def save_default_contract(self, contract: Contract) -> None:
        """Save ``contract`` as the workspace's default (saying so, or why not)."""

    def queue_holes(self, holes: Sequence[tuple[str, str]]) -> None:
        """Send holes to the grade screen, to be judged one after another."""

    def follow_grades(self, node: DOMNode) -> None:
        """Post `GradesSaved` to ``node`` (mounted) after every judgment event."""


def grading_host(app: App[Any]) -> GradingHost:
    """The running app as a `GradingHost`."""
    return cast("GradingHost", app)


def review_host(app: App[Any]) -> ReviewHost:
    """The running app as a `ReviewHost`."""
    return cast("ReviewHost", app)
