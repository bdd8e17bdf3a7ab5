"""The judgepool app: the shell that holds the workspace and the screens.

Interface shared by the screens (grade, audit, scores, help); the screens see
it through the protocols of `judgepool.tui.hosts` and never import this module:

- ``create_app(workspace, annotator)`` builds a `JudgepoolApp`; the command
  line and the tests both use it. Opening a missing or foreign file raises
  `InputError` here, before anything is drawn.
- ``app.workspace: Path`` the workspace file; ``app.annotator: str`` who
  grades; ``app.ws`` the app's open `Workspace`, for the main thread only (a
  thread worker borrows a read connection for its job with
  ``with app.readers.lease() as ws:``, see `judgepool.tui.readers`).
- On a workspace this process cannot write (``app.ws.read_only``) the app
  opens all the same: ``app.workspace_label`` (the grade screen's info line)
  says "read-only", a notice says why, and a grade is refused with that
  reason; nothing is written.
- ``app.contract`` a reactive `Contract` (from the workspace's default): a
  screen sets it to change the contract and follows it with ``self.watch``.
- Screens by name: ``"grade"`` at start; ``"help"``, ``"audit"``, ``"scores"``,
  ``"adjudicate"`` (``D``, adjudicators and leads) and ``"agreement"`` (``K``)
  through Textual's ``SCREENS``, imported and created when first shown (out
  of start-up); the keys that show them: `judgepool.tui.app_keys`. ``ctrl+p``:
  the palette (`judgepool.tui.palette`).
- ``app.queue_for_grading(query_id, doc_id)`` shows that document on the grade
  screen at once; after it is graded, grading returns to where it was.
  ``app.queue_holes(holes)`` does the same for a run's holes in order: after
  each is judged the next comes (`judgepool.tui.screens.grade.holes`).
- A judgment is written one way, from whichever screen gives it (the grade
  screen, the comparison's side-by-side lists, the adjudication screen):
  `judgepool.tui.grade_writer`, on ``app.ws`` as ``app.annotator``, taken
  into ``app.session`` (the grading plan), a refusal shown as an error notice.
- After every judgment event is committed (a grade, unsure, a note, an undo,
  a settling grade) the writer calls ``app.grade_saved(query_id, doc_id,
  grade)``, which publishes `judgepool.tui.messages.GradeSaved` on
  ``app.grade_saved_signal``.
  A view follows them with ``app.follow_grades(view)`` on mount: it is posted
  a `judgepool.tui.messages.GradesSaved` message for each (a burst merged
  into one). Its handler runs on the event loop while the annotator grades,
  so it should be cheap: mark the view stale and recompute in an exclusive
  thread worker (`judgepool.tui.background`), or when it is shown again.
- Grades written by other terminals and processes are taken in within half a
  second (`judgepool.tui.live`): into the session, the grade screen, and as
  `GradeSaved` announcements; ``f5`` re-reads the whole plan at once.
- ``app.blind``: grading blind (the workspace's setting, default on) shows no
  other annotator's grade or note. ``q`` with a note waiting asks first.
- ``app.guard``: the role the annotator acts in (`judgepool.tui.reach.RoleGuard`),
  read again whenever a screen is to be shown. Every screen and dialog is shown through
  `push_screen` or `switch_screen`, which refuse one the role may not open
  (`judgepool.tui.reach`), whatever asked for it: strictly in served sessions
  (``app.served``), and as a guard of the workflow in a local terminal, whose
  user owns the file.

Longer than 400 lines because this docstring is the one map of the interface
every screen sees, and the shell's code, about 400 lines, holds only what a
screen cannot do for itself: screens, roles, the workspace connection, quit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.dom import DOMNode
from textual.driver import Driver
from textual.reactive import var
from textual.screen import ModalScreen, Screen
from textual.signal import Signal

from judgepool.core.team.roles import Reach
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError, JudgepoolError
from judgepool.services import adjudication
from judgepool.services.live import LiveScores
from judgepool.services.settings import blind_grading
from judgepool.services.workspace import (
    StorageError,
    Workspace,
    WorkspaceReadOnly,
    open_workspace,
)
from judgepool.tui.app_keys import APP_BINDINGS
from judgepool.tui.grading import GradingSession, read_session
from judgepool.tui.live import LiveRefresh
from judgepool.tui.messages import GradeSaved, GradesSaved
from judgepool.tui.palette import app_commands
from judgepool.tui.reach import RoleGuard, nothing_shown, reach_of
from judgepool.tui.readers import ReadConnections
from judgepool.tui.scores_ahead import score_ahead, worth_scoring_ahead
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.help import HelpScreen
from judgepool.tui.screens.sign_in import SignInScreen

if TYPE_CHECKING:
    from judgepool.services.review import Scoreboard

# The app's actions a served session may run before it has signed in.
_BEFORE_SIGN_IN: Final = frozenset({"focus_next", "focus_previous", "quit", "bell"})
SCREEN_TITLES: Final[dict[str, str]] = {
    "grade": "Grade",
    "audit": "Audit",
    "scores": "Scores",
}


def _audit_screen() -> Screen[None]:
    # imported on first use: the review screens are most of the app's import time
    from judgepool.tui.screens.audit import AuditScreen

    return AuditScreen()


def _adjudicate_screen() -> Screen[None]:
    from judgepool.tui.screens.adjudicate import AdjudicateScreen

    return AdjudicateScreen()


def _agreement_screen() -> Screen[None]:
    from judgepool.tui.screens.agreement import AgreementScreen

    return AgreementScreen()


def _scores_screen() -> Screen[None]:
    from judgepool.tui.screens.scores import ScoresScreen

    return ScoresScreen()


class JudgepoolApp(App[None]):
    """Grade, audit and review one workspace from the keyboard."""

    CSS_PATH = "app.tcss"
    TITLE = "judgepool"

    # Created by Textual when first shown; "grade" needs the plan and is installed at start.
    SCREENS: ClassVar[dict[str, Callable[[], Screen[Any]]]] = {
        "help": HelpScreen,
        "audit": _audit_screen,
        "scores": _scores_screen,
        "adjudicate": _adjudicate_screen,
        "agreement": _agreement_screen,
    }

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    contract: var[Contract] = var(Contract())
    """The contract every score on screen is computed under."""

    def __init__(
        self,
        workspace: Path,
        annotator: str,
        session: GradingSession | None,
        ws: Workspace | None = None,
        *,
        sign_in_first: bool = False,
    ) -> None:
        super().__init__()
        self.workspace = Path(workspace)
        self.annotator = annotator
        # Served sessions (judgepool serve) open on the sign-in screen: until a
        # name and token match there is no annotator and no plan, and the
        # app's actions are refused (`check_action`).
        if session is None and not sign_in_first:
            raise ValueError("the app needs a grading plan unless it signs in first")
        self.ws: Workspace = ws if ws is not None else open_workspace(self.workspace)
        self.guard = RoleGuard(self.ws, annotator, served=sign_in_first)
        self.session: GradingSession = session  # type: ignore[assignment]
        # The app's one connection for its main thread (the grade screen reads
        # and writes on it); given by the caller when it read the plan on it.
        self.readers = ReadConnections(self.workspace)
        # A saved default RE2 cannot run (saved when patterns ran in Python's
        # re) would keep the app from opening, where it is changed: the plain
        # contract instead, said once grading opens.
        self._contract_refused: str | None = None
        try:
            default = self.ws.default_contract()
        except ContractError as exc:
            default, self._contract_refused = Contract(scale=self.ws.scale), str(exc)
        self.set_reactive(JudgepoolApp.contract, default)
        self.grade_saved_signal: Signal[GradeSaved] = Signal(self, "grade-saved")
        self.quitting = False
        self.blind = blind_grading(self.ws)
        self.live = LiveRefresh(self)
        # every run scored against the judgments, kept up to date by the scores
        # screen and scored ahead for a lead while grading (`tui.scores_ahead`)
        self.live_scores = LiveScores()
        self._quit_asked = -math.inf  # when q last asked about a waiting note

    def get_driver_class(self) -> type[Driver]:
        """Textual's choice, except under textual-serve: there the served
        session's driver, which ends the process when the page goes."""
        chosen = super().get_driver_class()
        # late: only starting the app asks, and only textual-serve needs ours
        from textual.drivers.web_driver import WebDriver

        if chosen is WebDriver:
            from judgepool.tui.served_driver import ServedDriver

            return ServedDriver
        return chosen

    def sees_model_grades(self) -> bool:
        """Whether a model's labels are shown (labelled as a model's) where
        people's grades are: to leads only, whose work is to weigh them; never to
        anyone grading, who would anchor on them."""
        return self.guard.allows("review")

    @property
    def workspace_label(self) -> str:
        """The workspace's file name as the screens show it, saying when it is read-only."""
        return self.workspace.name + (" (read-only)" if self.ws.read_only else "")

    # -- screens ----------------------------------------------------------------

    def on_mount(self) -> None:
        if self.signing_in:
            self.push_screen(SignInScreen(self.ws), self._signed_in)
            return
        self._open_grading()

    def _signed_in(self, name: str | None) -> None:
        """The sign-in screen matched ``name``: grade as them, as ``judgepool tui`` opens."""
        if name is None:
            return
        self.annotator = name
        self.session = read_session(self.ws, name)
        self.guard.sign_in(name)
        self._open_grading()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Before sign-in, only moving between the two fields and quitting; the
        keys of screens outside the role are neither shown nor run."""
        if self.signing_in and action not in _BEFORE_SIGN_IN:
            return False
        if action == "show_screen" and parameters:
            return self.guard.allows(reach_of(str(parameters[0])))
        if action == "adjudicate":
            return self.guard.allows("adjudicate")
        return super().check_action(action, parameters)

    # -- roles (`judgepool.tui.reach`) --------------------------------------------

    @property
    def signing_in(self) -> bool:
        """A served session no name has signed in to yet."""
        return not self.guard.signed_in

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        """Show ``screen`` over the current one, unless the role may not open it
        (before sign-in: only the sign-in screen)."""
        if self.signing_in and isinstance(screen, SignInScreen):
            return super().push_screen(screen, *args, **kwargs)
        reach = reach_of(screen)
        if not self.guard.reaches(reach):
            self._refuse(reach)
            return nothing_shown(kwargs.get("wait_for_dismiss", False))
        return super().push_screen(screen, *args, **kwargs)

    def switch_screen(self, screen: Any) -> Any:
        """Show ``screen`` instead of the current one, unless the role may not open it."""
        reach = reach_of(screen)
        if not self.guard.reaches(reach):
            self._refuse(reach)
            return nothing_shown(False)
        return super().switch_screen(screen)

    def _refuse(self, reach: Reach) -> None:
        self.notify(
            self.guard.refusal(reach),
            title="Not open to your role",
            severity="warning",
            timeout=8,
            markup=False,
        )

    def _open_grading(self) -> None:
        self.install_screen(GradeScreen(self.session), "grade")
        self.push_screen("grade")
        self.live.start()
        self.call_after_refresh(self._score_ahead)
        if self._contract_refused is not None:
            self.notify(
                self._contract_refused,
                title="Scoring under the plain contract",
                severity="warning",
                timeout=30,
                markup=False,
            )
        if self.ws.read_only:
            self.notify(
                f"{WorkspaceReadOnly(self.workspace).reason}: you can read, audit and score, "
                "but grades cannot be saved.",
                title="This workspace is read-only",
                severity="warning",
                timeout=30,
                markup=False,
            )

    def _score_ahead(self) -> None:
        if self.guard.allows("review") and worth_scoring_ahead(self.ws):
            score_ahead(self, self.readers, self.live_scores, self.contract)

    def on_unmount(self) -> None:
        self.close_workspace()

    def close_workspace(self) -> None:
        """Close the workers' connections and the app's own (idempotent)."""
        self.readers.close()
        self.ws.close()

    async def action_quit(self) -> None:
        """Quit: keys typed after ``q`` (already queued) open no screen. A note
        waiting for its document's grade is not dropped unasked: the first ``q``
        says so, a second one quits."""
        installed = self.is_screen_installed("grade")
        waiting = self.get_screen("grade", GradeScreen).waiting_notes() if installed else 0
        # a second q within the notice's ten seconds quits; later, it asks again
        if waiting and time.monotonic() - self._quit_asked > 10:
            self._quit_asked = time.monotonic()
            self.notify(
                f"{waiting} note{'s' if waiting > 1 else ''} typed for a document not yet "
                "graded would be lost: grade it to save the note, or press q again to quit "
                "without it.",
                title="A note is not saved yet",
                severity="warning",
                timeout=10,
                markup=False,
            )
            return
        self.quitting = True
        await super().action_quit()

    def action_reread(self) -> None:
        """Re-read the workspace now (f5): the grading plan whole, and announce
        what other connections wrote."""
        self.live.poll(force=True)
        self.notify("re-read the workspace", timeout=2)

    def store_changed(self) -> None:
        """Other connections wrote to the workspace: show the session as it now is."""
        if self.is_screen_installed("grade"):
            self.get_screen("grade", GradeScreen).store_changed()

    def action_show_screen(self, name: str) -> None:
        """Switch to the grade, audit or scores screen, closing any dialog first."""
        if self.quitting:
            # a screen mounted while the app shuts down gets no children, and
            # its first query fails: the traceback a user saw after "s q a"
            return
        screen = self.get_screen(name)
        while len(self.screen_stack) > 1 and isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if self.screen is not screen:
            self.switch_screen(screen)

    def action_adjudicate(self) -> None:
        """Open the adjudication screen; anyone not an adjudicator is told why."""
        if not self.guard.reaches("adjudicate"):
            self.notify(
                adjudication.refusal(self.annotator),
                title="Adjudication is for adjudicators",
                severity="warning",
                timeout=15,
                markup=False,
            )
            return
        self.action_show_screen("adjudicate")

    def action_help(self) -> None:
        """Open the list of keys (the help screen closes itself)."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen("help")

    def queue_for_grading(self, query_id: str, doc_id: str) -> None:
        """Show ``doc_id`` of ``query_id`` on the grade screen now."""
        self.action_show_screen("grade")
        self.get_screen("grade", GradeScreen).queue_document(query_id, doc_id)

    def queue_holes(self, holes: Sequence[tuple[str, str]]) -> None:
        """Show the first of ``holes`` on the grade screen now; after each is
        judged the next comes (the audit-to-grading loop)."""
        self.action_show_screen("grade")
        self.get_screen("grade", GradeScreen).queue_holes(holes)

    def store_scores(self, board: Scoreboard) -> None:
        """Store the scores screen's scores not stored yet as evaluations, like
        the command line's, saying so (on the app's connection: it writes)."""
        # imported here: scoring is the review screens' import time, not start-up's
        from judgepool.services.app_evaluations import store_scoreboard

        done = store_scoreboard(self.ws, board)
        self.notify(done.line(), severity=done.severity, markup=False)

    def save_default_contract(self, contract: Contract) -> None:
        """Save ``contract`` as the workspace's default contract (the command
        line's and the app's at start), saying so, or why it was not: a lead's
        act, whoever's screen asks."""
        if not self.guard.reaches("settings"):
            self._refuse("settings")
            return
        try:
            self.ws.set_default_contract(contract)
        except (JudgepoolError, StorageError) as exc:
            self.notify(f"not saved as the default: {exc}", severity="error", markup=False)
            return
        self.notify("saved as the workspace's default contract", timeout=4)

    def grade_saved(self, query_id: str, doc_id: str, grade: int | None) -> None:
        """Tell the screens that follow judgments that a judgment event is on disk."""
        self.grade_saved_signal.publish(GradeSaved(query_id, doc_id, grade))

    def follow_grades(self, node: DOMNode) -> None:
        """Post `GradesSaved` to ``node`` after every judgment event, as long as
        it is mounted: at once, as a message (the handling waits its turn)."""
        self.grade_saved_signal.subscribe(
            node, lambda saved: node.post_message(GradesSaved([saved])), immediate=True
        )

    # -- command palette ----------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from app_commands(
            self, screen, SCREEN_TITLES, self.action_show_screen, self.action_adjudicate,
            self.action_help, self.guard.allows,
        )  # fmt: skip
        yield from super().get_system_commands(screen)


def create_app(
    workspace: Path,
    annotator: str,
    session: GradingSession | None = None,
    ws: Workspace | None = None,
    *,
    sign_in_first: bool = False,
) -> JudgepoolApp:
    """The app on ``workspace`` for ``annotator``: the one factory the CLI and tests use.
    ``session``: the grading plan, when the caller has read it already (the
    command line does, before importing Textual); otherwise it is read here,
    before the app starts. Either way there is one plan, read once, on the
    calling thread: on a thread beside Textual's start-up, SQLite's handing
    back the interpreter lock on every row made it three to four times slower.
    ``ws``: the caller's open connection to the workspace, which the app takes
    over (and closes); otherwise the app opens its own. ``sign_in_first``: a
    served session, which opens on the sign-in screen and grades as the name
    signed in (``annotator`` is then unused until then)."""
    workspace = Path(workspace)
    if ws is None:
        ws = open_workspace(workspace)
    try:
        if session is None and not sign_in_first:
            session = read_session(ws, annotator)
        return JudgepoolApp(workspace, annotator, session, ws, sign_in_first=sign_in_first)
    except BaseException:
        ws.close()
        raise
