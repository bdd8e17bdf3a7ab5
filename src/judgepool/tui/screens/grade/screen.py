"""The grade screen: one query and one pooled document at a time, graded with a digit.

Keys (also in the footer, on ``?`` and in the palette):

- ``0``–``9`` grade the document (only grades of the workspace's scale) and
  go to the next one; ``u`` marks it unsure (deferred) and goes on.
- ``z`` undoes this session's last judgment (the ledger gains an event that
  restores the state before it; nothing is deleted).
- ``e`` adds a note: to the current judgment, or to the grade about to be given
  (not counted as a judgment); the note shows on the document card.
- ``ctrl+g`` goes to a query of the queue by ID or words (`grade_team`).
- ``t`` settle order: the holes that decide which run is better first, ranked
  after each grade (`judgepool.tui.widgets.settle_order`); ``t``/``n`` leave it.
- ``n`` next unjudged; ``j``/``k`` (↓/↑) next/previous document, ``]``/``[`` query.
- ``r`` raw text (`grade_reading`), ``f`` search and judge (`grade_search`);
  holes sent from the audit come one after another (`grade_holes`).
- ``space``/``pgdn``, ``b``/``pgup``, ``home``/``end`` read through a long
  document a bounded part at a time (`judgepool.services.text_parts`).
- ``i`` the guidelines (`judgepool.tui.dialogs.guidelines`: also on first open
  and after a change), ``m`` your unsure and noted items (`..dialogs.own_items`);
  the status line counts grades and unsure marks apart (`..widgets.grade_status`),
  beside the time on the document and your rate (`..widgets.grade_clock`).

A grade is written by `judgepool.services.judging.judge` in the key's
handler: one short transaction, committed (and synced) before the handler
goes on, so "saved" on the status line is only ever shown for a grade that
is on disk, and no keystroke is processed before the previous grade's commit.
The run and rank that brought a document into the pool are never shown; nor,
grading blind (the default), another annotator's grade or note.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.widgets import Footer

from judgepool.core.errors import JudgepoolError
from judgepool.core.roles import Reach
from judgepool.display import literal
from judgepool.services import app_queries
from judgepool.services import judging as services
from judgepool.services.app_queries import ItemJudgment
from judgepool.services.text_parts import PartWhere
from judgepool.services.workspace import StorageError
from judgepool.tui.dialogs.guidelines import GuidelinesOffer
from judgepool.tui.dialogs.note import NoteDialog
from judgepool.tui.dialogs.own_items import OwnItemsDialog
from judgepool.tui.grading import GradingSession
from judgepool.tui.hosts import GradingHost, grading_host
from judgepool.tui.screens.grade.holes import HoleLoop
from judgepool.tui.screens.grade.keys import GRADE_BINDINGS
from judgepool.tui.screens.grade.reading import RawTextToggle
from judgepool.tui.screens.grade.search import SearchAndJudge
from judgepool.tui.screens.grade.goto import GradeTeamActions, undo_line
from judgepool.tui.screens.grade.status import (
    SETTLE_HINT,
    SessionTally,
    StatusLine,
    saved_line,
    status_line,
)
from judgepool.tui.widgets.grading_panels import (
    DocumentView,
    GradeScale,
    GradingProgress,
    InfoBar,
    QueryPanel,
    judgment_line,
)
from judgepool.tui.widgets.highlight import literal_text, query_terms
from judgepool.tui.widgets.settle_order import SettleOrder

NOTHING_TO_GRADE: Final = (
    "Nothing to grade yet. Build a pool of documents to judge "
    "(judgepool pool WORKSPACE --depth 10), or send unjudged documents here "
    "from the audit screen (key a)."
)


class GradeScreen(RawTextToggle, SearchAndJudge, HoleLoop, GradeTeamActions):
    """Grade pooled documents, one keystroke each."""

    REACH: ClassVar[Reach] = "grade"
    BINDINGS: ClassVar[list[BindingType]] = GRADE_BINDINGS

    def __init__(self, session: GradingSession) -> None:
        super().__init__(id="grade")
        self.session = session
        self._tally = SessionTally()  # the judgment events of this session
        self._pending_notes: dict[tuple[str, str], str] = {}
        self._status = Text("")
        self.guidelines = GuidelinesOffer(self)

    @property
    def host(self) -> GradingHost:
        """The app, as far as this screen uses it."""
        return grading_host(self.app)

    def compose(self) -> ComposeResult:
        yield InfoBar(id="grade-info", markup=False)
        yield QueryPanel(id="grade-query", markup=False)
        yield DocumentView(id="grade-document")
        yield GradeScale(id="grade-scale", markup=False)
        yield GradingProgress(id="grade-progress")
        yield SettleOrder(self.host.readers, id="grade-settle")
        yield StatusLine(id="grade-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#grade-query", QueryPanel).border_title = "Query"
        self.query_one("#grade-document", DocumentView).border_title = "Document"
        self._show()

    def on_screen_resume(self) -> None:
        self.guidelines.check()  # opened, or back from a dialog: the guidelines, if new

    @property
    def ready(self) -> bool:
        """The first document is on screen."""
        return self.is_mounted

    # -- showing -------------------------------------------------------------------

    def _show(self) -> None:
        session = self.session
        host = self.host
        info = self.query_one("#grade-info", InfoBar)
        document_view = self.query_one("#grade-document", DocumentView)
        current = session.current
        query = session.current_query
        if current is None or query is None or session.position is None:
            info.show(host.annotator, host.workspace_label, None, None)
            document_view.clear(NOTHING_TO_GRADE)
            self.query_one("#grade-scale", GradeScale).show(session.labels, None)
            self.query_one("#grade-progress", GradingProgress).show((0, 0), (0, 0))
            self.query_one(StatusLine).shown(None)
            self._update_status()
            return
        query_index, doc_index = session.position
        query_id, doc_id = current
        info.show(
            host.annotator,
            host.workspace_label,
            (query_index + 1, len(session.queries)),
            (doc_index + 1, len(query.doc_ids)),
        )
        terms = query_terms(query.text.text)
        self.query_one("#grade-query", QueryPanel).show(
            query_id, query.text, query.narrative, terms
        )
        # Read afresh: another annotator may have graded it meanwhile, and the
        # plan holds only whether others graded it, not who and how.
        judgment = app_queries.item_judgment(host.ws, host.annotator, *current, blind=host.blind)
        session.record(query_id, doc_id, judgment)
        # The same document again (after a note, an undo) keeps its part; else the first.
        part = document_view.part_of(doc_id)
        document = app_queries.document_part(host.ws, doc_id, "again", part)
        document_view.show(doc_id, document, judgment_line(judgment, session.labels), terms)
        self.query_one("#grade-scale", GradeScale).show(session.labels, judgment.own_grade)
        self.query_one("#grade-progress", GradingProgress).show(
            session.query_progress(), (session.total_judged, session.total)
        )
        self._update_status()
        self.query_one(StatusLine).shown(current)  # a new document: its time starts now

    def _update_status(self) -> None:
        waiting = self.session.current in self._pending_notes
        hint = None if self.query_one(SettleOrder).active else SETTLE_HINT
        self.query_one(StatusLine).show(status_line(self._status, waiting, self._tally), hint)

    def _say(self, *parts: tuple[str, str]) -> None:
        """Set the status line from (text, style) parts; data parts are shown literally."""
        status = Text()
        for text, style in parts:
            status.append_text(literal_text(text, style=style))
        self._status = status

    def _error(self, message: str) -> None:
        self._say((message, "bold red"))
        self.notify(literal(message), severity="error", markup=False)

    # -- judging -------------------------------------------------------------------

    def _judge(
        self, grade: int | None, unsure: bool, note: str | None = None, advance: bool = True
    ) -> bool:
        """Write one judgment of the current document; True once it is committed."""
        session = self.session
        if session.current is None:
            return False
        host = self.host
        query_id, doc_id = session.current
        note = note if note is not None else self._pending_notes.get((query_id, doc_id))
        try:
            event = services.judge(
                host.ws,
                query_id,
                doc_id,
                grade,
                annotator=host.annotator,
                unsure=unsure,
                note=note,
                seconds=round(self.query_one(StatusLine).clock.seconds(), 3) if advance else None,
            )
        except (JudgepoolError, StorageError) as exc:
            self._error(f"not saved: {exc}")
            self._update_status()
            return False
        self._pending_notes.pop((query_id, doc_id), None)
        before = session.judgment(query_id, doc_id)
        session.record(
            query_id,
            doc_id,
            ItemJudgment(event.grade, event.unsure, event.id, before.others_graded, before.others),
        )
        self._tally.add(event.id, (query_id, doc_id), note=not advance, unsure=event.unsure)
        self._status = saved_line(event.grade, session.labels, doc_id, with_note=bool(note))
        host.grade_saved(query_id, doc_id, event.grade)
        settle = self.query_one(SettleOrder)
        if advance and settle.active:
            # the next hole comes once the order is recomputed (SettleOrder.Next)
            settle.graded(query_id, doc_id, None if event.unsure else event.grade)
        elif advance and not self._next_hole(query_id, doc_id):
            session.advance()
        self._show()
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "grade":
            return parameters[0] in self.host.ws.scale
        if action in ("read", "part"):  # in the footer when there is more to read
            return bool(self.query("#grade-document").filter(".-pageable"))
        return True

    def action_grade(self, grade: int) -> None:
        # a grade outside the scale is refused by the service, with its reason
        self._judge(grade, unsure=False)

    def action_unsure(self) -> None:
        self._judge(None, unsure=True)

    def action_undo(self) -> None:
        session = self.session
        last = self._tally.pop()
        if last is None:
            self._say(("nothing to undo in this session", "yellow"))
            self._update_status()
            return
        host = self.host
        event_id, (query_id, doc_id) = last
        try:
            undone = app_queries.describe_event(host.ws, event_id)
            services.undo(host.ws, event_id, annotator=host.annotator)
            judgment = app_queries.item_judgment(host.ws, host.annotator, query_id, doc_id)
        except (JudgepoolError, StorageError) as exc:
            self._error(f"cannot undo: {exc}")
            self._update_status()
            return
        session.record(query_id, doc_id, judgment)
        self._status = undo_line(undone, doc_id, judgment)
        host.grade_saved(query_id, doc_id, judgment.own_grade)
        session.forget_resume()
        session.goto(query_id, doc_id)
        settle = self.query_one(SettleOrder)
        if settle.active:
            settle.start(self.host.contract)  # the queue knew the grade undone: build it again
        self._show()

    def action_note(self) -> None:
        session = self.session
        if session.current is None:
            return
        item = session.current

        def save(note: str | None) -> None:
            if not note or self.session.current != item:
                return
            judgment = self.session.judgment(*item)
            if judgment.own_grade is None and not judgment.own_unsure:
                self._pending_notes[item] = note
                self._say(("note kept: it is saved with your grade", "italic"))
                self._update_status()
                return
            self._judge(judgment.own_grade, judgment.own_unsure, note=note, advance=False)

        existing = self._pending_notes.get(item)
        if existing is None:
            own_event = session.judgment(*item).own_event
            existing = app_queries.note_of(self.host.ws, own_event) or ""
        self.app.push_screen(NoteDialog(item[1], existing), save)

    def _moved(self) -> None:
        self._status = Text("")
        self._show()

    def _move(self, step: Callable[[int], object], delta: int) -> None:
        self.session.forget_resume()
        step(delta)
        self._moved()

    def action_next_document(self) -> None:
        self._move(self.session.step, +1)

    def action_previous_document(self) -> None:
        self._move(self.session.step, -1)

    def action_next_query(self) -> None:
        self._move(self.session.step_query, +1)

    def action_previous_query(self) -> None:
        self._move(self.session.step_query, -1)

    def action_read(self, direction: int) -> None:
        """Scroll the document a screen down (1) or up (-1), else show the next or previous part."""
        if not self.query_one("#grade-document", DocumentView).page(direction):
            self.action_part("next" if direction > 0 else "previous")

    def action_part(self, where: PartWhere) -> None:
        """Show the first, last, next or previous part of the current document."""
        view = self.query_one("#grade-document", DocumentView)
        try:
            edge = view.turn(where, partial(app_queries.document_part, self.host.ws))
        except StorageError as exc:
            self._error(f"cannot read the document: {exc}")
        else:
            self._say((f"the {edge} of the document", "dim") if edge else ("", ""))
        self._update_status()

    def action_settle_order(self) -> None:
        """Enter settle order, or leave it for the pool order."""
        settle = self.query_one(SettleOrder)
        if settle.active:
            self._leave_settle_order()
            return
        settle.start(self.host.contract)
        self._say(("settle order: the holes that decide comparisons come first", "magenta"))
        self._update_status()

    def _leave_settle_order(self) -> None:
        self.query_one(SettleOrder).stop()
        self.session.resume()
        self._say(("back to the pool order", "bold"))
        self._show()

    def on_settle_order_next(self, message: SettleOrder.Next) -> None:
        message.stop()
        if message.query_id is None or message.doc_id is None:
            last = self.query_one(SettleOrder).last
            where = "in your queue" if last is not None and last.in_queue else "in the runs' top k"
            self._say((f"settle order: no unjudged document left {where}", "green"))
            self._update_status()
            return
        saved = self._status.plain if self._status.plain.startswith("saved") else ""
        self._bring(message.query_id, message.doc_id)
        self._say((saved + " · " if saved else "", ""), ("next: the hole that decides most", ""))
        self._show()

    def action_next_unjudged(self) -> None:
        if self.query_one(SettleOrder).active:
            self._leave_settle_order()
            return
        session = self.session
        session.forget_resume()
        if session.next_unjudged() is None:
            self._say(("every document of the pool is graded", "bold green"))
            self._update_status()
            return
        self._moved()

    # -- the annotator's own review ------------------------------------------------

    def action_guidelines(self) -> None:
        self.guidelines.show()

    def action_own_items(self) -> None:
        """Your unsure and noted items; the one chosen is shown, as a document sent here."""
        self.app.push_screen(OwnItemsDialog(), self._back_to)

    def _back_to(self, item: tuple[str, str] | None) -> None:
        if item is not None:
            self.queue_document(*item, said="back to your item: ")

    # -- documents sent from other screens ----------------------------------------

    def _bring(self, query_id: str, doc_id: str) -> None:
        """Make ``doc_id`` of ``query_id`` the current document, pooled or not."""
        session = self.session
        host = self.host
        if not session.has_query(query_id):
            session.add_query(app_queries.plan_query(host.ws, query_id))
        session.show(query_id, doc_id)
        session.record(
            query_id, doc_id, app_queries.item_judgment(host.ws, host.annotator, query_id, doc_id)
        )
