"""`ReviewHost`: what the audit and scores screens need from the app.

The app shell (`judgepool.tui.app`) provides these; the screens read them
through this protocol so they depend on the interface, not on the shell's
class, and a test can host them in any app with the same attributes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from textual.app import App

from judgepool.core.contract import Contract

if TYPE_CHECKING:
    from judgepool.tui.readers import ReadConnections


class ReviewHost(Protocol):
    """The app attributes the review screens use."""

    # the workspace file
    workspace: Path
    # read connections to it, one lent to each thread worker's job
    readers: ReadConnections
    annotator: str
    # the active contract: a reactive, so screens can watch it and recompute
    contract: Contract

    def queue_for_grading(self, query_id: str, doc_id: str) -> None:
        """Send a document to the grade screen ("judge the holes")."""


def host(app: App[object]) -> ReviewHost:
    """The running app as a `ReviewHost`."""
    return cast(ReviewHost, app)
