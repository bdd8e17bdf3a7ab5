"""`SideBySideScreen`: one query as two runs' ranked lists side by side, as DiffIR shows it.

Run A's top k on the left, run B's on the right, each document with its
grade (``unjudged`` for a hole) and where the other run ranks it (`RankedColumn`);
under them, the highlighted document's title and text, the query's words
highlighted. The heading gives the query's text and both runs' nDCG@k. Text
is shown as on the grade screen (`judgepool.tui.widgets.highlight`): IDs as
IDs, the query's and the document's text repaired for reading.

Keys: a digit grades the highlighted document here (written as the grade
screen writes, `judgepool.tui.grade_writer`: saved, taken into the grade
screen's plan, and every screen recomputes; the lists show the new grade at
once); ``j`` sends it to the grade screen instead; ``tab`` moves between the
lists; ``escape`` goes back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.auditing.drilldown import Drilldown
from judgepool.core.team.roles import Reach
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.measures import NDCG
from judgepool.display import literal, shown_id
from judgepool.services import app_queries
from judgepool.services.model_labels import query_model_grades
from judgepool.services.review import drill_down
from judgepool.services.workspace import Workspace
from judgepool.tui import grade_writer
from judgepool.tui.background import Refused, post, read
from judgepool.tui.dialogs.screen_keys import SCREEN_KEYS
from judgepool.tui.digit_keys import GradesByDigit, digit_bindings
from judgepool.tui.hosts import review_host
from judgepool.tui.widgets.highlight import (
    highlight,
    highlighted,
    id_text,
    label_text,
    query_terms,
)
from judgepool.tui.widgets.score_format import number
from judgepool.tui.widgets.side_by_side import RankedColumn

if TYPE_CHECKING:
    from judgepool.tui.readers import ReadConnections


@dataclass(frozen=True)
class QueryLists:
    """What the side-by-side view shows of one query: both runs' drill-downs and its text."""

    a: Drilldown
    b: Drilldown
    text: str
    # the models' labels of the query's documents, shown as a model's (a lead's view)
    models: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def read_lists(ws: Workspace, a: str, b: str, query_id: str, contract: Contract) -> QueryLists:
    """Both runs' ranked lists for ``query_id`` with grades, and its text."""
    query = app_queries.plan_query(ws, query_id)
    return QueryLists(
        drill_down(ws, a, query_id, contract),
        drill_down(ws, b, query_id, contract),
        query.text.text,
        query_model_grades(ws, query_id),
    )


class SideBySideScreen(GradesByDigit, ModalScreen[None]):
    """Two runs' top k for one query, side by side, gradable in place."""

    REACH: ClassVar[Reach] = "review"

    DEFAULT_CLASSES = "dialog"
    DEFAULT_CSS = """
    SideBySideScreen > Vertical {
        width: 96%;
        height: 94%;
    }
    SideBySideScreen #sbs-heading {
        height: auto;
        padding: 0 1;
    }
    SideBySideScreen #sbs-lists {
        height: 1fr;
    }
    SideBySideScreen #sbs-document {
        height: 1fr;
        border: round $accent;
        padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *SCREEN_KEYS,
        Binding("escape", "close", "close", tooltip="Back to the runs pair by pair"),
        *digit_bindings("grade", "Grade the highlighted document {digit}, here"),
        Binding(
            "j",
            "send",
            "to grade screen",
            tooltip="Send the highlighted document to the grade screen",
        ),
    ]

    @dataclass
    class ListsRead(Message, bubble=False):
        """Both runs' lists for the query, or why they were not read."""

        lists: QueryLists | Refused

    @dataclass
    class DocumentRead(Message, bubble=False):
        """The first part of ``doc_id``'s text (None: it has none), or why it
        was not read; ``terms``: the query's, to highlight."""

        doc_id: str
        terms: frozenset[str]
        part: app_queries.DocumentPart | Refused | None

    def __init__(self, a: str, b: str, query_id: str, contract: Contract) -> None:
        super().__init__()
        self.a, self.b, self.query_id, self.contract = a, b, query_id, contract
        self.lists: QueryLists | None = None
        self.terms: frozenset[str] = frozenset()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-frame"):
            yield Static(Text("reading both lists…", style="italic"), id="sbs-heading")
            with Horizontal(id="sbs-lists"):
                yield RankedColumn(id="sbs-a")
                yield RankedColumn(id="sbs-b")
            with VerticalScroll(id="sbs-document"):
                yield Static(id="sbs-text")
            yield Footer()

    def on_mount(self) -> None:
        # a Text, not a str: a border title given as a str is read as markup
        self.query_one("#sbs-a", RankedColumn).border_title = Text(literal(f"A {self.a}"))
        self.query_one("#sbs-b", RankedColumn).border_title = Text(literal(f"B {self.b}"))
        self._load()

    def _load(self) -> None:
        self._read_lists(review_host(self.app).readers)

    @work(thread=True, exclusive=True, group="sbs-lists")
    def _read_lists(self, readers: ReadConnections) -> None:
        a, b, query_id, contract = self.a, self.b, self.query_id, self.contract
        post(
            self, self.ListsRead(read(readers, lambda ws: read_lists(ws, a, b, query_id, contract)))
        )

    def on_side_by_side_screen_lists_read(self, message: ListsRead) -> None:
        lists = message.lists
        if isinstance(lists, Refused):
            self._failed(lists.reason)
            return
        first = self.lists is None
        self.lists = lists
        self.terms = query_terms(lists.text)
        k = self.contract.k
        heading = Text()
        heading.append("query ", style="dim")
        heading.append(shown_id(self.query_id), style="bold")
        heading.append("  ")
        heading.append_text(highlight(label_text(lists.text), self.terms))
        heading.append(f"\n{NDCG.label(k)}  A ", style="dim")
        heading.append_text(number(lists.a.result.ndcg, style="bold"))
        heading.append("   B ", style="dim")
        heading.append_text(number(lists.b.result.ndcg, style="bold"))
        heading.append(
            "   a digit grades the highlighted document here; j sends it to the grade screen",
            style="dim",
        )
        self.query_one("#sbs-heading", Static).update(heading)
        column_a = self.query_one("#sbs-a", RankedColumn)
        column_a.show(lists.a, lists.b, lists.models)
        self.query_one("#sbs-b", RankedColumn).show(lists.b, lists.a, lists.models)
        if first:
            column_a.focus()
        self._show_document(self.current_doc)

    def _failed(self, error: str) -> None:
        self.query_one("#sbs-heading", Static).update(Text(literal(error), style="bold red"))

    # -- the highlighted document -----------------------------------------------------

    @property
    def current_doc(self) -> str | None:
        """The highlighted document of the list that has the focus (else of A's)."""
        focused = self.focused
        column = focused if isinstance(focused, RankedColumn) else self.query_one("#sbs-a")
        assert isinstance(column, RankedColumn)
        return column.current_doc

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self.focused:
            self._show_document(self.current_doc)

    def on_descendant_focus(self) -> None:
        self._show_document(self.current_doc)

    def _show_document(self, doc_id: str | None) -> None:
        if doc_id is None:
            self.query_one("#sbs-text", Static).update("")
            return
        self._read_document(review_host(self.app).readers, doc_id, self.terms)

    @work(thread=True, exclusive=True, group="sbs-document")
    def _read_document(self, readers: ReadConnections, doc_id: str, terms: frozenset[str]) -> None:
        part = read(readers, lambda ws: app_queries.document_part(ws, doc_id, "first"))
        post(self, self.DocumentRead(doc_id, terms, part))

    def on_side_by_side_screen_document_read(self, message: DocumentRead) -> None:
        doc_id, terms, part = message.doc_id, message.terms, message.part
        if isinstance(part, Refused):
            self._failed(part.reason)
            return
        if doc_id != self.current_doc:
            return
        shown = id_text(doc_id, style="bold")
        if part is None:
            shown.append("\nno text for this document in the workspace", style="dim italic")
        else:
            if part.title is not None and part.title.text:
                shown.append("  ")
                shown.append_text(highlight(label_text(part.title.text), terms))
            shown.append("\n")
            shown.append_text(highlighted(part.text.text, terms))
            if not part.text.is_last:
                shown.append("\n… the rest on the grade screen (j)", style="dim italic")
        self.query_one("#sbs-document", VerticalScroll).border_title = "Document"
        self.query_one("#sbs-text", Static).update(shown)

    # -- grading -------------------------------------------------------------------------

    def action_grade(self, grade: int) -> None:
        doc_id = self.current_doc
        if doc_id is None:
            return
        saved = grade_writer.judge(self.app, (self.query_id, doc_id), grade)
        if isinstance(saved, grade_writer.NotSaved):  # the writer's notice said why
            return
        self.notify(literal(f"saved {saved.grade} for {doc_id}"), markup=False)
        self._load()  # the lists show the grade (and the nDCG it gives)

    def action_send(self) -> None:
        doc_id = self.current_doc
        if doc_id is not None:
            review_host(self.app).queue_for_grading(self.query_id, doc_id)

    def action_close(self) -> None:
        self.dismiss(None)
