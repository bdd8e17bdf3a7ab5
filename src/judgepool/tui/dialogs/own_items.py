"""`OwnItemsDialog` (key ``m`` on the grade screen): the annotator's own items to
go back to, those they marked unsure or left a note on.

Per item, newest first: the annotator's state (unsure, or their grade), the
query and the document (IDs and the start of their text, repaired for
reading) and the start of their note; the highlighted item is spelt out
below the table. ``enter`` dismisses with the item, which the grade screen
then shows (after it is graded, grading returns to where it was); ``escape``
or ``m`` closes. The list holds the annotator's own rows only
(`judgepool.services.own_review`), never another person's grade or note, and
is read in a thread worker on a borrowed read connection when the dialog
opens. Every ID and text is shown literally (`rich.text.Text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Final

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.team.roles import Reach
from judgepool.services.own_review import OwnItem, OwnItems, own_items
from judgepool.tui.background import Refused, post, read
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.hosts import grading_host
from judgepool.tui.widgets.score_format import data, message

if TYPE_CHECKING:
    from judgepool.tui.readers import ReadConnections

Item = tuple[str, str]
# the widest the query and document columns grow; the note takes the rest
ITEM_WIDTH: Final = 30
NOTE_LEAST: Final = 12
STATE_WIDTH: Final = 7
_PADDING: Final = 2  # a column's cells are padded by one cell on each side
_SCROLLBAR: Final = 2
_GO: Final = "Go to the highlighted item on the grade screen (then back to where you were)"


def state(item: OwnItem) -> Text:
    """The annotator's own state of the item: unsure, their grade, or nothing."""
    if item.unsure:
        return Text("unsure", style="bold yellow")
    if item.grade is not None:
        return Text(f"grade {item.grade}", style="green")
    return Text("-", style="dim")


def id_and_start(identifier: str, start: str | None) -> Text:
    """An ID in bold, then the start of its text (or that there is none)."""
    cell = data(identifier, "bold")
    cell.append("  ")
    if start is None:
        cell.append("no text in the workspace", style="dim italic")
    else:
        cell.append_text(data(start, "dim"))
    return cell


def heading(found: OwnItems) -> Text:
    """What the list counts, and how to use it."""
    if not found.total:
        return Text(
            "Nothing to go back to: you marked no item unsure and left no note.", style="italic"
        )
    text = Text(f"{found.total:,} item{'s' if found.total != 1 else ''}", style="bold")
    text.append(f" to go back to: {found.unsure:,} unsure, {found.noted:,} with your note")
    text.append("\nnewest first; enter goes to the highlighted one", style="dim")
    if len(found.items) < found.total:
        text.append(f" · the newest {len(found.items):,} listed", style="dim")
    return text


class OwnItemsDialog(ModalScreen[Item | None]):
    """Your unsure and noted items; enter goes to one."""

    REACH: ClassVar[Reach] = "own"

    DEFAULT_CLASSES = "dialog"
    DEFAULT_CSS = """
    OwnItemsDialog > Vertical {
        width: 96%;
        height: 94%;
    }
    OwnItemsDialog #own-heading {
        height: auto;
        padding: 0 1;
    }
    OwnItemsDialog #own-table {
        height: 1fr;
    }
    OwnItemsDialog #own-detail {
        height: 3;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *HELP_AND_QUIT,
        Binding("escape,m", "close", "close", tooltip="Back to grading"),
        # the table's own enter selects the row, which goes there too
        Binding("enter", "go", "go to it", tooltip=_GO),
    ]

    @dataclass
    class ItemsRead(Message, bubble=False):
        """The annotator's items, or why they were not read."""

        found: OwnItems | Refused

    def __init__(self) -> None:
        super().__init__()
        self.found: OwnItems | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-frame"):
            yield Static(Text("reading your items…", style="italic"), id="own-heading")
            yield DataTable[Text](id="own-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="own-detail")
            yield Footer()

    def on_mount(self) -> None:
        self.query_one(".dialog-frame", Vertical).border_title = "Your unsure and noted items"
        host = grading_host(self.app)
        self._read_items(host.readers, host.annotator)

    @work(thread=True, exclusive=True, group="own-items")
    def _read_items(self, readers: ReadConnections, annotator: str) -> None:
        post(self, self.ItemsRead(read(readers, lambda ws: own_items(ws, annotator))))

    def on_own_items_dialog_items_read(self, message: ItemsRead) -> None:
        found = message.found
        if isinstance(found, Refused):
            self._failed(found.reason)
            return
        self.found = found
        self.query_one("#own-heading", Static).update(heading(found))
        table: DataTable[Text] = self.query_one("#own-table", DataTable)
        fill_items(table, found.items, table.size.width or self.app.size.width)
        table.focus()
        self._show_detail()

    def _failed(self, error: str) -> None:
        self.query_one("#own-heading", Static).update(message(error, "bold red"))

    @property
    def current(self) -> OwnItem | None:
        """The highlighted item (None when there is none)."""
        if self.found is None or not self.found.items:
            return None
        row = self.query_one("#own-table", DataTable).cursor_row
        return self.found.items[min(max(row, 0), len(self.found.items) - 1)]

    @on(DataTable.RowHighlighted, "#own-table")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        item = self.current
        detail = Text(no_wrap=True, overflow="ellipsis")
        if item is not None:
            detail.append("query ", style="dim")
            detail.append_text(id_and_start(item.query_id, item.query_start))
            detail.append("\ndocument ", style="dim")
            detail.append_text(id_and_start(item.doc_id, item.doc_start))
            detail.append("\nyour note: ", style="dim")
            detail.append_text(data(item.note) if item.note else Text("none", style="dim"))
        self.query_one("#own-detail", Static).update(detail)

    @on(DataTable.RowSelected, "#own-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_go()

    def action_go(self) -> None:
        item = self.current
        if item is not None:
            self.dismiss((item.query_id, item.doc_id))

    def action_close(self) -> None:
        self.dismiss(None)


def fill_items(table: DataTable[Text], items: tuple[OwnItem, ...], width: int) -> None:
    """Fill ``table`` for a table ``width`` cells wide: the state, the query and
    the document up to `ITEM_WIDTH` each, the note across the rest."""
    room = width - _SCROLLBAR - 4 * _PADDING - STATE_WIDTH
    item_width = max(min(ITEM_WIDTH, (room - NOTE_LEAST) // 2), 10)
    widths = [STATE_WIDTH, item_width, item_width, max(room - 2 * item_width, NOTE_LEAST)]
    table.clear(columns=True)
    for label, column_width in zip(("you", "query", "document", "your note"), widths, strict=True):
        table.add_column(Text(label, style="bold"), key=label, width=column_width)
    for number, item in enumerate(items):
        table.add_row(
            state(item),
            id_and_start(item.query_id, item.query_start),
            id_and_start(item.doc_id, item.doc_start),
            data(item.note) if item.note else Text("", style="dim"),
            key=str(number),
        )
