"""`ComparisonScreen`: two runs query by query, with wins, ties and losses.

Run A and run B are two scored runs of the same scoreboard (one judged
universe, one contract). Each row is a query with both nDCG values and the
difference A − B, largest first; the heading counts A's wins, ties and losses
(and the queries that have no value in one of the runs) and gives the mean
difference. ``]``/``[`` choose another run B, ``x`` swaps A and B.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.comparing.comparison import Comparison, compare_runs
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.team.roles import Reach
from judgepool.core.terms.measures import NDCG
from judgepool.display import literal
from judgepool.tui.widgets.score_format import data, fill_table, number, signed

OUTCOME_STYLE = {"win": "green", "loss": "red", "tie": "", "n/a": "dim"}


def comparison_heading(comparison: Comparison, k: int) -> Text:
    """The two runs and the tally, as text (run names shown literally)."""
    text = Text()
    text.append("A ", style="dim")
    text.append(literal(comparison.run_a), style="bold")
    text.append("  vs  B ", style="dim")
    text.append(literal(comparison.run_b), style="bold")
    text.append(f"   {NDCG.label(k)} per query\n")
    text.append("A wins ", style="dim")
    text.append(str(comparison.wins), style="bold green")
    text.append("  ties ", style="dim")
    text.append(str(comparison.ties), style="bold")
    text.append("  losses ", style="dim")
    text.append(str(comparison.losses), style="bold red")
    text.append("  no value ", style="dim")
    text.append(str(comparison.incomparable))
    text.append("  mean A−B ", style="dim")
    mean = comparison.mean_difference
    text.append("-" if mean is None else f"{mean:+.4f}", style="bold")
    if not comparison.same_universe:
        text.append("\nthe runs were scored against different judgments", style="bold red")
    if not comparison.same_contract:
        text.append("\nthe runs were scored under different contracts", style="bold red")
    return text


class ComparisonScreen(ModalScreen[None]):
    """Two scored runs compared query by query."""

    REACH: ClassVar[Reach] = "review"

    DEFAULT_CLASSES = "dialog"
    DEFAULT_CSS = """
    ComparisonScreen > Vertical {
        width: 90%;
        height: 90%;
    }
    ComparisonScreen #compare-heading {
        height: auto;
        padding: 0 1;
    }
    ComparisonScreen DataTable {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", tooltip="Back to the scores"),
        Binding("right_square_bracket", "next_b", "next B", key_display="]"),
        Binding("left_square_bracket", "previous_b", "previous B", key_display="["),
        Binding("x", "swap", "swap A/B", tooltip="Swap runs A and B"),
    ]

    def __init__(self, runs: Sequence[ScoredRun], a: int = 0, b: int = 1) -> None:
        if len(runs) < 2:
            raise ValueError("a comparison needs two scored runs")
        super().__init__()
        self.runs = tuple(runs)
        self.a = a % len(self.runs)
        self.b = b % len(self.runs)
        if self.a == self.b:
            self.b = (self.a + 1) % len(self.runs)
        self.comparison = compare_runs(self.runs[self.a], self.runs[self.b])

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-frame"):
            yield Static(id="compare-heading")
            yield DataTable[Text](id="compare-table", cursor_type="row", zebra_stripes=True)
            yield Footer()

    def on_mount(self) -> None:
        self._show()
        self.query_one("#compare-table", DataTable).focus()

    def _show(self) -> None:
        a, b = self.runs[self.a], self.runs[self.b]
        self.comparison = compare_runs(a, b)
        k = a.contract.k
        self.query_one("#compare-heading", Static).update(comparison_heading(self.comparison, k))
        table: DataTable[Text] = self.query_one("#compare-table", DataTable)
        columns = [
            (key, Text(label, style="bold"))
            for key, label in (
                ("query", "query"),
                ("a", f"A {NDCG.label(k)}"),
                ("b", f"B {NDCG.label(k)}"),
                ("difference", "A − B"),
                ("outcome", "A"),
            )
        ]
        rows = [
            (
                row.query_id,
                [
                    data(row.query_id),
                    number(row.a),
                    number(row.b),
                    signed(row.difference),
                    Text(row.outcome, style=OUTCOME_STYLE[row.outcome]),
                ],
            )
            for row in self.comparison.rows
        ]
        fill_table(table, columns, rows)

    def _step_b(self, step: int) -> None:
        count = len(self.runs)
        candidate = (self.b + step) % count
        if candidate == self.a:
            candidate = (candidate + step) % count
        self.b = candidate
        self._show()

    def action_next_b(self) -> None:
        self._step_b(1)

    def action_previous_b(self) -> None:
        self._step_b(-1)

    def action_swap(self) -> None:
        self.a, self.b = self.b, self.a
        self._show()

    def action_close(self) -> None:
        self.dismiss(None)
