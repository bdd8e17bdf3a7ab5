"""`AllHolesScreen` (``H`` on the audit screen): the holes of every run at once.

The audit shows one run's unjudged documents; this view lists those of all
the workspace's runs at the active contract's k, on the judgments of the
workspace's consensus rule (`judgepool.services.all_holes`), best rank first,
then the holes more runs returned. Per hole: the query, the document, how
many runs returned it in their top k, its best rank, which runs (where the
width allows; the highlighted hole's runs are always named below the table)
and the start of the document's text on one line. Every ID, name and text is
shown literally (`rich.text.Text`), the text repaired for reading.

``enter`` (or ``j``) sends the highlighted hole to grading and queues the
others in the listed order, from the one below it round to the one above
(`app.queue_holes`: after each grade the next not yet judged comes);
``escape`` closes. The list is read in a thread worker, on a borrowed read
connection, when the view opens, and again after every grade saved here or in
another terminal (`judgepool.tui.messages.GradesSaved`; a burst of them is one
re-read, made when the view is showing): judged holes leave it, the
highlighted one stays highlighted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Final

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Resize
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.team.roles import Reach
from judgepool.core.terms.contract import Contract
from judgepool.display import literal, shown_id
from judgepool.services.all_holes import AllHoles, ListedHole, all_runs_holes
from judgepool.tui.background import Refused, post, read
from judgepool.tui.dialogs.screen_keys import SCREEN_KEYS
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.hosts import review_host
from judgepool.tui.messages import GradesSaved
from judgepool.tui.widgets.score_format import data, label_cell, message

if TYPE_CHECKING:
    from judgepool.tui.readers import ReadConnections

# the widest each key column grows (longer IDs are cut with an ellipsis)
QUERY_WIDTH: Final = 12
DOCUMENT_WIDTH: Final = 16
RUN_NAMES_WIDTH: Final = 24
# the snippet keeps at least this much room; narrower, the run names go
SNIPPET_LEAST: Final = 30
# a column's cells are padded by one cell on each side; the scrollbar takes two
_PADDING: Final = 2
_SCROLLBAR: Final = 2
_SEND: Final = (
    "Send the highlighted hole to grading, then the others in this list's order "
    "(after each grade the next one comes)"
)


def queue_from(order: tuple[tuple[str, str], ...], index: int) -> list[tuple[str, str]]:
    """The holes to grade from the ``index``-th one: it, the ones listed after
    it, then the ones listed before it."""
    return [*order[index:], *order[:index]]


class AllHolesScreen(ModalScreen[None]):
    """Every run's holes, best rank first, each sent to grading with enter."""

    REACH: ClassVar[Reach] = "review"

    DEFAULT_CLASSES = "dialog"
    DEFAULT_CSS = """
    AllHolesScreen > Vertical {
        width: 96%;
        height: 94%;
    }
    AllHolesScreen #holes-heading {
        height: auto;
        padding: 0 1;
    }
    AllHolesScreen #holes-table {
        height: 1fr;
    }
    AllHolesScreen #holes-detail {
        height: 2;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *HELP_AND_QUIT,
        *SCREEN_KEYS,
        Binding("escape", "close", "close", tooltip="Back to the audit"),
        Binding("j", "send", "grade hole", tooltip=_SEND),
        # the table's own enter selects the row, which sends it too
        Binding("enter", "send", "grade hole", show=False, tooltip=_SEND),
    ]

    @dataclass
    class HolesRead(Message, bubble=False):
        """Every run's holes, or why they were not read."""

        holes: AllHoles | Refused

    def __init__(self, contract: Contract) -> None:
        super().__init__()
        self.contract = contract
        self.holes: AllHoles | None = None
        self._stale = False  # a grade was saved since the list was read

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-frame"):
            yield Static(Text("reading every run's holes…", style="italic"), id="holes-heading")
            yield DataTable[Text](id="holes-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="holes-detail")
            yield Footer()

    def on_mount(self) -> None:
        self.query_one(".dialog-frame", Vertical).border_title = "Every run's holes"
        review_host(self.app).follow_grades(self)
        self._reread()

    def on_grades_saved(self, _message: GradesSaved) -> None:
        if self.is_current:
            self._reread()
        else:
            self._stale = True  # read again when shown

    def on_screen_resume(self) -> None:
        if self._stale:
            self._reread()

    def _reread(self) -> None:
        self._stale = False
        self._read_holes(review_host(self.app).readers, self.contract)

    @work(thread=True, exclusive=True, group="all-holes")
    def _read_holes(self, readers: ReadConnections, contract: Contract) -> None:
        post(self, self.HolesRead(read(readers, lambda ws: all_runs_holes(ws, contract))))

    def on_all_holes_screen_holes_read(self, message: HolesRead) -> None:
        holes = message.holes
        if isinstance(holes, Refused):
            self._failed(holes.reason)
            return
        first = self.holes is None
        keep = self._current_key()
        self.holes = holes
        self.query_one("#holes-heading", Static).update(heading(holes))
        self._fill(keep)
        if first:
            self.query_one("#holes-table", DataTable).focus()

    def _failed(self, error: str) -> None:
        self.query_one("#holes-heading", Static).update(message(error, "bold red"))

    # -- the table ---------------------------------------------------------------

    def on_resize(self, _event: Resize) -> None:
        # the snippet takes the width left: fill again once the table has its size
        if self.holes is not None:
            self.call_after_refresh(self._fill)

    def _fill(self, keep: tuple[str, str] | None = None) -> None:
        """Fill the table; the cursor on ``keep`` if it is listed, else on the
        same row."""
        holes = self.holes
        if holes is None:
            return
        table: DataTable[Text] = self.query_one("#holes-table", DataTable)
        row = table.cursor_row
        if keep is not None and keep in holes.order:
            row = holes.order.index(keep)
        width = table.size.width or self.app.size.width
        fill_holes(table, holes.listed, width)
        if holes.listed:
            table.move_cursor(row=min(max(row, 0), len(holes.listed) - 1))
        self._show_detail()

    def _current_key(self) -> tuple[str, str] | None:
        index = self.current
        if index is None or self.holes is None:
            return None
        hole = self.holes.listed[index].hole
        return (hole.query_id, hole.doc_id)

    @property
    def current(self) -> int | None:
        """The highlighted hole's place in the list (None when there is none)."""
        holes = self.holes
        if holes is None or not holes.listed:
            return None
        table = self.query_one("#holes-table", DataTable)
        return min(max(table.cursor_row, 0), len(holes.listed) - 1)

    @on(DataTable.RowHighlighted, "#holes-table")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        index = self.current
        detail = Text(no_wrap=True, overflow="ellipsis")
        if index is not None and self.holes is not None:
            hole = self.holes.listed[index].hole
            detail.append("query ", style="dim")
            detail.append(shown_id(hole.query_id), style="bold")
            detail.append("  document ", style="dim")
            detail.append(shown_id(hole.doc_id), style="bold")
            detail.append(f"  best rank {hole.best_rank}", style="dim")
            runs = len(hole.runs)
            detail.append(f"\nin the top k of {runs} run{'s' if runs != 1 else ''}: ", style="dim")
            detail.append(", ".join(literal(run) for run in hole.runs))
        self.query_one("#holes-detail", Static).update(detail)

    # -- grading -----------------------------------------------------------------

    @on(DataTable.RowSelected, "#holes-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_send()

    def action_send(self) -> None:
        index = self.current
        if index is None or self.holes is None:
            self.notify("no hole to grade", severity="warning")
            return
        review_host(self.app).queue_holes(queue_from(self.holes.order, index))

    def action_close(self) -> None:
        self.dismiss(None)


def heading(holes: AllHoles) -> Text:
    """What the list counts, and how to use it."""
    counts = holes.counts
    text = Text()
    if not holes.runs:
        text.append("The workspace has no runs: import one first", style="yellow")
        return text
    if not counts.holes:
        text.append(f"No holes: every run's top {holes.k} is judged", style="bold green")
        text.append(f" ({holes.runs} run{'s' if holes.runs != 1 else ''})", style="dim")
        return text
    text.append(f"{counts.holes:,} hole{'s' if counts.holes != 1 else ''}", style="bold")
    text.append(f" in the top {holes.k} · ")
    text.append(f"{counts.queries:,} quer{'ies' if counts.queries != 1 else 'y'}", style="bold")
    text.append(" · ")
    text.append(f"{counts.runs} of {holes.runs} run{'s' if holes.runs != 1 else ''}", style="bold")
    text.append("\nbest rank first; enter grades the highlighted one, then the rest", style="dim")
    if len(holes.listed) < counts.holes:
        text.append(f" · the first {len(holes.listed):,} listed, all queued", style="dim")
    return text


def fill_holes(table: DataTable[Text], listed: tuple[ListedHole, ...], width: int) -> None:
    """Fill ``table`` with the holes for a table ``width`` cells wide: the key
    columns (query, document, runs, best rank) as wide as their data up to a
    cap, the run names if the snippet keeps `SNIPPET_LEAST` besides, and the
    snippet across the rest."""
    cells = [
        (
            data(item.hole.query_id),
            data(item.hole.doc_id),
            Text(str(len(item.hole.runs)), justify="right"),
            Text(str(item.hole.best_rank), justify="right"),
            data(", ".join(item.hole.runs)),
            label_cell(item.snippet)
            if item.snippet is not None
            else Text("no text in the workspace", style="dim italic"),
        )
        for item in listed
    ]
    labels = ["query", "document", "runs", "rank", "which runs", "text"]
    caps = [QUERY_WIDTH, DOCUMENT_WIDTH, 4, 5, RUN_NAMES_WIDTH]
    widths = [
        min(cap, max([len(label), *(row[i].cell_len for row in cells)]))
        for i, (label, cap) in enumerate(zip(labels, caps, strict=False))
    ]
    room = width - _SCROLLBAR - _PADDING * len(labels)
    keep = [0, 1, 2, 3, 4]
    if room - sum(widths) < SNIPPET_LEAST:
        keep.remove(4)  # the highlighted hole's runs are named below the table
        room += _PADDING
    widths.append(max(room - sum(widths[i] for i in keep), 10))
    keep.append(5)
    table.clear(columns=True)
    for i in keep:
        label = Text(labels[i], style="bold", justify="right" if i in (2, 3) else "left")
        table.add_column(label, key=labels[i], width=widths[i])
    for number, row in enumerate(cells):
        table.add_row(*(row[i] for i in keep), key=str(number))
