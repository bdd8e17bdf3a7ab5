"""`ScoresScreen`: the review job — every run's score, per query, under the active contract.

From top to bottom: the active contract (always visible), one summary row per
run (macro mean nDCG@k, pooled ratio, candidate-only mean, judged@k and every
count, as ``judgepool score --workspace`` prints them), then the highlighted
run's per-query table beside a histogram of its per-query nDCG, and a status
line.

Bindings (also in the footer):

- ``o`` sort the per-query table by the next column, ``r`` reverse the order
  (or click a column header);
- ``enter`` / ``d`` drill into the highlighted query: its ranked list with
  grades beside the ideal list;
- ``v`` compare the highlighted run with another, query by query;
- ``c`` change the contract (everything recomputes);
- ``f5`` recompute now.

Scoring runs in a thread worker (group ``scores``, exclusive: a newer
request cancels an older one) that borrows a read connection to the
workspace (`judgepool.tui.readers`), calls
`judgepool.services.review.score_workspace_runs` and posts the result as a
message; the screen recomputes when the app's ``contract`` changes and after
a `GradeSaved` (at once when it is showing, else when it is shown again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from judgepool.core.contract import Contract
from judgepool.core.drilldown import Drilldown
from judgepool.core.errors import JudgepoolError
from judgepool.display import literal
from judgepool.services.review import Scoreboard, drill_down, score_workspace_runs
from judgepool.tui.messages import GradeSaved
from judgepool.tui.readers import ReadConnections
from judgepool.tui.widgets.score_compare import ComparisonScreen
from judgepool.tui.widgets.score_contract import ContractBar, ContractDialog
from judgepool.tui.widgets.score_drilldown import DrilldownScreen
from judgepool.tui.widgets.score_format import message as message_text
from judgepool.tui.widgets.score_histogram import NdcgHistogram
from judgepool.tui.widgets.score_host import host
from judgepool.tui.widgets.score_runs import RunSummaryTable
from judgepool.tui.widgets.score_table import PerQueryTable


class ScoresScreen(Screen[None]):
    """Every run's summary and per-query scores under the active contract."""

    DEFAULT_CSS = """
    ScoresScreen #scores-title {
        height: 1;
        padding: 0 1;
        background: $primary-darken-2;
        text-style: bold;
    }
    ScoresScreen #scores-body {
        height: 1fr;
    }
    ScoresScreen #scores-status {
        height: auto;
        max-height: 4;
        padding: 0 1;
        color: $text-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "cycle_sort", "sort", tooltip="Sort the per-query table by the next column"),
        Binding("r", "reverse_sort", "reverse", tooltip="Reverse the per-query table's order"),
        Binding(
            "d",
            "drill_down",
            "drill down",
            tooltip="The highlighted query's ranked list with grades, beside the ideal list",
        ),
        Binding("v", "compare", "compare", tooltip="Compare two runs query by query"),
        Binding(
            "c", "edit_contract", "contract", tooltip="Change the contract; everything recomputes"
        ),
        Binding("f5", "recompute", "recompute", tooltip="Score every run again"),
    ]

    @dataclass
    class Scored(Message):
        """Every run scored under ``board.contract``."""

        board: Scoreboard

    @dataclass
    class Failed(Message):
        """Scoring could not run at all (e.g. the workspace cannot be read)."""

        contract: Contract
        error: str

    @dataclass
    class Progress(Message):
        """What the scoring worker is doing; each replaces the one before."""

        stage: str

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ScoresScreen.Progress)

    @dataclass
    class DrilledDown(Message):
        drilldown: Drilldown

    def __init__(self) -> None:
        super().__init__()
        self.board: Scoreboard | None = None
        # a GradeSaved arrived since the last computation
        self._stale = False
        self._error: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Scores"), id="scores-title")
        yield ContractBar(id="scores-contract")
        yield RunSummaryTable(id="scores-runs")
        with Horizontal(id="scores-body"):
            yield PerQueryTable(id="scores-queries")
            yield NdcgHistogram(id="scores-histogram")
        yield Static(id="scores-status")
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.app, "contract", self._contract_changed, init=False)
        self.query_one(ContractBar).show(host(self.app).contract)
        self.query_one(NdcgHistogram).clear()
        self.recompute()

    # -- recomputing -------------------------------------------------------------

    def recompute(self) -> None:
        """Score every run again under the app's contract, in a worker."""
        self._stale = False
        contract = host(self.app).contract
        self.query_one(ContractBar).show(contract)
        self._set_status(Text("scoring…", style="italic"))
        self._score(host(self.app).readers, contract)

    @work(thread=True, exclusive=True, group="scores")
    def _score(self, readers: ReadConnections, contract: Contract) -> None:
        worker = get_current_worker()

        def progress(stage: str) -> None:
            if not worker.is_cancelled:
                self.post_message(self.Progress(stage))

        try:
            with readers.lease() as ws:
                board = score_workspace_runs(ws, contract, on_progress=progress)
        except JudgepoolError as exc:
            if not worker.is_cancelled:
                self.post_message(self.Failed(contract, str(exc)))
            return
        if not worker.is_cancelled:
            self.post_message(self.Scored(board))

    def _contract_changed(self, contract: Contract) -> None:
        self.recompute()

    def on_grade_saved(self, message: GradeSaved) -> None:
        self._stale = True
        if self.is_current:
            self.recompute()

    def on_screen_resume(self) -> None:
        changed = self.board is not None and self.board.contract != host(self.app).contract
        if self._stale or changed:
            self.recompute()

    def action_recompute(self) -> None:
        self.recompute()

    # -- results -----------------------------------------------------------------

    def on_scores_screen_progress(self, message: Progress) -> None:
        self._set_status(Text(literal(message.stage) + "…", style="italic"))

    def on_scores_screen_failed(self, message: Failed) -> None:
        if message.contract != host(self.app).contract:
            return
        self._error = message.error
        self._set_status(message_text(message.error, "bold red"))

    def on_scores_screen_scored(self, message: Scored) -> None:
        board = message.board
        if board.contract != host(self.app).contract:
            return  # a newer contract is being scored
        self.board = board
        self._error = None
        runs = self.query_one(RunSummaryTable)
        keep = runs.current_run
        runs.show(board, keep=keep)
        title = Text("Scores", style="bold")
        title.append(
            f"   judgments: {board.judgments} grades on {board.judged_queries} queries"
            f" (qrels digest {board.qrels_digest[:12]})",
            style="",
        )
        self.query_one("#scores-title", Static).update(title)
        self._show_run(runs.current_run)

    @on(DataTable.RowHighlighted, "#scores-runs")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_run(None if event.row_key.value is None else str(event.row_key.value))

    def _show_run(self, name: str | None) -> None:
        table = self.query_one(PerQueryTable)
        histogram = self.query_one(NdcgHistogram)
        board = self.board
        if board is None or name is None or name not in board.names:
            table.show(None)
            histogram.clear()
            self._set_status(Text("no runs in the workspace" if board else "", style="dim"))
            return
        score = board.run(name)
        scored = score.scored
        if scored is None:
            table.show(None)
            histogram.clear()
            self._set_status(message_text(score.refusal or "refused", "red"))
            return
        evaluation = scored.evaluation
        table.show(evaluation)
        histogram.show([r.ndcg for r in evaluation.per_query], board.contract.k, name)
        status = Text()
        status.append("run ", style="dim")
        status.append(literal(name), style="bold")
        status.append(
            f"   engine {scored.engine}   fingerprint {scored.fingerprint[:12]}"
            "   candidate-only is a diagnostic, never end-to-end quality",
            style="dim",
        )
        self._set_status(status)

    def _set_status(self, text: Text) -> None:
        self.query_one("#scores-status", Static).update(text)

    # -- actions -----------------------------------------------------------------

    def action_cycle_sort(self) -> None:
        self.query_one(PerQueryTable).cycle_sort()

    def action_reverse_sort(self) -> None:
        self.query_one(PerQueryTable).reverse_sort()

    @on(DataTable.RowSelected, "#scores-queries")
    def _query_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_drill_down()

    @on(DataTable.RowSelected, "#scores-runs")
    def _run_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.query_one(PerQueryTable).focus()

    def action_drill_down(self) -> None:
        run = self.query_one(RunSummaryTable).current_run
        query = self.query_one(PerQueryTable).current_query
        if self.board is None or run is None or query is None:
            self.notify("highlight a run and one of its queries first", severity="warning")
            return
        self._drill(host(self.app).readers, run, query, self.board.contract)

    @work(thread=True, exclusive=True, group="scores-drill")
    def _drill(self, readers: ReadConnections, run: str, query: str, contract: Contract) -> None:
        worker = get_current_worker()
        try:
            with readers.lease() as ws:
                result = drill_down(ws, run, query, contract)
        except JudgepoolError as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self.notify, str(exc), severity="error", markup=False)
            return
        if not worker.is_cancelled:
            self.post_message(self.DrilledDown(result))

    def on_scores_screen_drilled_down(self, message: DrilledDown) -> None:
        self.app.push_screen(DrilldownScreen(message.drilldown))

    def action_compare(self) -> None:
        if self.board is None:
            return
        scored = [s.scored for s in self.board.runs if s.scored is not None]
        if len(scored) < 2:
            self.notify("a comparison needs two runs the contract scores", severity="warning")
            return
        current = self.query_one(RunSummaryTable).current_run
        names = [s.run for s in scored]
        a = names.index(current) if current in names else 0
        self.app.push_screen(ComparisonScreen(scored, a, a + 1))

    def action_edit_contract(self) -> None:
        def apply(contract: Contract | None) -> None:
            if contract is not None and contract != host(self.app).contract:
                host(self.app).contract = contract

        self.app.push_screen(ContractDialog(host(self.app).contract), apply)
