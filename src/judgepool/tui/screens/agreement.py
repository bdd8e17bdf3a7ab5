"""The agreement screen (key ``K``): how far the workspace's annotators agree.

Per pair of annotators the items both graded, raw agreement and Cohen's κ
(plain, linear and quadratic weights); over all of them Fleiss' κ and
Krippendorff's α (ordinal and interval), as ``judgepool agreement`` computes
them (`judgepool.services.agreement`): the people who graded, with a line
saying what was left out (imports, models, adjudications) and why; and, for
each model with labels, its confusion table against the people (and
against imported qrels where no person graded), in short
(`judgepool.services.confusion`, as ``agreement --confusion``). Beside the
pairs, the highlighted pair's confusion table as a heat map (A's grades
down, B's across: `ConfusionHeatMap`), following the highlight; under 36
lines the boxes below them give way (they scroll), so that the pairs and the
heat map keep their 10 lines. An
undefined value shows as ``-`` and its reason is listed below. ``f5`` reads
the grades again; a saved grade marks the screen stale, and it is read again
when shown.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.team.roles import Reach
from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.agreement import AgreementReport, workspace_agreement
from judgepool.services.confusion import every_model_confusion
from judgepool.services.workspace import StorageError
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.hosts import grading_host
from judgepool.tui.messages import GradesSaved
from judgepool.tui.widgets.confusion_plot import ConfusionHeatMap
from judgepool.tui.widgets.highlight import literal_text

AGREEMENT_BINDINGS: Final[list[BindingType]] = [
    *HELP_AND_QUIT,
    Binding("f5,R", "reload", "reload", tooltip="Compute the agreement again"),
]

COLUMNS: Final = ("pair", "items", "raw", "κ", "κ lin", "κ quad")


class AgreementScreen(Screen[None]):
    """Agreement between annotators, per pair and over all."""

    REACH: ClassVar[Reach] = "team"

    BINDINGS: ClassVar[list[BindingType]] = AGREEMENT_BINDINGS
    # under 100 columns the heat map narrows, so that every κ column shows
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - typed by Textual
    # under 36 lines the boxes below give way, so that the pairs keep 10 lines
    # (their header, rows and the heat map): at 80 × 24 the two boxes took
    # every line; what they no longer show scrolls
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-medium"), (36, "-tall")]  # noqa: RUF012

    DEFAULT_CSS = """
    AgreementScreen #agreement-title { height: 1; padding: 0 1; background: $panel; }
    AgreementScreen #agreement-pairs { height: 1fr; min-height: 10; }
    AgreementScreen #agreement-table { height: 1fr; width: 1fr; }
    AgreementScreen #agreement-heat { height: 1fr; width: 36; min-height: 8; }
    AgreementScreen.-narrow #agreement-heat { width: 26; }
    AgreementScreen .agreement-box {
        height: auto; max-height: 10; border: round $accent; padding: 0 1;
    }
    AgreementScreen #agreement-models-box { max-height: 14; }
    AgreementScreen.-short #agreement-overall-box { max-height: 7; }
    AgreementScreen.-short #agreement-models-box { max-height: 5; }
    AgreementScreen.-medium #agreement-models-box { max-height: 10; }
    """

    def __init__(self) -> None:
        super().__init__(id="agreement")
        self.report: AgreementReport | None = None
        self._stale = False

    def compose(self) -> ComposeResult:
        yield Static(Text("Agreement", style="bold"), id="agreement-title")
        table: DataTable[Text | str] = DataTable(id="agreement-table", cursor_type="row")
        table.add_columns(*COLUMNS)
        with Horizontal(id="agreement-pairs"):
            yield table
            yield ConfusionHeatMap(id="agreement-heat")
        with VerticalScroll(id="agreement-overall-box", classes="agreement-box"):
            yield Static(id="agreement-overall")
        with VerticalScroll(id="agreement-models-box", classes="agreement-box") as models:
            models.display = False
            yield Static(id="agreement-models")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#agreement-overall-box").border_title = "All annotators"
        self.query_one(
            "#agreement-models-box"
        ).border_title = "Models vs people (imports where no person graded)"
        grading_host(self.app).follow_grades(self)
        self.reload()

    def on_grades_saved(self, _message: GradesSaved) -> None:
        self._stale = True  # read again when shown

    def on_screen_resume(self) -> None:
        if self._stale:
            self.reload()

    def action_reload(self) -> None:
        self.reload()

    def reload(self) -> None:
        """Compute the agreement from the store and show it."""
        self._stale = False
        table: DataTable[Text | str] = self.query_one("#agreement-table", DataTable)
        overall_view = self.query_one("#agreement-overall", Static)
        table.clear()
        self.query_one(ConfusionHeatMap).show(None)
        self._show_models()
        try:
            report = workspace_agreement(grading_host(self.app).ws)
        except (JudgepoolError, StorageError) as exc:
            self.report = None
            overall_view.update(literal_text(str(exc), style="yellow"))
            return
        self.report = report
        reasons: list[Text] = []
        for pair in report.overall.pairs:
            label = literal_text(f"{pair.a} – {pair.b}")
            measures = (
                pair.raw_agreement,
                pair.cohen_kappa,
                pair.kappa_linear,
                pair.kappa_quadratic,
            )
            table.add_row(label, f"{pair.items:,}", *(m.text() for m in measures))
            for reason in sorted({m.reason for m in measures if m.reason is not None}):
                reasons.append(literal_text(f"{pair.a} – {pair.b}: {reason}", style="dim"))
        overall = report.overall.overall
        text = Text()
        text.append_text(
            literal_text(f"{len(overall.annotators)} annotators: " + ", ".join(overall.annotators))
        )
        text.append("\n")
        text.append_text(literal_text(report.left_out.line(hint=False), style="italic"))
        text.append(f"\nFleiss' κ {overall.fleiss_kappa.text()}", style="bold")
        text.append(f" over {overall.fleiss_items:,} items graded by every one")
        text.append(f"\nKrippendorff's α ordinal {overall.alpha_ordinal.text()}", style="bold")
        text.append(f", interval {overall.alpha_interval.text()}", style="bold")
        text.append(f" over {overall.items:,} items graded by two or more")
        for name, measured in (
            ("Fleiss' κ", overall.fleiss_kappa),
            ("α ordinal", overall.alpha_ordinal),
            ("α interval", overall.alpha_interval),
        ):
            if measured.reason is not None:
                reasons.append(literal_text(f"{name}: {measured.reason}", style="dim"))
        for why in reasons:
            text.append("\n")
            text.append_text(why)
        overall_view.update(text)
        self._show_confusion(table.cursor_row)

    @on(DataTable.RowHighlighted, "#agreement-table")
    def _pair_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_confusion(event.cursor_row)

    def _show_confusion(self, row: int) -> None:
        """The heat map of the pair on ``row`` of the table."""
        confusions = self.report.confusions if self.report is not None else ()
        heat = self.query_one(ConfusionHeatMap)
        heat.show(confusions[row] if 0 <= row < len(confusions) else None)

    def _show_models(self) -> None:
        """Each model's labels against the people's, or the imports' where no
        person graded (`Confusion`), as ``agreement --confusion`` gives them:
        the line, then per grade the reference gave, how the model graded
        those items."""
        view = self.query_one("#agreement-models", Static)
        box = self.query_one("#agreement-models-box")
        try:
            tables = every_model_confusion(grading_host(self.app).ws)
        except (JudgepoolError, StorageError) as exc:
            box.display = True
            view.update(literal_text(f"models: {exc}", style="yellow"))
            return
        box.display = bool(tables)
        text = Text()
        for number, found in enumerate(tables):
            if number:
                text.append("\n")
            text.append_text(literal_text(found.line(), style="bold"))
            shares = found.row_shares()
            kinds = [ref.kind for ref in found.references()]
            reference = kinds[0] if len(kinds) == 1 else "reference"
            for lean, counts, row in zip(found.leanings(), found.counts, shares, strict=True):
                if not lean.pairs:
                    continue
                cells = "  ".join(
                    f"{grade}: {count}" + ("" if share is None else f" ({share:.2f})")
                    for grade, count, share in zip(found.grades, counts, row, strict=True)
                )
                gap = "" if lean.mean_gap is None else f"  mean gap {lean.mean_gap:+.2f}"
                text.append(f"\n  {reference} {lean.grade} → model  {cells}{gap}")
        view.update(text)
