"""The adjudication screen (key ``D``): an adjudicator's queue of disagreements.

Only an annotator marked adjudicator (``judgepool annotators WS --adjudicator
NAME``) opens it; the app tells anyone else why (`judgepool.services.adjudication`).

The table lists the items whose annotators' grades differ by at least the
minimum gap (``+``/``-`` change it; 1: any difference), unresolved first;
``r`` shows the resolved ones too, after them. Under the table, every grade of
the highlighted item with its annotator, time and note: an adjudicator sees
everything, even when grading is blind. A digit settles the item with that
grade, recorded as the adjudicator's judgment (what the ``adjudicated``
consensus reads), and the item leaves the queue of unresolved ones.

The queue follows the workspace: a grade from another terminal (the app's
live refresh publishes `GradeSaved` for it) re-reads it at once when the
screen is showing, else when it is shown again, the cursor staying on its item.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.errors import JudgepoolError
from judgepool.core.roles import Reach
from judgepool.services.adjudication import adjudicate, adjudication_queue
from judgepool.services.disagreements import ListedDisagreement
from judgepool.services.workspace import StorageError
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.grade_rereads import RereadOnGrades
from judgepool.tui.hosts import grading_host
from judgepool.tui.widgets.highlight import literal_text

_GRADE: Final = Binding.Group("settle", compact=True)
_GAP: Final = Binding.Group("gap", compact=True)

ADJUDICATE_BINDINGS: Final[list[BindingType]] = [
    *HELP_AND_QUIT,
    *(
        Binding(
            str(digit),
            f"settle({digit})",
            "settle",
            group=_GRADE,
            tooltip=f"Settle the highlighted disagreement with grade {digit}",
        )
        for digit in range(10)
    ),
    Binding("plus", "gap(1)", "gap", key_display="+", group=_GAP, tooltip="Raise the minimum gap"),
    Binding(
        "minus", "gap(-1)", "gap", key_display="-", group=_GAP, tooltip="Lower the minimum gap"
    ),
    Binding("r", "toggle_resolved", "resolved", tooltip="Show or hide the resolved disagreements"),
    Binding("f5,R", "reload", "reload", tooltip="Read the disagreements again"),
]


class AdjudicateScreen(Screen[None]):
    """Settle the disagreements of the workspace, one digit each."""

    REACH: ClassVar[Reach] = "adjudicate"

    BINDINGS: ClassVar[list[BindingType]] = ADJUDICATE_BINDINGS

    DEFAULT_CSS = """
    AdjudicateScreen #adjudicate-title { height: 1; padding: 0 1; background: $panel; }
    AdjudicateScreen #adjudicate-table { height: 1fr; }
    AdjudicateScreen #adjudicate-detail {
        height: auto; max-height: 9; border: round $accent; padding: 0 1;
    }
    AdjudicateScreen #adjudicate-status { height: 1; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(id="adjudicate")
        self.min_gap = 1
        self.with_resolved = False
        self.listed: tuple[ListedDisagreement, ...] = ()
        self._status = Text("")
        self._grades = RereadOnGrades(self, lambda: self.reload(keep=self._current_key()))

    def compose(self) -> ComposeResult:
        yield Static(id="adjudicate-title")
        table: DataTable[Text | str] = DataTable(id="adjudicate-table", cursor_type="row")
        table.add_columns("query", "document", "grades", "gap", "status")
        yield table
        yield Static(id="adjudicate-detail")
        yield Static(id="adjudicate-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#adjudicate-detail", Static).border_title = "Every grade"
        self._grades.subscribe()
        self.reload()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.reload(keep=self._current_key())

    def _current_key(self) -> tuple[str, str] | None:
        found = self._current()
        return None if found is None else (found.item.query_id, found.item.doc_id)

    # -- reading ---------------------------------------------------------------------

    def reload(self, keep: tuple[str, str] | None = None) -> None:
        """Read the queue again; the cursor stays on ``keep`` (or its row) if listed."""
        self._grades.read()
        host = grading_host(self.app)
        table: DataTable[Text | str] = self.query_one("#adjudicate-table", DataTable)
        row = table.cursor_row
        try:
            listing = adjudication_queue(
                host.ws, min_gap=self.min_gap, with_resolved=self.with_resolved
            )
        except (JudgepoolError, StorageError) as exc:
            self._say(Text(f"cannot read the disagreements: {exc}", style="bold red"))
            return
        self.listed = listing.listed
        table.clear()
        for found in self.listed:
            item = found.item
            grades = Text(", ").join(literal_text(f"{who} {grade}") for who, grade in item.grades)
            status = (
                Text(f"settled {item.adjudicated}", style="green")
                if found.resolved
                else Text("unresolved", style="bold yellow")
            )
            table.add_row(
                literal_text(item.query_id),
                literal_text(item.doc_id),
                grades,
                str(found.gap),
                status,
                key=f"{item.query_id}\x00{item.doc_id}",
            )
        where = [i for i, f in enumerate(self.listed) if (f.item.query_id, f.item.doc_id) == keep]
        if self.listed:
            table.move_cursor(row=where[0] if where else min(row, len(self.listed) - 1))
        gap = "any difference" if self.min_gap == 1 else f"gap ≥ {self.min_gap}"
        shown = "resolved too" if self.with_resolved else "unresolved only"
        title = Text.assemble(
            ("Adjudicate", "bold"),
            f" · {listing.unresolved} unresolved of {listing.total}",
            f" · {gap} · {shown}",
        )
        self.query_one("#adjudicate-title", Static).update(title)
        self._show_detail()
        self._update_status()

    def _current(self) -> ListedDisagreement | None:
        table: DataTable[Text | str] = self.query_one("#adjudicate-table", DataTable)
        if not self.listed or not 0 <= table.cursor_row < len(self.listed):
            return None
        return self.listed[table.cursor_row]

    def _show_detail(self) -> None:
        detail = self.query_one("#adjudicate-detail", Static)
        found = self._current()
        if found is None:
            detail.update(Text("No disagreement to settle here.", style="green"))
            return
        text = Text()
        text.append("query ", style="dim")
        text.append_text(literal_text(found.item.query_id))
        text.append(" · document ", style="dim")
        text.append_text(literal_text(found.item.doc_id))
        adjudicators = set(found.item.adjudicators)
        for grade in found.details:
            text.append("\n")
            text.append_text(literal_text(grade.annotator, style="bold"))
            if grade.annotator in adjudicators:
                text.append(" (adjudicator)", style="green")
            text.append(f" {grade.grade}", style="bold")
            # the stored UTC time to the second: a note has more use for the room
            text.append(f"  {grade.graded_at[:19].replace('T', ' ')} UTC", style="dim")
            if grade.note:
                text.append("  note: ", style="italic")
                text.append_text(literal_text(grade.note))
        detail.update(text)

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        message.stop()
        self._show_detail()

    # -- status ------------------------------------------------------------------------

    def _say(self, status: Text) -> None:
        self._status = status
        self._update_status()

    def _update_status(self) -> None:
        line = self._status.copy()
        if not line.plain:
            line = Text("a digit settles the highlighted item with that grade", style="dim")
        self.query_one("#adjudicate-status", Static).update(line)

    # -- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "settle":
            return parameters[0] in grading_host(self.app).ws.scale
        return True

    def action_settle(self, grade: int) -> None:
        """Settle the highlighted disagreement with ``grade``."""
        found = self._current()
        if found is None:
            self._say(Text("nothing to settle", style="yellow"))
            return
        host = grading_host(self.app)
        query_id, doc_id = found.item.query_id, found.item.doc_id
        try:
            event = adjudicate(host.ws, query_id, doc_id, grade, adjudicator=host.annotator)
        except (JudgepoolError, StorageError) as exc:
            self._say(literal_text(f"not saved: {exc}", style="bold red"))
            self.notify(str(exc), severity="error", markup=False)
            return
        host.grade_saved(query_id, doc_id, event.grade)
        status = Text.assemble(("settled ", "bold green"), (f"{event.grade}", "bold green"))
        status.append(" for ")
        status.append_text(literal_text(f"{query_id} {doc_id}"))
        self._status = status
        self.reload(keep=(query_id, doc_id) if self.with_resolved else None)

    def action_gap(self, step: int) -> None:
        """Change the minimum gap between grades a disagreement needs (1 or more)."""
        scale = grading_host(self.app).ws.scale
        widest = max(1, scale.maximum - scale.minimum)
        self.min_gap = min(widest, max(1, self.min_gap + step))
        self._status = Text("")
        self.reload()

    def action_toggle_resolved(self) -> None:
        self.with_resolved = not self.with_resolved
        self._status = Text("")
        self.reload()

    def action_reload(self) -> None:
        self._status = Text("read again", style="dim")
        self.reload()
