"""The grade screen: one query and one pooled document at a time, graded with a digit.

Keys (also in the footer, on ``?`` and in the palette; bound in `keys`):

- ``0``–``9`` grade the document (only grades of the workspace's scale) and
  go to the next one; ``u`` marks it unsure (deferred) and goes on.
- ``z`` undoes this session's last judgment (the ledger gains an event that
  restores the state before it; nothing is deleted).
- ``e`` adds a note: to the current judgment, or to the grade about to be given
  (not counted as a judgment); the note shows on the document card.
- ``ctrl+g`` goes to a query of the queue by ID or words (`goto`).
- ``t`` settle order: the holes that decide which run is better first, ranked
  after each grade (`judgepool.tui.widgets.settle_order`, whose words name no
  run, pair or verdict to a blind grader); ``t``/``n`` leave it.
- ``n`` next unjudged; ``j``/``k`` (↓/↑) next/previous document, ``]``/``[`` query.
- ``r`` raw text, ``space``/``pgdn``, ``b``/``pgup``, ``home``/``end`` read
  through a long document a bounded part at a time (`reading`).
- ``f`` search and judge (`search`); holes sent from the audit come one after
  another (`holes`).
- ``i`` the guidelines (`judgepool.tui.dialogs.guidelines`: also on first open
  and after a change), ``m`` your unsure and noted items (`..dialogs.own_items`);
  the status line counts grades and unsure marks apart (`status`), beside the
  time on the document and your rate (`clock`).

A grade is written in the key's handler (`judging`, through the app's one
writer, `judgepool.tui.grade_writer`): one short transaction, committed (and
synced) before the handler goes on, so "saved" on the status line is only
ever shown for a grade that is on disk, and no keystroke is processed before
the previous grade's commit. The run and rank that brought a document into
the pool are never shown; nor, grading blind (the default), another
annotator's grade or note.

The screen holds the grading session (where the annotator is) and the
status line's message, shows the current document across its panels, and
hands each key to the part that does the work: `judging.SessionJudgments`,
`holes.HoleQueue`, `goto.GotoQuery`, `reading.Reading`, `search` and the
settle order's widget, which tells the screen the next hole with a message.
Each part is given what it uses and returns what the status line says; none
reaches into the screen.

Longer than 400 lines because each key's flow reads here whole, in a few
lines each (what it asks of its part, what the status line then says, what
is shown), while the work is done in the parts; cut in two, the halves would
have to share the session, the status line's message and the panels again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Footer

from judgepool.core.team.roles import Reach
from judgepool.core.terms.errors import JudgepoolError
from judgepool.display import literal
from judgepool.services import app_queries
from judgepool.services.text_parts import PartWhere
from judgepool.services.workspace import StorageError
from judgepool.tui.dialogs.guidelines import GuidelinesOffer
from judgepool.tui.dialogs.note import NoteDialog
from judgepool.tui.dialogs.own_items import OwnItemsDialog
from judgepool.tui.dialogs.search import Found
from judgepool.tui.digit_keys import GradesByDigit
from judgepool.tui.grade_writer import NotSaved
from judgepool.tui.grading import GradingSession
from judgepool.tui.hosts import GradingHost, grading_host
from judgepool.tui.screens.grade.goto import GotoQuery
from judgepool.tui.screens.grade.holes import SENT, HoleQueue
from judgepool.tui.screens.grade.judging import SessionJudgments
from judgepool.tui.screens.grade.keys import GRADE_BINDINGS
from judgepool.tui.screens.grade.reading import Reading
from judgepool.tui.screens.grade.search import NO_QUERY, add_found, search_dialog, search_off
from judgepool.tui.screens.grade.status import (
    SETTLE_HINT,
    StatusLine,
    Words,
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

Item = tuple[str, str]

NOTHING_TO_GRADE: Final = (
    "Nothing to grade yet. Build a pool of documents to judge "
    "(judgepool pool WORKSPACE --depth 10), or send unjudged documents here "
    "from the audit screen (key a)."
)


class GradeScreen(GradesByDigit, Screen[None]):
    """Grade pooled documents, one keystroke each."""

    REACH: ClassVar[Reach] = "grade"
    BINDINGS: ClassVar[list[BindingType]] = GRADE_BINDINGS

    def __init__(self, session: GradingSession) -> None:
        super().__init__(id="grade")
        self.session = session
        self.judgments = SessionJudgments()
        self.hole_queue = HoleQueue()
        self.goto = GotoQuery()
        self.reading = Reading(
            QueryPanel(id="grade-query", markup=False), DocumentView(id="grade-document")
        )
        self.guidelines = GuidelinesOffer(self)
        self._status = Text("")

    @property
    def host(self) -> GradingHost:
        """The app, as far as this screen uses it."""
        return grading_host(self.app)

    @property
    def holes(self) -> tuple[Item, ...]:
        """The holes sent from the audit and not yet judged, the one on screen first."""
        return self.hole_queue.holes

    def compose(self) -> ComposeResult:
        yield InfoBar(id="grade-info", markup=False)
        yield self.reading.query
        yield self.reading.document
        yield GradeScale(id="grade-scale", markup=False)
        yield GradingProgress(id="grade-progress")
        yield SettleOrder(self.host.readers, id="grade-settle")
        yield StatusLine(id="grade-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.reading.query.border_title = "Query"
        self.reading.document.border_title = "Document"
        self._show()

    def on_screen_resume(self) -> None:
        self.guidelines.check()  # opened, or back from a dialog: the guidelines, if new

    @property
    def ready(self) -> bool:
        """The first document is on screen."""
        return self.is_mounted

    # -- the app's requests ---------------------------------------------------------

    def queue_document(self, query_id: str, doc_id: str, said: str = SENT) -> None:
        """Show ``doc_id`` of ``query_id`` now, saying ``said`` and its ID; after
        it is graded, grading returns to where the annotator was."""
        self._bring(query_id, doc_id)
        self._say((said, "bold"), (doc_id, ""))
        self._show()

    def queue_holes(self, holes: Sequence[Item]) -> None:
        """Show the first of ``holes`` now and queue the rest (`holes`)."""
        if not holes:
            return
        said = self.hole_queue.send(holes)
        self._bring(*holes[0])
        self._say(*said)
        self._show()

    def waiting_notes(self) -> int:
        """How many notes wait for their document's grade (lost on quit)."""
        return len(self.judgments.waiting)

    def store_changed(self) -> None:
        """Other connections wrote: show the session's counts and the current
        document's judgments as they now are (the document stays), and the
        guidelines if a lead changed them."""
        if self.is_mounted:
            self._show()
            self.guidelines.check()

    # -- showing -------------------------------------------------------------------

    def _show(self) -> None:
        session = self.session
        host = self.host
        info = self.query_one("#grade-info", InfoBar)
        document_view = self.reading.document
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
        self.reading.query.show(query_id, query.text, query.narrative, terms)
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
        waiting = self.session.current in self.judgments.waiting
        hint = None if self.query_one(SettleOrder).active else SETTLE_HINT
        line = status_line(self._status, waiting, self.judgments.tally)
        self.query_one(StatusLine).show(line, hint)

    def _say(self, *parts: Words) -> None:
        """Set the status line from (text, style) parts; data parts are shown literally."""
        status = Text()
        for text, style in parts:
            status.append_text(literal_text(text, style=style))
        self._status = status

    def _error(self, message: str) -> None:
        self._say((message, "bold red"))
        self.notify(literal(message), severity="error", markup=False)

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

    # -- judging -------------------------------------------------------------------

    def _judge(
        self, grade: int | None, unsure: bool, note: str | None = None, advance: bool = True
    ) -> bool:
        """Write one judgment of the current document; True once it is committed."""
        session = self.session
        item = session.current
        if item is None:
            return False
        seconds = round(self.query_one(StatusLine).clock.seconds(), 3) if advance else None
        saved = self.judgments.write(
            self.app, item, grade, unsure=unsure, note=note, seconds=seconds, adds_note=not advance
        )
        if isinstance(saved, NotSaved):  # the writer's notice said so
            self._say((saved.words, "bold red"))
            self._update_status()
            return False
        self._status = saved_line(saved.grade, session.labels, item[1], with_note=saved.noted)
        settle = self.query_one(SettleOrder)
        if advance and settle.active:
            # the next hole comes once the order is recomputed (SettleOrder.Next)
            settle.graded(*item, None if saved.unsure else saved.grade)
        elif advance and not self._next_hole(item):
            session.advance()
        self._show()
        return True

    def _next_hole(self, item: Item) -> bool:
        """After ``item`` is judged: bring the next queued hole the annotator has
        not judged; False when it was not a queued hole, or none is left
        (grading goes on as it would have)."""
        after = self.hole_queue.after(item, lambda hole: self.session.judgment(*hole).judged)
        if after is None:
            return False
        saved = self._status.plain + " · " if self._status.plain else ""
        self._say((saved, ""), *after.words)
        if after.next is None:
            return False
        self._bring(*after.next)
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("read", "part"):  # in the footer when there is more to read
            return self.reading.pageable
        return super().check_action(action, parameters)  # the digits: the scale's grades

    def action_grade(self, grade: int) -> None:
        # a grade outside the scale is refused by the service, with its reason
        self._judge(grade, unsure=False)

    def action_unsure(self) -> None:
        self._judge(None, unsure=True)

    def action_undo(self) -> None:
        session = self.session
        undone = self.judgments.undo(self.app)
        if isinstance(undone, NotSaved):  # the writer's notice said so
            self._say((undone.words, "bold red"))
            self._update_status()
            return
        if undone is None:
            self._say(("nothing to undo in this session", "yellow"))
            self._update_status()
            return
        (query_id, doc_id), self._status = undone
        session.forget_resume()
        session.goto(query_id, doc_id)
        settle = self.query_one(SettleOrder)
        if settle.active:
            settle.start(self.host.contract)  # the queue knew the grade undone: build it again
        self._show()

    def action_note(self) -> None:
        item = self.session.current
        if item is None:
            return
        existing = self.judgments.waiting.get(item)
        if existing is None:
            own_event = self.session.judgment(*item).own_event
            existing = app_queries.note_of(self.host.ws, own_event) or ""
        self.app.push_screen(NoteDialog(item[1], existing), partial(self._noted, item))

    def _noted(self, item: Item, note: str | None) -> None:
        if not note or self.session.current != item:
            return
        judgment = self.session.judgment(*item)
        if judgment.own_grade is None and not judgment.own_unsure:
            self.judgments.waiting[item] = note
            self._say(("note kept: it is saved with your grade", "italic"))
            self._update_status()
            return
        self._judge(judgment.own_grade, judgment.own_unsure, note=note, advance=False)

    # -- moving --------------------------------------------------------------------

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

    def action_goto_query(self) -> None:
        """Ask for a query ID or words, and go to the first match after the
        current query, at its first document to grade."""
        self.app.push_screen(self.goto.dialog(), self._go_to)

    def _go_to(self, wanted: str | None) -> None:
        if not wanted:
            return
        refused = self.goto.go(self.session, wanted)
        if refused is not None:
            self._say(*refused)
            self._update_status()
            return
        self._moved()

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

    # -- reading -------------------------------------------------------------------

    def action_raw_text(self) -> None:
        """Show the query and document as stored, or repaired for reading."""
        self.reading.toggle_raw()
        self._show()

    def action_read(self, direction: int) -> None:
        """Scroll the document a screen down (1) or up (-1), else show the next or previous part."""
        if not self.reading.page(direction):
            self.action_part("next" if direction > 0 else "previous")

    def action_part(self, where: PartWhere) -> None:
        """Show the first, last, next or previous part of the current document."""
        try:
            said = self.reading.turn(where, partial(app_queries.document_part, self.host.ws))
        except StorageError as exc:
            self._error(f"cannot read the document: {exc}")
        else:
            self._say(said)
        self._update_status()

    # -- search and judge ----------------------------------------------------------

    def action_search(self) -> None:
        """Search the documents for the current query and grade what is found."""
        query = self.session.current_query
        refused = NO_QUERY if query is None else search_off(self.host)
        if query is None or refused is not None:
            self._say(refused or NO_QUERY)
            self._update_status()
            return
        self.app.push_screen(search_dialog(self.host, query), partial(self._found, query.id))

    def _found(self, query_id: str, found: Found | None) -> None:
        if found is None:
            return
        try:
            said, shown = add_found(self.host, query_id, found)
            self._say(*said)
        except (JudgepoolError, StorageError) as exc:
            shown = False
            self._error(f"not added to the pool: {exc}")
        if not shown:  # proposed, judged or refused: the current document stays
            return self._update_status()
        self._bring(query_id, found[0])
        self._show()

    # -- settle order --------------------------------------------------------------

    def action_settle_order(self) -> None:
        """Enter settle order, or leave it for the pool order."""
        settle = self.query_one(SettleOrder)
        if settle.active:
            self._leave_settle_order()
            return
        settle.start(self.host.contract)
        self._say((settle.start_words(), "magenta"))
        self._update_status()

    def _leave_settle_order(self) -> None:
        self.query_one(SettleOrder).stop()
        self.session.resume()
        self._say(("back to the pool order", "bold"))
        self._show()

    def on_settle_order_next(self, message: SettleOrder.Next) -> None:
        message.stop()
        settle = self.query_one(SettleOrder)
        if message.query_id is None or message.doc_id is None:
            self._say((settle.none_left_words(), "green"))
            self._update_status()
            return
        saved = self._status.plain if self._status.plain.startswith("saved") else ""
        self._bring(message.query_id, message.doc_id)
        self._say((saved + " · " if saved else "", ""), (settle.next_words(), ""))
        self._show()

    # -- the annotator's own review ------------------------------------------------

    def action_guidelines(self) -> None:
        self.guidelines.show()

    def action_own_items(self) -> None:
        """Your unsure and noted items; the one chosen is shown, as a document sent here."""
        self.app.push_screen(OwnItemsDialog(), self._back_to)

    def _back_to(self, item: Item | None) -> None:
        if item is not None:
            self.queue_document(*item, said="back to your item: ")
