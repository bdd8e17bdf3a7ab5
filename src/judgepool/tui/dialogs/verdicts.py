"""`VerdictsScreen`: every pair of runs — the paired tests, the bounds and the verdict.

The app's view of ``judgepool compare --workspace``: the workspace's runs on
the queries scored for every run (the common population), under the active
contract (see `judgepool.services.verdicts.verdict_contract`). From top to
bottom:

- per run: mean nDCG@k, its 95 % interval, its bounds under the unjudged
  documents, and the unjudged documents in its top k;
- per pair, two lines (run A over run B, and two figures a column, so that
  every column is whole at 80 columns): the mean difference over wins /
  ties / losses, the bounds of the difference under the unjudged documents
  over the bootstrap interval, the verdict over the holes that stand between
  the pair and a verdict, the adjusted p-values of the paired t-test over the
  sign-flip randomisation test's, and the effect size;
- the highlighted pair in one sentence (`judgepool.core.comparing.verdict_words`);
- the highlighted pair's per-query differences, largest first, beside their
  plot (`PairDifferencePlot`; ``P`` gives it the others' room) and the legend
  (`PAIR_LEGEND`: what each column holds; under 32 lines it gives its room to
  the tables, and ``?`` lists it with the keys); ``enter`` (or ``o``) opens
  the highlighted query's two ranked lists side by side (`SideBySideScreen`),
  where a document can be graded. The plot's sizes are in the app's stylesheet.

In a terminal under 100 columns or 28 lines the dialog takes the whole screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.comparing.query_differences import sorted_differences
from judgepool.core.comparing.verdicts import PairStats
from judgepool.core.team.roles import Reach
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.measures import NDCG, UNJUDGED_AT_K
from judgepool.display import literal
from judgepool.services.verdicts import ComparedRuns
from judgepool.services.workspace_comparison import compare_workspace
from judgepool.tui.background import Refused, post, read
from judgepool.tui.dialogs.screen_keys import SCREEN_KEYS
from judgepool.tui.dialogs.side_by_side import SideBySideScreen
from judgepool.tui.hosts import review_host
from judgepool.tui.messages import GradesSaved
from judgepool.tui.widgets.pair_plot import PairDifferencePlot
from judgepool.tui.widgets.pair_verdicts import (
    PairWords,
    ahead_cell,
    bounds_cell,
    holes_cell,
    tally,
    verdict_cell,
)
from judgepool.tui.widgets.score_format import count, data, fill_table, number, signed

if TYPE_CHECKING:
    from judgepool.tui.readers import ReadConnections

# What each column of the pairs table holds (two figures a column, one over
# the other); shown under the table, and on ? (the help lists it too).
PAIR_LEGEND: tuple[tuple[str, str], ...] = (
    ("run A / run B", "the pair's two runs, one over the other"),
    ("A − B / W/T/L", "the mean difference of nDCG@k; the queries A wins, ties and loses"),
    (
        "bounds / bootstrap",
        "the lowest and highest A − B whatever grades the unjudged documents get (settled "
        "when that range excludes 0); the 95 % bootstrap interval of A − B",
    ),
    (
        "verdict / holes",
        "settled, probable, could flip or tied; the unjudged documents of the two runs' top k",
    ),
    (
        "P(A>B) / effect",
        "the share of draws of the holes' grades (each hole from its prior, independently) "
        "with A ahead: probable at 0.95 or more, or 0.05 or less; A − B over its standard "
        "deviation (Cohen's d_z)",
    ),
    (
        "p t / p rand",
        "the chance of a difference this large if the runs were equal (paired t-test; "
        "sign-flip randomisation), adjusted for the number of pairs",
    ),
    (
        "in words",
        "significant when p rand is below 0.05 and the bootstrap interval lies on the "
        "difference's side of 0",
    ),
)


def legend_text() -> Text:
    """The columns explained, in a paragraph."""
    text = Text(style="dim")
    for index, (column, meaning) in enumerate(PAIR_LEGEND):
        if index:
            text.append("  ")
        text.append(column, style="bold")
        text.append(f": {meaning}.")
    return text


def interval(values: tuple[float, float] | None) -> Text:
    """[low, high] of an interval, 4 decimals."""
    if values is None:
        return Text("-", style="dim", justify="right")
    return Text(f"[{values[0]:.4f}, {values[1]:.4f}]", justify="right")


def p_value(value: float | None) -> Text:
    """A p-value, bold below 0.05."""
    if value is None:
        return Text("-", style="dim", justify="right")
    return Text(f"{value:.4f}", style="bold" if value < 0.05 else "", justify="right")


def stacked(top: Text, bottom: Text) -> Text:
    """Two figures in one cell, one over the other, aligned as the top one."""
    cell = Text("\n").join([top, bottom])
    cell.justify = top.justify
    cell.no_wrap = True
    cell.overflow = "ellipsis"
    return cell


def pair_cells(pair: PairStats) -> list[Text]:
    """One pair's two lines of the pairs table (`PAIR_COLUMNS`): the verdict
    early, so a narrow terminal shows it."""
    return [
        stacked(data(pair.a), data(pair.b)),
        stacked(signed(pair.mean_diff), Text(f"{pair.wins}/{pair.ties}/{pair.losses}")),
        stacked(bounds_cell(pair.diff_bounds), bounds_cell(pair.bootstrap_ci)),
        stacked(verdict_cell(pair.verdict), holes_cell(pair)),
        stacked(ahead_cell(pair), number(pair.effect_size, places=2)),
        stacked(p_value(pair.t_p_adjusted), p_value(pair.randomization_p_adjusted)),
    ]


# The pairs table's headers, two lines each as its cells (see PAIR_LEGEND).
PAIR_COLUMNS = (
    "run A\nrun B",
    "A − B\nW/T/L",
    "bounds\nbootstrap 95 %",
    "verdict\nholes",
    "P(A>B)\neffect",
    "p t\np rand",
)


class VerdictsScreen(ModalScreen[None]):
    """The workspace's runs compared pair by pair, with the verdicts."""

    REACH: ClassVar[Reach] = "review"

    DEFAULT_CLASSES = "dialog"
    # A short or narrow terminal: the dialog takes the whole screen, and under
    # 32 lines the legend gives its lines to the tables (? shows it, in help).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - typed by Textual
    VERTICAL_BREAKPOINTS = [(0, "-short"), (28, "-medium"), (32, "-tall")]  # noqa: RUF012
    DEFAULT_CSS = """
    VerdictsScreen > Vertical {
        width: 96%;
        height: 94%;
    }
    VerdictsScreen.-narrow > Vertical, VerdictsScreen.-short > Vertical {
        width: 100%;
        height: 100%;
    }
    VerdictsScreen #verdicts-heading, VerdictsScreen #verdicts-legend {
        height: auto;
        padding: 0 1;
    }
    VerdictsScreen.-short #verdicts-legend, VerdictsScreen.-medium #verdicts-legend {
        display: none;
    }
    VerdictsScreen #verdicts-runs {
        height: auto;
        max-height: 7;
    }
    VerdictsScreen.-short #verdicts-runs {
        max-height: 5;
    }
    VerdictsScreen #verdicts-pairs {
        height: auto;
        max-height: 10;
    }
    VerdictsScreen.-short #verdicts-pairs {
        max-height: 8;
    }
    VerdictsScreen.-medium #verdicts-pairs {
        max-height: 12;
    }
    VerdictsScreen #verdicts-bottom {
        height: 1fr;
    }
    VerdictsScreen #verdicts-queries {
        width: auto;
        height: 1fr;
    }
    VerdictsScreen #verdicts-legend {
        width: 1fr;
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *SCREEN_KEYS,
        Binding(
            "question_mark",
            "app.help",
            "help",
            key_display="?",
            tooltip="List every key, and what the columns of the pairs hold",
        ),
        Binding("escape", "close", "close", tooltip="Back to the audit or scores screen"),
        Binding(
            "o",
            "open_query",
            "side by side",
            tooltip="The highlighted query's two ranked lists side by side, gradable",
        ),
        Binding("P", "toggle_plot", "plot", tooltip="The pair's plot in the tables' room, or back"),
    ]

    @dataclass
    class Compared(Message, bubble=False):
        """The runs compared again (None: fewer than two runs now), or why not."""

        compared: ComparedRuns | Refused | None

    def __init__(self, compared: ComparedRuns, note: str | None = None) -> None:
        super().__init__()
        self.compared = compared
        self.note = note
        self.pair_index = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-frame"):
            yield Static(id="verdicts-heading")
            yield DataTable[Text](id="verdicts-runs", cursor_type="none", zebra_stripes=True)
            yield DataTable[Text](
                id="verdicts-pairs", cursor_type="row", zebra_stripes=True, header_height=2
            )
            yield PairWords(id="verdicts-words")
            # the highlighted pair's queries (two narrow columns) beside the legend
            with Horizontal(id="verdicts-bottom"):
                yield DataTable[Text](id="verdicts-queries", cursor_type="row", zebra_stripes=True)
                yield PairDifferencePlot(id="verdicts-plot")
                yield Static(legend_text(), id="verdicts-legend")
            yield Footer()

    def on_mount(self) -> None:
        review_host(self.app).follow_grades(self)
        self._fill()
        self.query_one("#verdicts-pairs", DataTable).focus()

    def on_grades_saved(self, _message: GradesSaved) -> None:
        """A grade is on disk (given in the side-by-side view, say): compare again."""
        self._compare(review_host(self.app).readers, self.compared.report.contract)

    @work(thread=True, exclusive=True, group="verdicts")
    def _compare(self, readers: ReadConnections, contract: Contract) -> None:
        post(self, self.Compared(read(readers, lambda ws: compare_workspace(ws, contract))))

    def on_verdicts_screen_compared(self, message: Compared) -> None:
        compared = message.compared
        if isinstance(compared, Refused):
            self.notify(literal(compared.reason), severity="error", markup=False)
        elif compared is not None:
            self.compared = compared
            self._fill()

    def _fill(self) -> None:
        report = self.compared.report
        k = report.contract.k
        heading = Text("Runs compared pair by pair", style="bold")
        heading.append(
            f"   {len(report.population)} common queries"
            f" ({len(report.left_out)} left out)   correction {report.correction}"
            f"   {report.permutations} permutations, seed {report.seed}"
            f"   fingerprint {self.compared.fingerprint[:12]}\n",
            style="dim",
        )
        heading.append_text(tally(self.compared))
        if self.note:
            heading.append("\n" + self.note, style="italic yellow")
        if report.bounds_note:
            heading.append("\n" + report.bounds_note, style="italic")
        self.query_one("#verdicts-heading", Static).update(heading)
        runs: DataTable[Text] = self.query_one("#verdicts-runs", DataTable)
        fill_table(
            runs,
            [
                (key, Text(label, style="bold"))
                for key, label in (
                    ("run", "run"),
                    ("ndcg", NDCG.label(k)),
                    ("ci", "95 % interval"),
                    ("bounds", "bounds under the holes"),
                    ("unjudged", UNJUDGED_AT_K.label(k)),
                )
            ],
            [
                (
                    run.run,
                    [
                        data(run.run),
                        number(run.ndcg, style="bold"),
                        interval(run.ci),
                        interval(run.bounds),
                        count(run.unjudged_at_k),
                    ],
                )
                for run in report.runs
            ],
        )
        pairs: DataTable[Text] = self.query_one("#verdicts-pairs", DataTable)
        fill_table(
            pairs,
            [(f"c{index}", Text(label, style="bold")) for index, label in enumerate(PAIR_COLUMNS)],
            [(str(i), pair_cells(pair)) for i, pair in enumerate(report.pairs)],
            height=2,
        )
        pairs.move_cursor(row=self.pair_index)
        self._show_pair(self.pair_index)

    @on(DataTable.RowHighlighted, "#verdicts-pairs")
    def _pair_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_pair(event.cursor_row)

    def _show_pair(self, index: int) -> None:
        report = self.compared.report
        if not 0 <= index < len(report.pairs):
            return
        self.pair_index = index
        pair = report.pairs[index]
        self.query_one(PairWords).show(pair)
        diffs = report.per_query_diffs.get((pair.a, pair.b), ())
        rows = sorted(zip(report.population, diffs, strict=True), key=lambda row: -row[1])
        table: DataTable[Text] = self.query_one("#verdicts-queries", DataTable)
        keep = self.current_query
        fill_table(
            table,
            [
                ("query", Text("query", style="bold")),
                ("diff", Text(f"A − B ({literal(pair.a)} − {literal(pair.b)})", style="bold")),
            ],
            [(query, [data(query), signed(diff)]) for query, diff in rows],
        )
        order = [query for query, _ in rows]
        if keep in order:
            table.move_cursor(row=order.index(keep))
        bounds = report.per_query_bounds.get((pair.a, pair.b))
        plotted = sorted_differences(report.population, diffs, bounds)
        self.query_one(PairDifferencePlot).show(pair.a, pair.b, plotted)

    def action_toggle_plot(self) -> None:
        self.toggle_class("-plotted")

    @on(DataTable.RowSelected, "#verdicts-queries")
    def _query_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_query()

    @on(DataTable.RowSelected, "#verdicts-pairs")
    def _pair_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.query_one("#verdicts-queries", DataTable).focus()

    @property
    def current_query(self) -> str | None:
        table: DataTable[Text] = self.query_one("#verdicts-queries", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key is None else str(key)

    def action_open_query(self) -> None:
        query_id = self.current_query
        if query_id is None:
            self.notify("no common query to open", severity="warning")
            return
        pair = self.compared.report.pairs[self.pair_index]
        self.app.push_screen(
            SideBySideScreen(pair.a, pair.b, query_id, self.compared.report.contract)
        )

    def action_close(self) -> None:
        self.dismiss(None)
