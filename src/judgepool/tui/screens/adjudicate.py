"""The adjudication screen (key ``D``): an adjudicator's queue of disagreements,
and what she needs to settle each: the query, every grade and the document.

Only adjudicators and leads open it (`judgepool.core.team.roles`); the app tells
anyone else why (`judgepool.services.adjudication`).

The table lists the items whose annotators' grades differ by at least the
minimum gap (``+``/``-`` change it; 1: any difference), unresolved first;
``r`` shows the resolved ones too, after them. Under it, the highlighted
item (``j``/``k`` or the arrows move): its query with its narrative, as on
the grade screen (`QueryPanel`), then the document (`DocumentView`): its
head lists every grade with its annotator, time and note, and the
adjudications, labelled as settling grades; then its text, repaired for
reading, query terms highlighted, a long one a bounded part at a time
(``space``/``b``, ``home``/``end``). An adjudicator sees every grade, even
when grading is blind: that is her job. Data text is shown literally.

A digit settles the item with that grade, recorded as the adjudicator's
adjudication (what the ``adjudicated`` consensus reads; written and
announced as every grade is, `judgepool.tui.grade_writer`), and the item
leaves the queue of unresolved ones. ``e`` adds a note to her settling
grade; given before she settles, it is kept and saved with the settling
grade.

The queue follows the workspace: a grade from another terminal (the app's
live refresh announces it, `judgepool.tui.messages.GradesSaved`; a burst is
one) re-reads it at once when the screen is showing, else when it is shown
again, the cursor staying on its item and the document on its part.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from judgepool.core.team.raters import kind_of_name
from judgepool.core.team.roles import Reach
from judgepool.core.terms.errors import JudgepoolError
from judgepool.services import app_queries
from judgepool.services.adjudication import adjudication_queue
from judgepool.services.disagreements import ListedDisagreement
from judgepool.services.text_parts import PartWhere
from judgepool.services.workspace import StorageError
from judgepool.tui import grade_writer
from judgepool.tui.dialogs.note import NoteDialog
from judgepool.tui.digit_keys import GradesByDigit
from judgepool.tui.hosts import grading_host
from judgepool.tui.messages import GradesSaved
from judgepool.tui.screens.adjudicate_keys import ADJUDICATE_BINDINGS
from judgepool.tui.widgets.grading_panels import DocumentView, QueryPanel
from judgepool.tui.widgets.highlight import id_text, literal_text, query_terms
from judgepool.tui.widgets.item_grades import every_grade

Item = tuple[str, str]  # (query ID, document ID)


class AdjudicateScreen(GradesByDigit, Screen[None]):
    """Settle the disagreements of the workspace, one digit each, reading what is settled."""

    REACH: ClassVar[Reach] = "adjudicate"
    DIGIT_ACTION: ClassVar[str] = "settle"

    BINDINGS: ClassVar[list[BindingType]] = ADJUDICATE_BINDINGS

    # The queue and the query take what they need, up to a fifth and three
    # tenths of the screen (80 × 24: three rows of the queue, the query and its
    # narrative on five lines); the document takes the rest, the most room.
    DEFAULT_CSS = """
    AdjudicateScreen #adjudicate-title { height: 1; padding: 0 1; background: $panel; }
    AdjudicateScreen #adjudicate-table { height: auto; max-height: 20%; }
    /* the table never has focus (the screen's keys move it): its cursor drawn as focused */
    AdjudicateScreen #adjudicate-table > .datatable--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    AdjudicateScreen #adjudicate-query {
        height: auto; max-height: 30%; border: round $primary; padding: 0 1;
    }
    AdjudicateScreen #adjudicate-document {
        height: 1fr; min-height: 5; border: round $accent; padding: 0 1;
    }
    AdjudicateScreen #adjudicate-status { height: 1; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(id="adjudicate")
        self.min_gap = 1
        self.with_resolved = False
        self.listed: tuple[ListedDisagreement, ...] = ()
        self._status = Text("")
        self._pending_notes: dict[Item, str] = {}  # notes waiting for the settling grade
        self._shown: Item | None = None  # the item whose query and document are shown

    def compose(self) -> ComposeResult:
        yield Static(id="adjudicate-title")
        table: DataTable[Text | str] = DataTable(id="adjudicate-table", cursor_type="row")
        # the screen's keys move the cursor: the table never takes the paging keys
        table.can_focus = False
        table.add_columns("query", "document", "grades", "gap", "status")
        yield table
        yield QueryPanel(id="adjudicate-query", markup=False)
        document = DocumentView(id="adjudicate-document")
        document.raw_key = None  # r lists the resolved disagreements here
        yield document
        yield Static(id="adjudicate-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#adjudicate-query", QueryPanel).border_title = "Query"
        self.query_one(
            "#adjudicate-document", DocumentView
        ).border_title = "Document and every grade"
        grading_host(self.app).follow_grades(self)
        self.reload()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.reload(keep=self._current_key())

    def on_grades_saved(self, _message: GradesSaved) -> None:
        if self.is_current:  # else read again when shown
            self.reload(keep=self._current_key())

    def _current_key(self) -> Item | None:
        found = self._current()
        return None if found is None else _key(found)

    # -- reading ---------------------------------------------------------------------

    def reload(self, keep: Item | None = None) -> None:
        """Read the queue again; the cursor stays on ``keep`` (or its row) if listed."""
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
        # a model's label only to a lead, under its name model:NAME
        models = grading_host(self.app).sees_model_grades()
        for found in self.listed:
            item = found.item
            grades = Text(", ").join(
                literal_text(f"{who} {grade}")
                for who, grade in item.grades
                if models or kind_of_name(who) != "model"
            )
            status = (
                Text(f"settled {item.adjudicated}", style="green")
                if found.resolved
                else Text("unresolved", style="bold yellow")
            )
            table.add_row(
                id_text(item.query_id),
                id_text(item.doc_id),
                grades,
                str(found.gap),
                status,
                key=f"{item.query_id}\x00{item.doc_id}",
            )
        where = [i for i, found in enumerate(self.listed) if _key(found) == keep]
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
        self._show_item()
        self._update_status()

    def _current(self) -> ListedDisagreement | None:
        table: DataTable[Text | str] = self.query_one("#adjudicate-table", DataTable)
        if not self.listed or not 0 <= table.cursor_row < len(self.listed):
            return None
        return self.listed[table.cursor_row]

    def _show_item(self) -> None:
        """Show the highlighted item's query, grades and document (the same item
        again, after a re-read: its document stays on its part and where it was)."""
        query_panel = self.query_one("#adjudicate-query", QueryPanel)
        view = self.query_one("#adjudicate-document", DocumentView)
        found = self._current()
        if found is None:
            self._shown = None
            query_panel.display = False
            view.clear("No disagreement to settle here.")
            return
        host = grading_host(self.app)
        query_id, doc_id = item = _key(found)
        again = item == self._shown
        try:
            query = app_queries.plan_query(host.ws, query_id)
            part = view.part_of(doc_id) if again else None
            document = app_queries.document_part(host.ws, doc_id, "again", part)
        except StorageError as exc:
            self._say(literal_text(f"cannot read the item: {exc}", style="bold red"))
            return
        terms = query_terms(query.text.text)
        query_panel.display = True
        query_panel.show(query_id, query.text, query.narrative, terms)
        view.show(
            doc_id,
            document,
            every_grade(found, host.ws.labels(), models=host.sees_model_grades()),
            terms,
            "keep" if again else "home",
        )
        self._shown = item

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        message.stop()
        self._show_item()
        self._update_status()

    # -- status ------------------------------------------------------------------------

    def _say(self, status: Text) -> None:
        self._status = status
        self._update_status()

    def _update_status(self) -> None:
        parts = [self._status] if self._status.plain else []
        key = self._current_key()
        if key is not None and key in self._pending_notes:
            parts.append(Text("a note waits for your settling grade", style="italic"))
        if not parts:
            parts.append(Text("a digit settles the highlighted item with that grade", style="dim"))
        line = Text(" · ", style="dim").join(parts)
        self.query_one("#adjudicate-status", Static).update(line)

    # -- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("read", "part"):  # in the footer when there is more to read
            return bool(self.query("#adjudicate-document").filter(".-pageable"))
        return super().check_action(action, parameters)  # the digits: the scale's grades

    def action_settle(self, grade: int) -> None:
        """Settle the highlighted disagreement with ``grade`` (and the note waiting for it)."""
        found = self._current()
        if found is None:
            self._say(Text("nothing to settle", style="yellow"))
            return
        item = query_id, doc_id = _key(found)
        note = self._pending_notes.get(item)
        saved = grade_writer.settle(self.app, item, grade, note=note)
        if isinstance(saved, grade_writer.NotSaved):
            self._say(literal_text(saved.words, style="bold red"))
            return
        self._pending_notes.pop(item, None)
        status = Text.assemble(("settled ", "bold green"), (f"{saved.grade}", "bold green"))
        status.append(" for ")
        status.append_text(literal_text(f"{query_id} {doc_id}"))
        if note:
            status.append(" with a note", style="italic")
        self._status = status
        self.reload(keep=item if self.with_resolved else None)

    def action_note(self) -> None:
        """Note the highlighted item: on the adjudicator's settling grade if she
        has settled it, else kept for the grade she settles it with."""
        found = self._current()
        if found is None:
            self._say(Text("nothing to note", style="yellow"))
            return
        item = _key(found)
        settling = self._settling_grade(item)
        existing = self._pending_notes.get(item)
        if existing is None:
            existing = (settling[1] or "") if settling is not None else ""
        self.app.push_screen(NoteDialog(item[1], existing), partial(self._save_note, item))

    def _settling_grade(self, item: Item) -> tuple[int, str | None] | None:
        """The adjudicator's own settling grade of ``item`` and its note, if she
        has settled it (as the queue last read it)."""
        annotator = grading_host(self.app).annotator
        for found in self.listed:
            if _key(found) == item:
                for grade in found.details:
                    if grade.adjudication and grade.annotator == annotator:
                        return grade.grade, grade.note
        return None

    def _save_note(self, item: Item, note: str | None) -> None:
        if not note:
            return
        settling = self._settling_grade(item)
        if settling is None:
            self._pending_notes[item] = note
            self._say(Text(""))  # the status line says a note waits for the grade
            return
        saved = grade_writer.settle(
            self.app, item, settling[0], note=note, refused_as="note not saved"
        )
        if isinstance(saved, grade_writer.NotSaved):
            self._say(literal_text(saved.words, style="bold red"))
            return
        status = Text("note saved with your settling grade for ", style="green")
        status.append_text(literal_text(f"{item[0]} {item[1]}"))
        self._status = status
        self.reload(keep=item)

    def action_move(self, step: int) -> None:
        """Highlight the next (1) or previous (-1) disagreement of the queue."""
        table: DataTable[Text | str] = self.query_one("#adjudicate-table", DataTable)
        if self.listed:
            self._status = Text("")
            table.move_cursor(row=max(0, min(len(self.listed) - 1, table.cursor_row + step)))

    def action_read(self, direction: int) -> None:
        """Scroll the document a screen down (1) or up (-1), else show the next or previous part."""
        if not self.query_one("#adjudicate-document", DocumentView).page(direction):
            self.action_part("next" if direction > 0 else "previous")

    def action_part(self, where: PartWhere) -> None:
        """Show the first, last, next or previous part of the highlighted document."""
        view = self.query_one("#adjudicate-document", DocumentView)
        try:
            edge = view.turn(where, partial(app_queries.document_part, grading_host(self.app).ws))
        except StorageError as exc:
            self._say(literal_text(f"cannot read the document: {exc}", style="bold red"))
            return
        self._say(Text(f"the {edge} of the document", style="dim") if edge else Text(""))

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
        self.reload(keep=self._current_key())

    def action_reload(self) -> None:
        self._status = Text("read again", style="dim")
        self.reload(keep=self._current_key())


def _key(found: ListedDisagreement) -> Item:
    return found.item.query_id, found.item.doc_id
