"""The sign-in screen of a served session (`judgepool tui WS --signed-in-session`):
two fields, Tab between them, Enter signs in; nothing else is reachable until a
name and token match; a refusal says so and pauses the fields; once signed in
the app opens as `judgepool tui` does and grades under the signed-in name."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import Input, Static

from judgepool.services import sign_in
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.help import HelpScreen
from judgepool.tui.screens.sign_in import FAILURE_PAUSE, SignInScreen
from tests.tui.conftest import build_workspace, wait_ready
from tests.tui.pilot_support import screen_text, wait_until


def issue(path: Path, name: str) -> str:
    with open_workspace(path) as ws:
        return sign_in.add_annotator(ws, name)


def focused_id(app: object) -> str | None:
    focused = app.focused  # type: ignore[attr-defined]
    return None if focused is None else focused.id


async def test_nothing_but_the_two_fields_before_sign_in(teaching_ws: Path) -> None:
    issue(teaching_ws, "alice")
    app = create_app(teaching_ws, "", sign_in_first=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SignInScreen), "sign-in")
        assert focused_id(app) == "sign-in-name"
        # the app's keys and the command palette do nothing; typed keys go to the field
        await pilot.press("g", "a", "s", "question_mark", "ctrl+p")
        assert isinstance(app.screen, SignInScreen)
        assert not isinstance(app.screen, CommandPalette)
        assert app.screen.query_one("#sign-in-name", Input).value == "gas?"
        for action in ("show_screen('grade')", "show_screen('audit')", "help", "command_palette"):
            await app.run_action(action)
            await pilot.pause()
        await pilot.press("tab")
        assert focused_id(app) == "sign-in-token"
        await pilot.press("tab")
        assert focused_id(app) == "sign-in-name"
        assert isinstance(app.screen, SignInScreen)
        assert not app.is_screen_installed("grade")
        assert "Name" in screen_text(app) and "Token" in screen_text(app)


async def test_a_wrong_token_is_refused_then_the_right_one_opens_grading(
    teaching_ws: Path,
) -> None:
    token = issue(teaching_ws, "alice")
    app = create_app(teaching_ws, "", sign_in_first=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SignInScreen), "sign-in")
        await pilot.press(*"alice", "enter")  # enter in the name field: on to the token
        assert focused_id(app) == "sign-in-token"
        await pilot.press(*"not-the-token", "enter")
        message = app.screen.query_one("#sign-in-message", Static)
        assert "do not match" in str(message.render())
        token_field = app.screen.query_one("#sign-in-token", Input)
        assert token_field.value == "" and token_field.disabled
        await pilot.press("1")  # paused: nothing typed, nothing graded
        assert token_field.value == ""
        await wait_until(pilot, lambda: not token_field.disabled, "the pause", FAILURE_PAUSE + 5)
        assert "you can type again" in str(message.render())
        assert focused_id(app) == "sign-in-token"
        await pilot.press(*token, "enter")
        screen = await wait_ready(pilot)
        assert isinstance(app.screen, GradeScreen)
        assert app.annotator == "alice"
        assert "alice" in screen_text(app)
        current = screen.session.current
        assert current is not None
        await pilot.press("2")
        await wait_until(pilot, lambda: screen.session.current != current, "the next document")
        await pilot.press("question_mark")  # the app's keys work now
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.press("escape", "a")  # but an annotator's reach only: no audit
        await pilot.pause()
        assert isinstance(app.screen, GradeScreen)
    with open_workspace(teaching_ws) as ws:
        failures = sign_in.recent_failures(ws)
        events = [(e.annotator, e.grade) for e in ledger.list_events(ws)]
    assert [(f.name, f.reason) for f in failures] == [("alice", "wrong token")]
    assert events == [("alice", 2)]


async def test_the_signed_in_name_grades_not_the_local_login(teaching_ws: Path) -> None:
    token = issue(teaching_ws, "bob")
    app = create_app(teaching_ws, "someone-else", sign_in_first=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SignInScreen), "sign-in")
        await pilot.press(*"bob", "tab", *token, "enter")
        screen = await wait_ready(pilot)
        item = screen.session.current
        assert item is not None
        await pilot.press("3")
        await wait_until(pilot, lambda: screen.session.current != item, "the next document")
    conn_ws = open_workspace(teaching_ws)
    try:
        rows = conn_ws.conn.execute("SELECT annotator, grade FROM judgment_events").fetchall()
    finally:
        conn_ws.close()
    assert rows == [("bob", 3)]


@pytest.mark.slow
async def test_the_sign_in_and_grade_screens_fit_common_browser_sizes(teaching_ws: Path) -> None:
    # Terminal sizes textual-serve gives at 16 px: a small laptop (1024×768),
    # 1366×768, 1920×1080; and the 80×24 of a narrow window.
    token = issue(teaching_ws, "alice")
    for size in ((80, 24), (106, 38), (142, 38), (200, 54)):
        app = create_app(teaching_ws, "", sign_in_first=True)
        async with app.run_test(size=size) as pilot:
            await wait_until(pilot, lambda app=app: isinstance(app.screen, SignInScreen), "sign-in")
            width, height = size
            for field in app.screen.query(Input):
                region = field.region
                assert region.width >= 30 and region.right <= width and region.bottom <= height
            await pilot.press(*"alice", "tab", *token, "enter")
            screen = await wait_ready(pilot)
            current = screen.session.current
            assert current is not None
            assert current[1] in screen_text(app), size


async def test_nothing_before_sign_in_names_the_workspace_file(tmp_path: Path) -> None:
    # The folder and file name say whose study it is; a stranger who reaches
    # the server sees neither, not even when a sign-in cannot be recorded.
    folder = tmp_path / "acme-client-projects"
    folder.mkdir()
    path = build_workspace(folder / "acme-relevance-study.sqlite", ["teaching"])
    issue(path, "alice")
    ws = open_workspace(path, busy_timeout_ms=100)
    app = create_app(path, "", None, ws, sign_in_first=True)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, SignInScreen), "sign-in")
            holder.execute("BEGIN IMMEDIATE")  # another process is writing: busy
            await pilot.press(*"alice", "tab", *"not-the-token", "enter")
            message = app.screen.query_one("#sign-in-message", Static)

            def refused() -> bool:
                return "cannot sign in now" in str(message.render())

            await wait_until(pilot, refused, "the refusal")
            shown = screen_text(app)
            for secret in ("acme", "sqlite", str(tmp_path)):
                assert secret not in shown, secret
            holder.execute("ROLLBACK")
    finally:
        holder.close()
