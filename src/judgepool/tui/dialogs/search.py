"""The search dialog (``f`` on the grade screen): full-text search over the
documents, for the current query, to find relevant documents the pool missed.

The words start as the current query's text, shown as it reads
(`judgepool.display.one_line`: the field is on screen like any other text)
and searched as stored; edit them and press enter to search again. Enter on a
result (or ``j``) sends it to the grade screen, where it joins the pool with
source ``search`` and is graded like any other (or, under a lead's review, is
proposed; a ``judged`` one is not added); escape closes the dialog.
Document text is shown literally (`rich.text.Text`), repaired for reading.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from judgepool.core.team.roles import Reach
from judgepool.core.terms.errors import JudgepoolError
from judgepool.display import one_line
from judgepool.services.search_judge import SearchHit, SearchResult
from judgepool.services.workspace import StorageError
from judgepool.tui.widgets.highlight import id_text, label_text, literal_text

Searcher = Callable[[str], SearchResult]
Found = tuple[str, str]
"""(document ID, the words that found it)."""


class SearchDialog(ModalScreen[Found | None]):
    """Search the documents; dismisses with the chosen document and the words."""

    REACH: ClassVar[Reach] = "grade"

    DEFAULT_CLASSES = "dialog"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "close", tooltip="Close the search"),
    ]

    DEFAULT_CSS = """
    SearchDialog #search-box {
        width: 96%; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    SearchDialog #search-results { height: 1fr; }
    SearchDialog #search-status { height: 1; }
    """

    def __init__(self, query_id: str, words: str, search: Searcher) -> None:
        super().__init__(id="search")
        self.query_id = query_id
        self._words = " ".join(words.split())
        # the field shows the query's text as it reads: a terminal escape or a
        # Tamil vowel sign typed into it raw would reach the screen raw
        self._shown_words = one_line(words)
        self._search = search
        self.hits: list[SearchHit] = []
        self.searched = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box"):
            title = Text("Search the documents for query ")
            title.append_text(id_text(self.query_id, style="bold"))
            title.append(": enter searches, enter on a result grades it", style="dim")
            yield Static(title, markup=False)
            yield Input(value=self._shown_words, id="search-words")
            table: DataTable[Text | str] = DataTable(id="search-results", cursor_type="row")
            table.add_columns("document", "pool", "text")
            yield table
            yield Static(id="search-status", markup=False)

    def on_mount(self) -> None:
        self.run_search(self.query_one("#search-words", Input).value)
        self.query_one("#search-words", Input).focus()

    def run_search(self, words: str) -> None:
        """Search for ``words`` (the query's stored text while the field shows
        it unchanged) and list what is found."""
        if words == self._shown_words:
            words = self._words
        status = self.query_one("#search-status", Static)
        table: DataTable[Text | str] = self.query_one("#search-results", DataTable)
        table.clear()
        try:
            result = self._search(words)
        except (JudgepoolError, StorageError) as exc:
            self.hits = []
            status.update(literal_text(str(exc), style="bold red"))
            return
        self.hits = result.hits
        self.searched = words
        for hit in self.hits:
            # judged: already graded for the query, so not put in anyone's queue
            state = Text("judged", style="dim") if hit.judged else "pooled" if hit.pooled else None
            table.add_row(
                id_text(hit.doc_id),
                state or Text("new", style="bold green"),
                label_text(hit.snippet),
            )
        new = sum(1 for hit in self.hits if not hit.pooled and not hit.judged)
        match = "any of the words" if result.any_word else "every word"
        if self.hits:
            line = (
                f"{len(self.hits)} found holding {match}, {new} not in the pool"
                " · enter on one grades it"
            )
        else:
            line = "nothing holds every word; try fewer words"
        status.update(Text(line, style="dim"))

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        self.run_search(message.value)
        if self.hits:
            self.query_one("#search-results", DataTable).focus()

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        message.stop()
        if 0 <= message.cursor_row < len(self.hits):
            self.dismiss((self.hits[message.cursor_row].doc_id, self.searched))

    def action_cancel(self) -> None:
        self.dismiss(None)
