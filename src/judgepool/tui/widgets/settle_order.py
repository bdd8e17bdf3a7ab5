"""The grade screen's settle order: the holes that settle comparisons, first.

In settle order the grade screen shows, instead of the pool's next document,
the unjudged document of the runs' top k whose grade is expected to bring the
comparisons that could still flip closest to a verdict
(`judgepool.core.settle`, as ``judgepool holes --order settle``). After each
grade the order is recomputed with that grade known (`SettleQueue.judge`),
and the next hole is shown. This widget is the line that says so ("settle
order: 37 holes, 2 of 3 pairs could flip") and the workers behind it; it
tells its screen which document to show with a `SettleOrder.Next` message.

The queue is built from the workspace (every stored run, its judgments under
the consensus rule, the app's contract) when settle order starts, and again
after an undo. When the current assignment gives the annotator items, only
the holes among them are offered (the others' holes are theirs to judge).
A grade only updates the queue, and so do grades given elsewhere meanwhile
(the comparison's side-by-side lists), taken in before the next ranking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from judgepool.display import literal
from judgepool.tui.hosts import review_host
from judgepool.tui.messages import GradeSaved
from judgepool.tui.thread_jobs import Delivery, deliver, read_in_thread
from judgepool.tui.verdict_jobs import SettleQueue, SettleStep
from judgepool.tui.widgets.score_format import message as message_text

if TYPE_CHECKING:
    from judgepool.core.contract import Contract
    from judgepool.services.workspace import Workspace
    from judgepool.tui.readers import ReadConnections


def step_text(step: SettleStep) -> Text:
    """The settle order's line: what is left, in words."""
    text = Text("settle order", style="bold magenta")
    if step.in_queue:
        text.append(" in your queue", style="magenta")
    holes = "1 hole" if step.holes == 1 else f"{step.holes} holes"
    text.append(f": {holes} left, ", style="")
    if step.open_pairs:
        text.append(f"{step.open_pairs} of {step.pairs} pairs could flip", style="bold yellow")
    else:
        text.append(f"no pair of {step.pairs} can flip any more", style="bold green")
    if step.hole is None:
        where = " in your queue" if step.in_queue else ""
        text.append(f" · nothing left to judge{where}", style="italic")
    text.append("   (t or n: back to the pool order)", style="dim")
    return text


class SettleOrder(Static):
    """The settle order's state line and its workers (hidden outside settle order)."""

    DEFAULT_CSS = """
    SettleOrder {
        height: 1;
        padding: 0 1;
        display: none;
    }
    SettleOrder.-active, SettleOrder.-failed {
        display: block;
    }
    """

    @dataclass
    class Next(Message):
        """Show this hole now (None: there is none left to show)."""

        query_id: str | None
        doc_id: str | None

    def __init__(self, readers: ReadConnections, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.readers = readers
        self.queue: SettleQueue | None = None
        self.last: SettleStep | None = None
        # grades saved since the last ranking (GradeSaved), taken in by the next
        self._saved: list[tuple[str, str, int]] = []

    def on_mount(self) -> None:
        review_host(self.app).grade_saved_signal.subscribe(self, self._grade_saved)

    def _grade_saved(self, saved: GradeSaved) -> None:
        if self.active and saved.grade is not None:
            self._saved.append((saved.query_id, saved.doc_id, saved.grade))

    @property
    def active(self) -> bool:
        return self.has_class("-active")

    def start(self, contract: Contract) -> None:
        """Enter settle order: build the queue and show its first hole."""
        self.remove_class("-failed")
        self.add_class("-active")
        self._saved = []  # the queue is read from the workspace: it has them
        self.update(Text("settle order: finding the holes…", style="italic magenta"))

        annotator = review_host(self.app).annotator

        def build(ws: Workspace) -> tuple[SettleQueue, SettleStep]:
            queue = SettleQueue.of_workspace(ws, contract, annotator=annotator)
            return queue, queue.step()

        read_in_thread(self, self.readers, build, self._built, self._failed, group="settle")

    def stop(self) -> None:
        """Leave settle order (a computation under way is dropped)."""
        self.remove_class("-active", "-failed")
        self.workers.cancel_group(self, "settle")
        self.queue = None
        self.last = None

    def graded(self, query_id: str, doc_id: str, grade: int | None) -> None:
        """A judgment of the shown hole is saved: the next one, recomputed."""
        queue = self.queue
        if queue is None:
            return
        self.update(Text("settle order: ranking the holes again…", style="italic magenta"))
        # this grade, and any given elsewhere since the last ranking (a grade
        # taken in twice changes nothing)
        saved, self._saved = self._saved, []

        def rank(_ws: Workspace) -> SettleStep:
            for item in saved:
                queue.judge(*item)
            if grade is None:
                queue.defer(query_id, doc_id)
            else:
                queue.judge(query_id, doc_id, grade)
            return queue.step()

        read_in_thread(self, self.readers, rank, self._stepped, self._failed, group="settle")

    def _built(self, built: tuple[SettleQueue, SettleStep]) -> None:
        if not self.active:
            return
        self.queue, step = built
        self._stepped(step)

    def _stepped(self, step: SettleStep) -> None:
        if not self.active:
            return
        self.last = step
        self.update(step_text(step))
        hole = step.hole
        self.post_message(
            self.Next(None, None) if hole is None else self.Next(hole.query_id, hole.doc_id)
        )

    def _failed(self, error: str) -> None:
        # the line stays, saying why, until settle order is tried again or left
        self.remove_class("-active")
        self.add_class("-failed")
        self.queue = None
        self.notify(literal(error), title="settle order", severity="error", markup=False)
        self.update(message_text("no settle order: " + error.splitlines()[0], "bold red"))

    def on_delivery(self, message: Delivery) -> None:
        deliver(message)
