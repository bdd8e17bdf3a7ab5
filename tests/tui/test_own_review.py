"""The annotator's own review on the grade screen: ``m`` lists their unsure and
noted items (never another person's) and ``enter`` goes back to one; the
status line counts grades and unsure marks apart; beside it, the seconds on
the current document and their grades per hour, as ``progress`` counts them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from judgepool.services.assignments import progress
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from judgepool.tui.dialogs.own_items import OwnItemsDialog
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.grade import clock as grade_clock
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until


def status(screen: GradeScreen) -> str:
    rendered = screen.query_one("#grade-status", Static).render()
    return str(getattr(rendered, "plain", rendered))


def clock(screen: GradeScreen) -> str:
    """The clock's words at the end of the status line, as drawn."""
    drawn = screen_text(screen.app).splitlines()[-2]  # the line above the footer
    return drawn.rsplit("   ", 1)[-1].strip()


def listed(app: object) -> bool:
    screen = app.screen  # type: ignore[attr-defined]
    return isinstance(screen, OwnItemsDialog) and screen.found is not None


async def test_m_lists_my_unsure_and_noted_items_and_goes_back_to_one(
    two_queries_ws: Path,
) -> None:
    app = create_app(two_queries_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        unsure = screen.session.current
        await pilot.press("u")  # unsure, and on
        noted = screen.session.current
        await pilot.press("e", *"check the date", "enter", "2")  # a note, saved with the grade
        await pilot.press("1")  # graded, no note: not listed
        assert unsure is not None and noted is not None
        with open_workspace(two_queries_ws) as ws:  # bob notes the same item
            judge(ws, *noted, 0, annotator="bob", note="bob thinks it is off topic")
        where = screen.session.current
        await pilot.press("m")
        await wait_until(pilot, lambda: listed(app), "the list of my items")
        shown = screen_text(app)
        assert "2 items to go back to: 1 unsure, 1 with your note" in shown
        assert "check the date" in shown and "unsure" in shown and "grade 2" in shown
        assert "bob" not in shown and "off topic" not in shown and "grade 0" not in shown
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        await pilot.press("down", "enter")  # the older one: the item marked unsure
        assert isinstance(app.screen, GradeScreen)
        assert screen.session.current == unsure
        assert status(screen).startswith(f"back to your item: {unsure[1]}")
        await pilot.press("3")  # graded: grading goes back to where it was
        assert screen.session.current == where


async def test_m_says_when_there_is_nothing_to_go_back_to(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_ready(pilot)
        await pilot.press("2", "m")
        await wait_until(pilot, lambda: listed(app), "the list of my items")
        assert "Nothing to go back to" in screen_text(app)
        await pilot.press("escape")
        assert app.screen is screen


async def test_the_session_count_counts_grades_and_unsure_marks_apart(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        await pilot.press("u")
        assert "0 judged this session · 1 unsure" in status(screen)
        await pilot.press("2", "u")
        assert "1 judged this session · 2 unsure" in status(screen)
        await pilot.press("z")
        assert "1 judged this session · 1 unsure" in status(screen)
        await pilot.press("z", "z")
        assert "0 judged this session · t settle order" in status(screen)
        assert "unsure" not in status(screen).split("·", 1)[1]


@pytest.fixture
def held_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The grade screen's clock, moved by hand: set ``[0]`` to the time."""
    now = [1000.0]
    monkeypatch.setattr(grade_clock, "now", lambda: now[0])
    return now


def timed_earlier(path: Path, seconds: list[float]) -> None:
    """alice's timed grades of other documents, as an earlier session's."""
    with open_workspace(path) as ws:
        for number, spent in enumerate(seconds):
            judge(ws, "teach", f"earlier{number}", 1, annotator="alice", seconds=spent,
                  allow_new=True)  # fmt: skip


async def test_the_clock_shows_the_seconds_on_the_document_and_my_rate(
    teaching_ws: Path, held_clock: list[float]
) -> None:
    timed_earlier(teaching_ws, [20.0, 30.0, 26.0, 30.0])  # four grades in 106 s: no rate yet
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        await wait_until(pilot, lambda: clock(screen) == "0 s on this document", "the clock")
        assert "grades/h" not in status(screen)  # too few timed grades yet: no rate
        held_clock[0] += 14
        await wait_until(pilot, lambda: clock(screen) == "14 s on this document", "the tick")
        await pilot.press("2")
        # five grades in 120 s: 150 an hour; the next document's time starts at 0
        expected = "0 s on this document · you: 150.0 grades/h"
        await wait_until(pilot, lambda: clock(screen) == expected, "the rate")
        held_clock[0] += 76
        await wait_until(pilot, lambda: clock(screen).startswith("1:16 min"), "the tick")
        await pilot.press("u")  # unsure is timed, but is not a grade
        expected = "0 s on this document · you: 91.8 grades/h"
        await wait_until(pilot, lambda: clock(screen) == expected, "the rate")
    with open_workspace(teaching_ws) as ws:
        assert [e.seconds for e in ledger.list_events(ws)][-2:] == [14.0, 76.0]
        rate = {row.annotator: row.per_hour for row in progress(ws)}["alice"]
    assert rate == pytest.approx(5 * 3600 / 196)  # judgepool progress says the same


async def test_the_clock_is_short_on_a_small_terminal(
    teaching_ws: Path, held_clock: list[float]
) -> None:
    timed_earlier(teaching_ws, [30.0, 30.0, 30.0, 21.0])
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_ready(pilot)
        held_clock[0] += 9
        await pilot.press("1")
        held_clock[0] += 3
        await wait_until(pilot, lambda: clock(screen) == "3 s · 150.0/h", "the tick")
        shown = screen_text(app).splitlines()
        assert shown[-2].startswith(" saved 1 Related for ") and shown[-2].endswith("3 s · 150.0/h")
