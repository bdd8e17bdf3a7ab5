"""`ScoresScreen`: the review job — every run's score, per query, under the active contract.

From top to bottom: the active contract (always visible), one summary row per
run (macro mean nDCG@k, pooled ratio, candidate-only mean, judged@k and every
count, as ``judgepool score --workspace`` prints them), then the highlighted
run's per-query table beside a box plot of every run's per-query nDCG (the
highlighted run in its own colour), and a status line.

Bindings (also in the footer):

- ``o`` sort the per-query table by the next column, ``r`` reverse the order
  (or click a column header);
- ``enter`` / ``d`` drill into the highlighted query: its ranked list with
  grades beside the ideal list;
- ``v`` compare the highlighted run with another, query by query;
- ``p`` every pair of runs: tests, bounds and verdicts (the pairs' verdicts
  are also in the table under the runs), and a query's two lists side by side;
- ``P`` the box plot in the per-query table's place (and back): under 100
  columns, where it gives way to the table, the only way it shows;
- ``c`` change the contract (everything recomputes);
- ``f5`` score again from scratch (judgments and runs read again);
- ``S`` store the scores shown as evaluations, as ``judgepool score
  --workspace`` does, once per contract, judgments and run
  (`judgepool.services.app_evaluations`); nothing is stored unasked;
- when ``unjudged=reject`` refuses runs (they have holes: every run of a new
  workspace), a line under the runs says so with the ways out: ``h`` sends
  the refused runs' holes to grading, ``z`` and ``x`` score this session
  under ``unjudged=zero`` or ``condense`` (`judgepool.tui.refusals`).

Scoring runs in a thread worker (group ``scores``; one at a time, a request
meanwhile taken up after it: cancelling showed nothing while two annotators
graded) asking the app's `judgepool.services.live.LiveScores` (scored
ahead for a lead: `judgepool.tui.scores_ahead`) for the board: every run
scored, then only the queries grades touched, with the numbers of
`judgepool.services.review.score_workspace_runs`. The pairs'
verdicts follow the board (`Scored`), on its judgments. The screen
recomputes when the app's ``contract`` changes and after a grade is saved (at
once when showing, else when shown again). The layout, the contract and the
recomputing are `ReviewScreen`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Static

from judgepool.core.auditing.drilldown import Drilldown
from judgepool.core.auditing.ndcg_spread import NdcgSpread
from judgepool.core.terms.contract import Contract
from judgepool.display import literal
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.live import LiveScores
from judgepool.services.model_labels import query_model_grades
from judgepool.services.review import Scoreboard, drill_down
from judgepool.tui.background import Refused, post, read
from judgepool.tui.dialogs.comparison import ComparisonScreen
from judgepool.tui.dialogs.drilldown import DrilldownScreen
from judgepool.tui.refusals import app_refusal, refused_runs_line, unjudged_refusals
from judgepool.tui.screens.review import ReviewScreen
from judgepool.tui.widgets.ndcg_plot import NdcgBoxPlot
from judgepool.tui.widgets.score_runs import RunSummaryTable
from judgepool.tui.widgets.score_table import PerQueryTable

if TYPE_CHECKING:
    from judgepool.services.workspace import Workspace
    from judgepool.tui.readers import ReadConnections


class ScoresScreen(ReviewScreen):
    """Every run's summary and per-query scores under the active contract."""

    NAME = "scores"
    HEADING = "Scores"

    DEFAULT_CSS = """
    ScoresScreen #scores-body {
        height: 1fr;
    }
    ScoresScreen #scores-status {
        max-height: 4;
    }
    ScoresScreen #scores-plot {
        width: 40;
        height: 1fr;
        min-height: 8;
    }
    ScoresScreen #scores-refused {
        height: 1;
        padding: 0 1;
        display: none;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "cycle_sort", "sort", tooltip="Sort the per-query table by the next column"),
        Binding("r", "reverse_sort", "reverse", tooltip="Reverse the per-query table's order"),
        Binding(
            "d",
            "drill_down",
            "drill",
            tooltip="The highlighted query's ranked list with grades, beside the ideal list",
        ),
        Binding("v", "compare", "compare", tooltip="Compare two runs query by query"),
        Binding(
            "P",
            "toggle_plot",
            "plot",
            # on ? (help): at 80 columns the footer has no room left for it
            show=False,
            tooltip="Every run's per-query nDCG as box plots, in the per-query table's "
            "place (P again: back)",
        ),
        Binding(
            "c", "edit_contract", "contract", tooltip="Change the contract; everything recomputes"
        ),
        # R too: a browser (judgepool serve) takes F5 to reload the page
        Binding("f5,R", "recompute", "rescore", tooltip="Score every run again"),
        Binding(
            "S",
            "store_scores",
            "store",
            show=False,
            tooltip="Store the scores shown as evaluations, as judgepool score --workspace "
            "does, once per contract, judgments and run (live scores are never stored unasked)",
        ),
        # the ways out of a refusal for holes, named on the line that reports it
        Binding(
            "h",
            "grade_holes",
            "grade holes",
            show=False,
            tooltip="Send the holes of the runs unjudged=reject refused to grading (the "
            "highlighted run's first); after each grade the next comes",
        ),
        Binding(
            "z",
            "unjudged('zero')",
            "unjudged zero",
            show=False,
            tooltip="Score with unjudged=zero for this session (audit too): holes at gain 0, "
            "as trec_eval; c changes it, and saves a default with ctrl+o",
        ),
        Binding(
            "x",
            "unjudged('condense')",
            "unjudged condense",
            show=False,
            tooltip="Score with unjudged=condense for this session (audit too): holes removed, "
            "as trec_eval -J; c changes it, and saves a default with ctrl+o",
        ),
    ]

    @dataclass
    class Scored(Message, bubble=False):
        """Every run scored under ``contract`` against ``judged``, or why they were not."""

        contract: Contract
        board: Scoreboard | Refused
        judged: JudgmentsSource | None = None

    @dataclass
    class DrilledDown(Message, bubble=False):
        """One query of one run drilled into with the models' labels of its
        documents, or why it was not."""

        drilldown: tuple[Drilldown, dict[str, list[tuple[str, int]]]] | Refused

    def __init__(self) -> None:
        super().__init__()
        self.board: Scoreboard | None = None
        # the board's runs in five numbers each, for the box plot (once a board)
        self.spreads: tuple[NdcgSpread, ...] = ()
        self.scoring = False  # a worker is scoring; another board is wanted once it is done
        self.score_again = False

    def compose_body(self) -> ComposeResult:
        yield RunSummaryTable(id="scores-runs")
        yield Static(id="scores-refused")
        yield from self.compose_verdicts()
        with Horizontal(id="scores-body"):
            yield PerQueryTable(id="scores-queries")
            yield NdcgBoxPlot(id="scores-plot")

    def started(self) -> None:
        self.query_one(NdcgBoxPlot).clear()
        self.recompute()

    # -- scoring -----------------------------------------------------------------

    def compute(self, contract: Contract) -> None:
        """Score every run under ``contract``, in a worker, one at a time (see
        the module); the pairs' verdicts follow the board."""
        if self.scoring:
            self.score_again = True
            return
        if self.board is None or self.board.contract != contract:
            self.set_status(Text("scoring…", style="italic"))
        self.scoring = True
        self._score(self.host.readers, contract)

    @work(thread=True, exclusive=True, group="scores")
    def _score(self, readers: ReadConnections, contract: Contract) -> None:
        live = self.host.live_scores  # the app's: kept between boards, maybe scored ahead
        scored = read(readers, lambda ws: live.board(ws, contract, on_progress=self.stage))
        board, judged = (scored, None) if isinstance(scored, Refused) else scored
        post(self, self.Scored(contract, board, judged))

    def on_scores_screen_scored(self, message: Scored) -> None:
        self.scoring = False
        if isinstance(message.board, Refused):
            if message.contract == self.host.contract:
                self.show_error(message.board.reason)
        elif message.board.contract == self.host.contract:
            self._scored(message.board)
            # on the board's judgments, once drawn: comparing takes seconds of the interpreter
            self.call_after_refresh(self.compute_verdicts, message.board.contract, message.judged)
        if self.score_again:
            self.score_again = False
            self.recompute()

    def outdated(self) -> bool:
        return self.board is not None and self.board.contract != self.host.contract

    def _scored(self, board: Scoreboard) -> None:
        if board.contract != self.host.contract:
            return  # a newer contract is being scored
        before, self.board = self.board, board
        spreads, self.spreads = self.spreads, board.spreads()
        # A board follows every grade: what it leaves as it was is not filled
        # again (a table filled anew draws every visible cell afresh).
        kept = before if before is not None and before.contract == board.contract else None
        runs = self.query_one(RunSummaryTable)
        if kept is None or kept.summaries() != board.summaries():
            runs.show(board, keep=runs.current_run)
        refused = self.query_one("#scores-refused", Static)
        line = refused_runs_line(board)
        refused.display = line is not None
        refused.update(line or "")
        title = Text("Scores", style="bold")
        title.append(
            f"   judgments: {board.provenance.line()}, on {board.judged_queries} queries"
            f" (qrels digest {board.qrels_digest[:12]})",
            style="",
        )
        left_out = board.provenance.left_out_line()
        if left_out is not None:
            # a model's labels are evidence here, never judgments: say so
            title.append(f"\n   {left_out}", style="dim")
        self.query_one("#scores-title", Static).update(title)
        name = runs.current_run
        same = kept is not None and kept.evaluation_of(name) == board.evaluation_of(name)
        self._show_run(name, table_too=not (same and spreads == self.spreads))

    @on(DataTable.RowHighlighted, "#scores-runs")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_run(None if event.row_key.value is None else str(event.row_key.value))

    def _show_run(self, name: str | None, *, table_too: bool = True) -> None:
        """Show run ``name``: its queries and the plot (when ``table_too``), its status."""
        table = self.query_one(PerQueryTable)
        plot = self.query_one(NdcgBoxPlot)
        board = self.board
        if board is None or name is None or name not in board.names:
            table.show(None)
            plot.clear()
            self.set_status(Text("no runs in the workspace" if board else "", style="dim"))
            return
        score = board.run(name)
        scored = score.scored
        if table_too:
            plot.show(self.spreads, board.contract.k, name)
        if scored is None:
            table.show(None)
            refusal = app_refusal(score.error) if score.error else score.refusal
            self.show_error(refusal or "refused", "red")
            return
        evaluation = scored.evaluation
        if table_too:
            table.show(evaluation)
        status = Text()
        status.append("run ", style="dim")
        status.append(literal(name), style="bold")
        status.append(
            f"   engine {scored.engine}   fingerprint {scored.fingerprint[:12]}"
            "   candidate-only is a diagnostic, never end-to-end quality",
            style="dim",
        )
        self.set_status(status)

    # -- actions -----------------------------------------------------------------

    def action_grade_holes(self) -> None:
        """The holes of the runs refused for them, to grading: the highlighted
        run's first, then the others' (each hole once, a disagreement left out
        by the consensus rule not: grading cannot settle it)."""
        refused = unjudged_refusals(self.board) if self.board is not None else []
        current = self.query_one(RunSummaryTable).current_run
        refused.sort(key=lambda item: item[0] != current)
        holes = dict.fromkeys(
            (entry.query_id, entry.doc_id)
            for _, error in refused
            for entry in error.entries
            if (entry.query_id, entry.doc_id) not in error.left_out
        )
        if not holes:
            self.notify(
                "no run is refused for holes that grading can fill; the audit (a) lists "
                "every run's holes",
                severity="warning",
            )
            return
        self.host.queue_holes(list(holes))

    def action_unjudged(self, policy: str) -> None:
        """Score this session under ``unjudged=policy`` (the audit follows: the
        app has one contract); the workspace's default is not changed."""
        contract = self.host.contract
        if contract.unjudged == policy:
            self.notify(f"the contract already has unjudged={policy}")
            return
        self.host.contract = contract.with_changes(unjudged=policy)
        self.notify(
            f"unjudged={policy} for this session; c changes the contract (ctrl+o there "
            "saves it as the workspace's default)"
        )

    def action_recompute(self) -> None:
        # from scratch: the way out should the kept scores ever be in doubt
        self.host.live_scores = LiveScores()
        super().action_recompute()

    def action_store_scores(self) -> None:
        """Store the board shown as evaluations (the app stores none unasked)."""
        if self.board is None or not any(score.scored for score in self.board.runs):
            self.notify("no scores to store yet", severity="warning")
            return
        self.host.store_scores(self.board)

    def action_toggle_plot(self) -> None:
        self.toggle_class("-plotted")

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
        self._drill_down(self.host.readers, run, query, self.board.contract)

    @work(thread=True, exclusive=True, group="scores-drill")
    def _drill_down(
        self, readers: ReadConnections, run: str, query: str, contract: Contract
    ) -> None:
        def drilled(ws: Workspace) -> tuple[Drilldown, dict[str, list[tuple[str, int]]]]:
            return drill_down(ws, run, query, contract), query_model_grades(ws, query)

        post(self, self.DrilledDown(read(readers, drilled)))

    def on_scores_screen_drilled_down(self, message: DrilledDown) -> None:
        if isinstance(message.drilldown, Refused):
            self.notify(message.drilldown.reason, severity="error", markup=False)
            return
        drilldown, models = message.drilldown
        self.app.push_screen(DrilldownScreen(drilldown, models))

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
