"""The app follows grades written by other terminals and processes.

Twice a second the app asks SQLite whether another connection has committed
(``PRAGMA data_version`` on its own connection: no table is read, so this
costs microseconds while nothing changes). When one has, it re-reads the
judgments of the items that gained events since it last looked, takes them
into the grading session (its progress bars), refreshes the grade screen and
publishes `GradeSaved` for each, as for a grade given in the app, so the
audit, the scores and the settle order recompute. The workspace's blind
setting is read again too: ``judgepool settings --blind`` takes effect at once.

A commit of very many items at once (an import of qrels), or a new
assignment (``judgepool assign``: the queues changed), re-reads the whole
plan instead, and announces only the last item: the screens that follow
grades recompute from the store anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, Protocol

from judgepool.core.terms.errors import JudgepoolError
from judgepool.services import app_queries
from judgepool.services.live import StoreWatcher
from judgepool.services.settings import blind_grading
from judgepool.services.workspace import StorageError, Workspace
from judgepool.tui.grading import GradingSession

if TYPE_CHECKING:
    from textual.timer import Timer

POLL_SECONDS: Final = 0.4
# beyond this many changed items, re-reading the plan is cheaper than item by item
ITEM_BY_ITEM: Final = 200


class LiveHost(Protocol):
    """The app, as far as following the workspace uses it."""

    ws: Workspace
    annotator: str
    session: GradingSession
    blind: bool
    quitting: bool

    def set_interval(self, interval: float, callback: Callable[[], Any], *, name: str) -> Timer:
        """Call ``callback`` every ``interval`` seconds (Textual's timer)."""

    def notify(self, message: str, *, severity: Any, markup: bool) -> None:
        """Show a notice."""

    def store_changed(self) -> None:
        """Show the session as it now is."""

    def grade_saved(self, query_id: str, doc_id: str, grade: int | None) -> None:
        """Announce a judgment event on disk."""


class LiveRefresh:
    """Polls the app's connection and takes in what other connections wrote."""

    def __init__(self, app: LiveHost) -> None:
        self.app = app
        self.watcher = StoreWatcher(app.ws)
        self.refreshes = 0  # how many times a change was taken in (tests read it)
        self.failing = False
        self.timer: Timer | None = None

    def start(self) -> None:
        self.timer = self.app.set_interval(POLL_SECONDS, self.poll, name="live-refresh")

    def poll(self, *, force: bool = False) -> bool:
        """Take in what changed since the last poll (everything again when
        ``force``: F5); whether anything had changed."""
        app = self.app
        if app.quitting:
            return False
        try:
            items = self.watcher.changed_items(force=force)
            if items is None:
                return False
            app.blind = blind_grading(app.ws)
            session = app.session
            if self.watcher.assignment_changed() or force or len(items) > ITEM_BY_ITEM:
                session.reload(app_queries.grading_plan(app.ws, app.annotator))
                items = items[-1:]
            saved = [self._take_in(query_id, doc_id) for query_id, doc_id in items]
        except (JudgepoolError, StorageError) as exc:
            # a busy or vanished file: try again at the next poll, and say so once
            if not self.failing:
                app.notify(f"cannot re-read the workspace: {exc}", severity="warning", markup=False)
            self.failing = True
            return False
        self.failing = False
        self.refreshes += 1
        app.store_changed()
        for query_id, doc_id, grade in saved:
            app.grade_saved(query_id, doc_id, grade)
        return True

    def _take_in(self, query_id: str, doc_id: str) -> tuple[str, str, int | None]:
        """Record an item's judgments in the session (blinded as the screen shows
        them) and return it with the grade to announce: the annotator's own,
        else the latest other annotator's (the screens that follow grades count
        any annotator's; nothing of it is shown while grading blind)."""
        app = self.app
        judgment = app_queries.item_judgment(app.ws, app.annotator, query_id, doc_id)
        grade = judgment.own_grade
        if grade is None and judgment.others:
            grade = judgment.others[-1][1]
        if app.blind:
            judgment = replace(judgment, others=(), others_notes=())
        app.session.record(query_id, doc_id, judgment)
        return query_id, doc_id, grade
