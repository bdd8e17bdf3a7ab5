"""The app shell: the factory, screen switching, help, the command palette,
"judge the holes" (`queue_for_grading`) and the `GradesSaved` message."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import ComposeResult
from textual.command import CommandList, CommandPalette
from textual.screen import Screen
from textual.widgets import Static

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import InputError
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from judgepool.tui.hosts import review_host
from judgepool.tui.messages import GradesSaved
from judgepool.tui.screens.audit import AuditScreen
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.help import HelpScreen
from judgepool.tui.screens.scores import ScoresScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import wait_until


def test_the_factory_opens_the_workspace_and_its_default_contract(teaching_ws: Path) -> None:
    with open_workspace(teaching_ws) as ws:
        ws.set_default_contract(Contract(k=5, gain="exponential"))
    app = create_app(teaching_ws, "alice")
    try:
        assert app.workspace == teaching_ws
        assert app.annotator == "alice"
        assert app.contract == Contract(k=5, gain="exponential")
    finally:
        app.close_workspace()


def test_the_factory_refuses_what_is_not_a_workspace(tmp_path: Path) -> None:
    stray = tmp_path / "notes.txt"
    stray.write_text("not a workspace\n")
    with pytest.raises(InputError):
        create_app(stray, "alice")
    with pytest.raises(InputError):
        create_app(tmp_path / "missing.sqlite", "alice")
    assert stray.read_text() == "not a workspace\n"


async def test_keys_switch_screens_and_open_help(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert isinstance(app.screen, GradeScreen)
        await pilot.press("a")
        assert isinstance(app.screen, AuditScreen)
        await pilot.press("s")
        assert isinstance(app.screen, ScoresScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.query_one("#help-text", Static).render()
        for line in ("0 1 2 3", "Next query", "Undo the last judgment", "Show the audit screen"):
            assert line in str(help_text)
        assert "4 " not in str(help_text).split("Grade screen")[1].splitlines()[1]
        await pilot.press("escape")
        assert isinstance(app.screen, ScoresScreen)
        await pilot.press("question_mark", "g")  # g closes help and goes to grading
        assert isinstance(app.screen, GradeScreen)
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_palette_reaches_every_grading_action(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        titles = {command.title for command in app.get_system_commands(screen)}
        for title in (
            "Grade screen",
            "Audit screen",
            "Scores screen",
            "Help: keys",
            "Quit",
            "Grade 0 and go to the next document",
            "Grade 3 and go to the next document",
            "Unsure: defer this document without a grade",
            "Undo the last judgment of this session",
            "Add a note to the current judgment",
            "Jump to the next unjudged document",
            "Next document",
            "Previous document",
            "Next query",
            "Previous query",
        ):
            assert title in titles
        assert "Grade 4 and go to the next document" not in titles  # outside 0..3
        current = screen.session.current if screen.session else None
        await pilot.press("ctrl+p")
        await pilot.press(*"unsure")

        def unsure_offered() -> bool:
            palette = app.screen
            if not isinstance(palette, CommandPalette):
                return False
            option = palette.query_one(CommandList).highlighted_option
            return option is not None and "Unsure" in str(option.prompt)

        await wait_until(pilot, unsure_offered, "the palette to offer the unsure command")
        await pilot.press("enter")
        await pilot.pause()
        with open_workspace(teaching_ws) as ws:
            saved = ledger.list_events(ws)
        assert current is not None
        assert [(e.doc_id, e.unsure) for e in saved] == [(current[1], True)]


async def test_queue_for_grading_shows_an_unpooled_document_then_returns(
    teaching_ws: Path,
) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        assert screen.session is not None
        before = screen.session.current
        await pilot.press("s")
        # D is in no run's list, so not in the pool: the audit can still send it.
        app.queue_for_grading("teach", "D")
        await pilot.pause()
        assert app.screen is screen
        assert screen.session.current == ("teach", "D")
        assert screen.session.total == 4
        await pilot.press("0")
        assert screen.session.current == before
        assert screen.session.total_judged == 1
        with open_workspace(teaching_ws) as ws:
            assert [(e.doc_id, e.grade) for e in ledger.list_events(ws)] == [("D", 0)]


class Probe(Screen[None]):
    """Records the judgment events it is told of, as audit and scores follow them."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[tuple[str, str, int | None]] = []
        self.messages = 0  # how many GradesSaved it handled

    def compose(self) -> ComposeResult:
        yield Static("probe")

    def on_mount(self) -> None:
        review_host(self.app).follow_grades(self)

    def on_grades_saved(self, message: GradesSaved) -> None:
        self.messages += 1
        self.received += [(saved.query_id, saved.doc_id, saved.grade) for saved in message.saved]


async def test_every_judgment_event_is_announced_to_running_screens(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        probe = Probe()
        app.install_screen(probe, "probe")
        await app.push_screen("probe")
        await app.pop_screen()
        await pilot.pause()
        assert screen.session is not None
        first = screen.session.current
        await pilot.press("2")
        second = screen.session.current
        await pilot.press("u", "z", "z")
        await pilot.pause()
        assert first is not None and second is not None
        assert probe.received == [
            (*first, 2),
            (*second, None),
            (*second, None),
            (*first, None),
        ]


async def test_a_burst_of_grades_reaches_a_follower_as_one_message(teaching_ws: Path) -> None:
    # as the live refresh announces a colleague's grades: one after another,
    # before the screens that follow them get a turn
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        probe = Probe()
        app.install_screen(probe, "probe")
        await app.push_screen("probe")
        await pilot.pause()
        burst = [("teach", doc, grade) for doc, grade in (("A", 1), ("B", None), ("C", 3))]
        for query_id, doc_id, grade in burst:
            app.grade_saved(query_id, doc_id, grade)
        await wait_until(pilot, lambda: len(probe.received) == len(burst), "the burst")
        assert probe.received == burst  # every event, in order
        assert probe.messages == 1  # handled once: one re-read
