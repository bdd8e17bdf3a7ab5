"""The grade screen's settle order: the holes that settle comparisons, first.

In settle order the grade screen shows, instead of the pool's next document,
the unjudged document of the runs' top k whose grade is expected to bring the
comparisons that could still flip closest to a verdict
(`judgepool.core.holes.settle`, as ``judgepool holes --order settle``). After each
grade the order is recomputed with that grade known (`SettleQueue.judge`),
and the next hole is shown. This widget is the line that says so ("settle
order: 37 holes, 2 of 3 pairs could flip") and the workers behind it; it
tells its screen which document to show with a `SettleOrder.Next` message,
and gives it the words to say as the order starts and moves on.

Grading blind, a grader who is not a lead reads nothing of runs, pairs or
verdicts here: the line says "settle order: 37 documents to grade, the most
needed first" and the other words speak of documents alone (`step_text`
with ``runs=False``), so that no one grades towards the verdict a pair
awaits. A refusal (no runs yet, say) is told to them without its reason.

The queue is built from the workspace (every stored run, its judgments under
the consensus rule, the app's contract) when settle order starts, and again
after an undo. When the current assignment gives the annotator items, only
the holes among them are offered (the others' holes are theirs to judge).
A grade only updates the queue, and so do grades given elsewhere meanwhile
(the comparison's side-by-side lists), taken in before the next ranking.
Building and ranking run in a thread worker (group ``settle``: a newer one
cancels the older), which posts the outcome (`Built`, `Ranked`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import Static

from judgepool.display import literal
from judgepool.services.settle_queue import SettleQueue, SettleStep
from judgepool.tui.background import Refused, post, read
from judgepool.tui.hosts import GradingHost, grading_host, review_host
from judgepool.tui.messages import GradesSaved
from judgepool.tui.widgets.score_format import message as message_text

if TYPE_CHECKING:
    from judgepool.core.terms.contract import Contract
    from judgepool.services.workspace import Workspace
    from judgepool.tui.readers import ReadConnections


def pairs_words(step: SettleStep) -> str:
    """The pairs left, in words: those still undecided ("could flip", the
    verdict's name), then those the draws call probable (their bounds could
    still flip them, so the order may still work on them)."""
    if step.undecided:
        words = f"{step.undecided} of {step.pairs} pairs could flip"
        return f"{words}, {step.probable} probable" if step.probable else words
    if step.probable:
        return f"no pair of {step.pairs} undecided, {step.probable} probable"
    return f"no pair of {step.pairs} can flip any more"


def step_text(step: SettleStep, *, runs: bool = True) -> Text:
    """The settle order's line: what is left, in words; without ``runs``
    (grading blind), of documents alone."""
    text = Text("settle order", style="bold magenta")
    if step.in_queue:
        text.append(" in your queue", style="magenta")
    if not runs:
        if step.hole is None:
            text.append(": nothing left to grade", style="bold green")
        else:
            documents = "1 document" if step.holes == 1 else f"{step.holes} documents"
            text.append(f": {documents} to grade, the most needed first", style="")
        text.append("   (t or n: back to the pool order)", style="dim")
        return text
    holes = "1 hole" if step.holes == 1 else f"{step.holes} holes"
    text.append(f": {holes} left, ", style="")
    style = "bold yellow" if step.undecided else "bold cyan" if step.probable else "bold green"
    text.append(pairs_words(step), style=style)
    if step.hole is None:
        where = " in your queue" if step.in_queue else ""
        text.append(f" · nothing left to judge{where}", style="italic")
    text.append("   (t or n: back to the pool order)", style="dim")
    return text


def _names_runs(host: GradingHost) -> bool:
    """Whether the settle order may speak of runs, pairs and verdicts: to a
    lead (who alone reaches the audit and the scores, as she alone sees a
    model's labels), and to anyone while grading is not blind; never to a
    blind grader, who would grade towards the verdict the words announce."""
    return host.sees_model_grades() or not host.blind


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

    @dataclass
    class Built(Message, bubble=False):
        """The settle queue built, with its first step, or why it was not."""

        built: tuple[SettleQueue, SettleStep] | Refused

    @dataclass
    class Ranked(Message, bubble=False):
        """The holes ranked again after a grade, or why they were not."""

        step: SettleStep | Refused

    def __init__(self, readers: ReadConnections, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.readers = readers
        self.queue: SettleQueue | None = None
        self.last: SettleStep | None = None
        # grades saved since the last ranking (GradeSaved), taken in by the next
        self._saved: list[tuple[str, str, int]] = []

    def on_mount(self) -> None:
        review_host(self.app).follow_grades(self)

    def on_grades_saved(self, message: GradesSaved) -> None:
        if self.active:
            self._saved += [
                (saved.query_id, saved.doc_id, saved.grade)
                for saved in message.saved
                if saved.grade is not None
            ]

    @property
    def active(self) -> bool:
        return self.has_class("-active")

    @property
    def runs_named(self) -> bool:
        """Whether this grader reads of runs and pairs here (`_names_runs`),
        asked anew each time: the blind setting may change meanwhile."""
        return _names_runs(grading_host(self.app))

    def start_words(self) -> str:
        """What the screen says as settle order starts."""
        if self.runs_named:
            return "settle order: the holes that decide comparisons come first"
        return "settle order: the documents most needed come first"

    def next_words(self) -> str:
        """What the screen says as it shows the next document of the order."""
        return (
            "next: the hole that decides most"
            if self.runs_named
            else "next: the most needed document"
        )

    def none_left_words(self) -> str:
        """What the screen says when the order has no document left."""
        in_queue = self.last is not None and self.last.in_queue
        if not self.runs_named:
            return "settle order: no document left to grade" + (
                " in your queue" if in_queue else ""
            )
        where = "in your queue" if in_queue else "in the runs' top k"
        return f"settle order: no unjudged document left {where}"

    def start(self, contract: Contract) -> None:
        """Enter settle order: build the queue and show its first hole."""
        self.remove_class("-failed")
        self.add_class("-active")
        self._saved = []  # the queue is read from the workspace: it has them
        finding = "the holes" if self.runs_named else "the documents"
        self.update(Text(f"settle order: finding {finding}…", style="italic magenta"))

        self._build(contract, review_host(self.app).annotator)

    @work(thread=True, exclusive=True, group="settle")
    def _build(self, contract: Contract, annotator: str) -> None:
        def build(ws: Workspace) -> tuple[SettleQueue, SettleStep]:
            queue = SettleQueue.of_workspace(ws, contract, annotator=annotator)
            return queue, queue.step()

        post(self, self.Built(read(self.readers, build)))

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
        ranking = "ranking the holes again" if self.runs_named else "choosing the next document"
        self.update(Text(f"settle order: {ranking}…", style="italic magenta"))
        # this grade, and any given elsewhere since the last ranking (a grade
        # taken in twice changes nothing)
        saved, self._saved = self._saved, []
        self._rank(queue, saved, (query_id, doc_id), grade)

    @work(thread=True, exclusive=True, group="settle")
    def _rank(
        self,
        queue: SettleQueue,
        saved: list[tuple[str, str, int]],
        item: tuple[str, str],
        grade: int | None,
    ) -> None:
        def rank(_ws: Workspace) -> SettleStep:
            for taken in saved:
                queue.judge(*taken)
            if grade is None:
                queue.defer(*item)
            else:
                queue.judge(*item, grade)
            return queue.step()

        post(self, self.Ranked(read(self.readers, rank)))

    def on_settle_order_built(self, message: Built) -> None:
        if isinstance(message.built, Refused):
            self._failed(message.built.reason)
            return
        if not self.active:
            return
        self.queue, step = message.built
        self._stepped(step)

    def on_settle_order_ranked(self, message: Ranked) -> None:
        if isinstance(message.step, Refused):
            self._failed(message.step.reason)
            return
        self._stepped(message.step)

    def _stepped(self, step: SettleStep) -> None:
        if not self.active:
            return
        self.last = step
        self.update(step_text(step, runs=self.runs_named))
        hole = step.hole
        self.post_message(
            self.Next(None, None) if hole is None else self.Next(hole.query_id, hole.doc_id)
        )

    def _failed(self, error: str) -> None:
        # the line stays, saying why, until settle order is tried again or left
        self.remove_class("-active")
        self.add_class("-failed")
        self.queue = None
        if not self.runs_named:
            # the reason speaks of runs ("the workspace has no runs"): the lead's to read
            error = "not available now; the pool order goes on (your lead can tell why)"
        self.notify(literal(error), title="settle order", severity="error", markup=False)
        self.update(message_text("no settle order: " + error.splitlines()[0], "bold red"))
