"""`ReviewScreen`: what the audit and scores screens share.

Both screens are laid out the same way: a title line, the active contract
(`ContractBar`, always visible above the numbers it produced), the screen's
own body, a status line and the footer. Both compute in thread workers and
recompute when they must:

- when the app's ``contract`` changes (``c`` opens the contract dialog);
- after a judgment is saved (`judgepool.tui.messages.GradesSaved`, a burst
  of them one message): at once when the screen is showing, else when it is
  shown again;
- on ``f5``.

Both also show, per pair of runs, whether the unjudged documents could still
change which run is better (`PairVerdicts`: a line per pair, settled / could
flip / tied and the holes in the way; `PairWords`: the highlighted pair in
one sentence), computed with `compute_verdicts` in its own worker group, one
comparison at a time, the next under the same contract ``VERDICTS_PAUSE``
seconds after it at the soonest (grades saved meanwhile are compared then);
``p`` opens the full comparison (`VerdictsScreen`).

A subclass names itself (``NAME``, the prefix of its widget IDs, and
``HEADING``), yields its body (`compose_body`), starts its work on mount
(`started`) and computes under a contract (`compute`). It reads the workspace
as every view does (`judgepool.tui.background`): in its own thread workers,
each posting what it read as a message of the screen's, and telling its
stages as it goes (`stage`: a `Progress` message, shown on the status line).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Final

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.team.roles import Reach
from judgepool.core.terms.contract import Contract
from judgepool.display import literal
from judgepool.services.verdicts import verdict_contract
from judgepool.services.workspace_comparison import compare_workspace
from judgepool.tui.background import Refused, post, read
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.hosts import ReviewHost, review_host
from judgepool.tui.messages import GradesSaved
from judgepool.tui.widgets.pair_verdicts import PairVerdicts, PairWords, tally
from judgepool.tui.widgets.score_contract import ContractBar, ContractDialog
from judgepool.tui.widgets.score_format import message as message_text

# Seconds from a comparison to the next under the same contract.
VERDICTS_PAUSE: Final = 2.0

if TYPE_CHECKING:
    from judgepool.services.judgments_source import JudgmentsSource
    from judgepool.services.verdicts import ComparedRuns
    from judgepool.tui.readers import ReadConnections


class ReviewScreen(Screen[None]):
    """A title, the contract, a body computed in workers, a status line and the footer."""

    REACH: ClassVar[Reach] = "review"

    # Classes for small terminals (app.tcss): at 80 × 24 the key columns, the
    # per-query table and the pairs keep their room, the side panels give
    # theirs up, and the footer keeps the screen's own keys (below 120
    # columns set close together; the app's screen keys and the palette's,
    # both on ?, give way).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide"), (120, "-full")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (28, "-medium"), (32, "-tall")]  # noqa: RUF012
    # the width from which the footer's keys have their usual spacing
    ROOMY_FOOTER: ClassVar[int] = 120

    NAME: ClassVar[str]
    """The prefix of the screen's widget IDs: ``{NAME}-title``, ``-contract``, ``-status``."""
    HEADING: ClassVar[str]
    """The title line's text until the screen has something to say there."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *HELP_AND_QUIT,
        Binding(
            "p",
            "verdicts",
            "pairs",
            tooltip=(
                "Compare the runs pair by pair: tests, bounds under the unjudged documents, "
                "verdicts; open a query's two lists side by side"
            ),
        ),
    ]

    @dataclass
    class Progress(Message):
        """What a worker is doing; each replaces the one before."""

        stage: str

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ReviewScreen.Progress)

    @dataclass
    class Compared(Message, bubble=False):
        """The pairs of runs compared under ``contract`` (None: fewer than two
        runs), or why they were not."""

        contract: Contract
        compared: ComparedRuns | Refused | None

    def __init__(self) -> None:
        super().__init__()
        # a grade was saved since the last computation
        self.stale = False
        self.compared: ComparedRuns | None = None
        # the contract the verdicts shown (or being computed) are under; None
        # once a grade or f5 made them stale
        self._verdicts_under: Contract | None = None
        # the contract of the verdicts shown, the contract bar's, the status line
        self._compared_under: Contract | None = None
        self._contract_shown: Contract | None = None
        self._status: Text | None = None
        # a comparison is running; the one wanted next (its contract and judgments)
        self._comparing = False
        self._compare_next: tuple[Contract, JudgmentsSource | None] | None = None
        self._paused_until = 0.0  # no comparison under the same contract before (monotonic)

    @property
    def host(self) -> ReviewHost:
        """The app, as far as the review screens use it."""
        return review_host(self.app)

    # -- layout ------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(Text(self.HEADING), id=f"{self.NAME}-title", classes="review-title")
        yield ContractBar(id=f"{self.NAME}-contract")
        yield from self.compose_body()
        yield Static(id=f"{self.NAME}-status", classes="review-status")
        yield Footer()

    def compose_body(self) -> ComposeResult:
        """The widgets between the contract and the status line."""
        yield from ()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one(Footer).compact = event.size.width < self.ROOMY_FOOTER

    def compose_verdicts(self) -> ComposeResult:
        """The pairs' verdicts: a title line, the table (`PairVerdicts`, a line
        per pair) and the highlighted pair in words (`PairWords`)."""
        yield Static(id=f"{self.NAME}-verdicts-title", classes="review-title")
        yield PairVerdicts(id=f"{self.NAME}-verdicts")
        yield PairWords(id=f"{self.NAME}-verdict-words")

    @on(DataTable.RowHighlighted, "PairVerdicts")
    def _pair_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.query_one(PairWords).show(self.query_one(PairVerdicts).current_pair)

    def compute_verdicts(self, contract: Contract, judged: JudgmentsSource | None = None) -> None:
        """Compare every pair of runs under ``contract`` in a worker, then show
        the verdicts (a screen without `compose_verdicts` skips this), on
        ``judged`` when given (the judgments of the scores shown), else on the
        workspace's as they are. One comparison at a time, and under the same
        contract not within ``VERDICTS_PAUSE`` seconds of the last: grades that
        come meanwhile are compared then (while a team grades, a comparison
        after every burst kept a core busy for verdicts that move slowly; the
        scores follow every grade)."""
        if not self.query(PairVerdicts) or self._verdicts_under == contract:
            return  # no table, or the same verdicts (an audit of another run)
        if self._comparing:
            self._compare_next = (contract, judged)
            return
        wait = self._paused_until - time.monotonic() if contract == self._compared_under else 0
        if wait > 0:
            self._compare_next = (contract, judged)
            self._comparing = True  # nothing starts before the timer
            self.set_timer(wait, self._compare_wanted)
            return
        if self.compared is None or self._compared_under != contract:
            title = self.query_one(f"#{self.NAME}-verdicts-title", Static)
            title.update(Text("comparing the runs pair by pair…", style="italic"))
        self._verdicts_under = contract
        self._comparing = True
        self._compare(self.host.readers, contract, judged)

    @work(thread=True, exclusive=True, group="verdicts")
    def _compare(
        self, readers: ReadConnections, contract: Contract, judged: JudgmentsSource | None
    ) -> None:
        compared = read(readers, lambda ws: compare_workspace(ws, contract, judged=judged))
        post(self, self.Compared(contract, compared))

    def on_review_screen_compared(self, message: Compared) -> None:
        self._paused_until = time.monotonic() + VERDICTS_PAUSE
        self._compare_wanted()
        contract, compared = message.contract, message.compared
        if contract != self.host.contract:
            return  # a newer contract is being compared
        self._compared_under = contract
        title = self.query_one(f"#{self.NAME}-verdicts-title", Static)
        if isinstance(compared, Refused):
            self._verdicts_under = None
            self.compared = None
            self.query_one(PairVerdicts).show(None)
            self.query_one(PairWords).show(None)
            title.update(message_text("Pairs: " + compared.reason.splitlines()[0], "red"))
            return
        self.compared = compared
        table = self.query_one(PairVerdicts)
        table.show(compared)
        self.query_one(PairWords).show(table.current_pair)
        heading = Text("Pairs", style="bold")
        if compared is None:
            heading.append("   fewer than two runs: nothing to compare", style="dim")
        else:
            heading.append("   ")
            heading.append_text(tally(compared))
            if any(pair.verdict == "could flip" for pair in compared.report.pairs):
                heading.append("  · grade screen t: their holes first", style="dim")
            _, note = verdict_contract(contract)
            if note:
                heading.append("  · as under unjudged=zero (p: why)", style="dim")
        title.update(heading)

    def _compare_wanted(self) -> None:
        self._comparing = False
        wanted, self._compare_next = self._compare_next, None
        # a screen not shown compares when shown again (it is stale)
        if wanted is not None and self.is_current:
            self.compute_verdicts(*wanted)

    def action_verdicts(self) -> None:
        """Open the full comparison of the runs, pair by pair."""
        if self.compared is None:
            self.notify(
                "no comparison yet: it needs two runs, and may still be computing",
                severity="warning",
            )
            return
        # imported here: the dialog's import time, paid when it is first opened
        from judgepool.tui.dialogs.verdicts import VerdictsScreen

        _, note = verdict_contract(self.host.contract)
        self.app.push_screen(VerdictsScreen(self.compared, note))

    def set_status(self, text: Text) -> None:
        """Show ``text`` on the status line (the same text again draws nothing)."""
        if text != self._status:
            self._status = text
            self.query_one(f"#{self.NAME}-status", Static).update(text)

    def show_error(self, error: str, style: str = "bold red") -> None:
        """An error's message on the status line, each line shown literally."""
        self.set_status(message_text(error, style))

    # -- following the contract and the judgments ---------------------------------

    def on_mount(self) -> None:
        self.watch(self.app, "contract", self._contract_changed, init=False)
        self.host.follow_grades(self)
        self._contract_shown = self.host.contract
        self.query_one(ContractBar).show(self.host.contract)
        self.started()

    def started(self) -> None:
        """Start the screen's work, once its widgets are mounted."""

    def recompute(self) -> None:
        """Compute again under the app's contract."""
        self.stale = False
        contract = self.host.contract
        if contract != self._contract_shown:
            # after every grade otherwise: each update draws the screen again
            self._contract_shown = contract
            self.query_one(ContractBar).show(contract)
        self.compute(contract)

    def compute(self, contract: Contract) -> None:
        """Start the computation under ``contract`` (in a worker)."""
        raise NotImplementedError

    def outdated(self) -> bool:
        """Whether what is shown needs recomputing, besides a saved grade."""
        return False

    def resumed(self) -> None:
        """Refresh what is cheap to refresh each time the screen is shown again."""

    def _contract_changed(self, contract: Contract) -> None:
        self.recompute()

    def on_grades_saved(self, _message: GradesSaved) -> None:
        """Judgment events are on disk: recompute now if showing, else when shown."""
        self.stale = True
        self._verdicts_under = None
        if self.is_current:
            self.recompute()

    def on_screen_resume(self) -> None:
        self.resumed()
        if self.stale or self.outdated():
            self.recompute()

    def action_recompute(self) -> None:
        self._verdicts_under = None
        self.recompute()

    def action_edit_contract(self) -> None:
        dialog = ContractDialog(self.host.contract)

        def apply(contract: Contract | None) -> None:
            if contract is not None and dialog.save_as_default:
                self.host.save_default_contract(contract)
            if contract is not None and contract != self.host.contract:
                self.host.contract = contract

        self.app.push_screen(dialog, apply)

    # -- workers -----------------------------------------------------------------

    def stage(self, text: str) -> None:
        """From a worker: say what it is doing now, in a few words ("reading judgments")."""
        post(self, self.Progress(text))

    def on_review_screen_progress(self, message: Progress) -> None:
        self.set_status(Text(literal(message.stage) + "…", style="italic"))
