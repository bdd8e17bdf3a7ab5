"""`DrilldownScreen`: one query of one run, its ranked list beside the ideal list.

The left table is the list the measures see (after ties, duplicates and the
unjudged policy), with each document's grade, gain and its contribution
(gain × discount inside the top k); the right table is the ideal ordering of
the contract's universe. Above them, the query's record: nDCG, DCG, IDCG,
candidate-only nDCG, judged@k, and the tie and unjudged ranges where they
apply. Rows beyond k are dimmed. Escape closes it.

The screen shows a `Drilldown` computed by the caller's worker; it reads
nothing itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.auditing.drilldown import Drilldown, RankedRow
from judgepool.core.team.roles import Reach
from judgepool.core.terms.measures import (
    CANDIDATE_NDCG,
    DCG,
    IDCG,
    JUDGED_AT_K,
    NDCG,
    RETURNED,
    UNJUDGED_AT_K,
    ZERO_IDCG,
)
from judgepool.display import literal, shown_id
from judgepool.tui.widgets.score_contract import contract_text
from judgepool.tui.widgets.score_format import data, fill_table, grade, number
from judgepool.tui.widgets.side_by_side import model_cell


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def record_text(drilldown: Drilldown) -> Text:
    """The query's heading and record, as text (IDs shown literally)."""
    result = drilldown.result
    k = drilldown.contract.k
    text = Text()
    text.append("query ", style="dim")
    text.append(shown_id(drilldown.query_id), style="bold")
    text.append("   run ", style="dim")
    text.append(literal(drilldown.run), style="bold")
    text.append("\n")
    # the cutoff named where the record's line has room for it
    values = [
        (NDCG.label(k), NDCG),
        (DCG.name, DCG),
        (IDCG.name, IDCG),
        (CANDIDATE_NDCG.name, CANDIDATE_NDCG),
        (JUDGED_AT_K.label(k), JUDGED_AT_K),
        (UNJUDGED_AT_K.label(k), UNJUDGED_AT_K),
        (RETURNED.name, RETURNED),
    ]
    for index, (name, measure) in enumerate(values):
        if index:
            text.append("  ")
        text.append(f"{name} ", style="dim")
        text.append(measure.shown(getattr(result, measure.field)), style="bold cyan")
    flags = []
    if result.zero_idcg:
        flags.append(ZERO_IDCG.name)
    if result.missing:
        flags.append("missing from the run")
    if result.excluded:
        flags.append("excluded from the mean")
    if result.ndcg_tie_min is not None and result.ndcg_tie_min != result.ndcg_tie_max:
        flags.append(f"ties: nDCG {_fmt(result.ndcg_tie_min)}–{_fmt(result.ndcg_tie_max)}")
    if result.ndcg_if_unjudged_irrelevant is not None:
        flags.append(
            f"if unjudged were irrelevant {_fmt(result.ndcg_if_unjudged_irrelevant)}, "
            f"at best {_fmt(result.ndcg_if_unjudged_max)}"
        )
    if drilldown.removed:
        flags.append(f"{len(drilldown.removed)} unjudged removed (condense)")
    if drilldown.duplicates:
        extra = sum(n for _, n in drilldown.duplicates)
        flags.append(f"{extra} duplicate line(s) dropped")
    if flags:
        text.append("\n")
        text.append("  ·  ".join(flags), style="yellow")
    return text


def fill_list(
    table: DataTable[Text],
    rows: tuple[RankedRow, ...],
    k: int,
    models: Mapping[str, Sequence[tuple[str, int]]] | None = None,
) -> None:
    """Fill a ranked or ideal list table: position, document, grade, gain,
    contribution, and, when a model labelled any document of the query, the
    models' labels (said to be a model's: the grade column may hold one, as the
    consensus rule took it)."""
    columns = [
        (key, Text(label, style="bold"))
        for key, label in (
            ("position", "#"),
            ("doc", "document"),
            ("grade", "grade"),
            ("gain", "gain"),
            ("contribution", "gain×disc."),
            *((("model", "model's label"),) if models else ()),
        )
    ]
    cells = []
    for row in rows:
        dim = "dim" if row.position > k else ""
        cells.append(
            (
                str(row.position),
                [
                    Text(str(row.position), style=dim, justify="right"),
                    data(row.doc_id, dim),
                    grade(row.grade),
                    number(row.gain, 2, style=dim),
                    number(row.contribution, style=dim),
                    *([model_cell(models.get(row.doc_id, ()))] if models else []),
                ],
            )
        )
    fill_table(table, columns, cells)


class DrilldownScreen(ModalScreen[None]):
    """One query's ranked list with grades, beside the ideal list."""

    REACH: ClassVar[Reach] = "review"

    DEFAULT_CLASSES = "dialog"
    DEFAULT_CSS = """
    DrilldownScreen > Vertical {
        width: 96%;
        height: 92%;
    }
    DrilldownScreen #drill-record {
        height: auto;
        padding: 0 1;
    }
    DrilldownScreen Horizontal {
        height: 1fr;
    }
    DrilldownScreen Horizontal > Vertical {
        width: 1fr;
    }
    DrilldownScreen .list-title {
        height: 1;
        padding: 0 1;
        text-style: bold;
        background: $boost;
    }
    DrilldownScreen DataTable {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", tooltip="Back to the scores"),
    ]

    def __init__(
        self, drilldown: Drilldown, models: Mapping[str, Sequence[tuple[str, int]]] | None = None
    ) -> None:
        super().__init__()
        self.drilldown = drilldown
        self.models = models or {}

    def compose(self) -> ComposeResult:
        k = self.drilldown.contract.k
        universe = self.drilldown.contract.universe
        with Vertical(classes="dialog-frame"):
            yield Static(contract_text(self.drilldown.contract), id="drill-contract")
            yield Static(record_text(self.drilldown), id="drill-record")
            with Horizontal():
                with Vertical():
                    yield Static(Text(f"ranked list (top {k} count)"), classes="list-title")
                    yield DataTable[Text](id="drill-ranked", cursor_type="row")
                with Vertical():
                    yield Static(Text(f"ideal list ({universe} universe)"), classes="list-title")
                    yield DataTable[Text](id="drill-ideal", cursor_type="row")
            yield Footer()

    def on_mount(self) -> None:
        k = self.drilldown.contract.k
        ranked, ideal = self.drilldown.ranked, self.drilldown.ideal
        fill_list(self.query_one("#drill-ranked", DataTable), ranked, k, self.models)
        fill_list(self.query_one("#drill-ideal", DataTable), ideal, k, self.models)
        self.query_one("#drill-ranked", DataTable).focus()

    def action_close(self) -> None:
        self.dismiss(None)
