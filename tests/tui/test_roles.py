"""Roles in the app: every screen and dialog states what it needs, and the app
refuses what the role does not reach, whatever asks for it (a key, the
palette, a screen pushed directly); a role changed meanwhile holds at the
next screen; a workspace without roles is its local user's, as before."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import replace
from pathlib import Path

from textual.screen import Screen

import judgepool.tui
from judgepool.services.roles import set_role
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import create_app
from judgepool.tui.reach import NAMED, reach_of
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.help import HelpScreen
from tests.tui.conftest import build_workspace, wait_ready
from tests.tui.pilot_support import wait_until


def app_screen_classes() -> list[type[Screen[object]]]:
    found: list[type[Screen[object]]] = []
    for module in pkgutil.walk_packages(judgepool.tui.__path__, "judgepool.tui."):
        loaded = importlib.import_module(module.name)
        for _, value in inspect.getmembers(loaded, inspect.isclass):
            if (
                issubclass(value, Screen)
                and value.__module__ == loaded.__name__
                and value.__module__.startswith("judgepool.tui")
            ):
                found.append(value)
    return found


def test_every_screen_and_dialog_states_what_it_needs() -> None:
    classes = app_screen_classes()
    assert len(classes) > 15
    # the sign-in screen is shown before anyone is signed in, outside every role;
    # the grade screen's parts are mixed into it, not shown alone
    exempt = {"SignInScreen", "HoleLoop", "GradeTeamActions", "RawTextToggle", "SearchAndJudge"}
    undeclared = [
        c.__name__ for c in classes if "REACH" not in vars(c) and c.__name__ not in exempt
    ]
    # the review screens inherit theirs from ReviewScreen
    assert set(undeclared) <= {"AuditScreen", "ScoresScreen"}, undeclared
    assert set(NAMED) >= {"grade", "help", "audit", "scores", "adjudicate", "agreement"}


def test_a_screen_that_states_nothing_is_the_leads() -> None:
    class Forgotten(Screen[None]):
        pass

    assert reach_of(Forgotten()) == "review"
    assert reach_of("no-such-screen") == "review"


def _team(tmp_path: Path) -> Path:
    path = build_workspace(tmp_path / "team.sqlite", ["teaching"])
    with open_workspace(path) as ws:
        set_role(ws, "lena", "lead")
        set_role(ws, "bob", "annotator")
    return path


async def test_an_annotator_reaches_only_grading_whatever_is_tried(tmp_path: Path) -> None:
    path = _team(tmp_path)
    app = create_app(path, "bob")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        for key in ("a", "s", "K", "D", "p", "H", "ctrl+o"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, GradeScreen), key
        # a screen pushed or switched to directly is refused, with the reason
        from judgepool.tui.screens.audit import AuditScreen

        app.push_screen(AuditScreen())
        await pilot.pause()
        assert isinstance(app.screen, GradeScreen)
        app.switch_screen("scores")
        await pilot.pause()
        assert isinstance(app.screen, GradeScreen)
        told = [note.message for note in app._notifications]
        assert told and all("Only leads open this" in message for message in told)
        # the palette offers no screen outside the role
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Grade screen" in titles and "Help: keys" in titles
        assert not {"Audit screen", "Scores screen", "Agreement screen", "Adjudicate"} & set(titles)
        # what the role reaches opens as before
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")


async def test_a_role_changed_meanwhile_holds_at_the_next_screen(tmp_path: Path) -> None:
    path = _team(tmp_path)
    app = create_app(path, "bob")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        with open_workspace(path) as ws:
            set_role(ws, "bob", "lead")  # a lead's act, in another terminal
        app.action_show_screen("audit")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "AuditScreen", "the audit")
        with open_workspace(path) as ws:
            set_role(ws, "bob", "annotator")
        app.action_show_screen("scores")
        await pilot.pause()
        assert type(app.screen).__name__ == "AuditScreen"


async def test_without_roles_the_local_user_is_the_lead(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "solo.sqlite", ["teaching"])
    app = create_app(path, "solo")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        assert app.guard.role == "lead"
        await pilot.press("a")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "AuditScreen", "the audit")


async def test_only_a_lead_saves_the_default_contract(tmp_path: Path) -> None:
    path = _team(tmp_path)
    with open_workspace(path) as ws:
        set_role(ws, "carol", "adjudicator")
        before = ws.default_contract()
    wanted = replace(before, k=5)
    for name in ("bob", "carol"):
        app = create_app(path, name)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_ready(pilot)
            app.save_default_contract(wanted)  # as the contract dialog's ctrl+o would
            await pilot.pause()
            assert any("Only leads open this" in n.message for n in app._notifications)
    with open_workspace(path) as ws:
        assert ws.default_contract() == before
    app = create_app(path, "lena")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.save_default_contract(wanted)
    with open_workspace(path) as ws:
        assert ws.default_contract() == wanted
