"""Contract changes made in the app can be saved as the workspace's default,
and scores computed in the app are stored as evaluations like the command
line's (issue 10, point 6), when the lead asks (``S``; issue 32, point 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static

from judgepool.core.terms.contract import Contract
from judgepool.services.evaluations import list_evaluations
from judgepool.services.imports import import_run
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.widgets.score_contract import ContractDialog
from tests.tui.pilot_support import wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.test_scores_screen import SIZE, cli_scores, open_scores

# Twelve ways to match a digit, then an x that never comes (Python's re: 12^n tries).
CATASTROPHIC = r"(\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d)+x"


@pytest.mark.slow
async def test_a_contract_changed_in_the_app_can_be_saved_as_the_default(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await open_scores(pilot)
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ContractDialog)
        dialog.query_one("#contract-k", Input).value = "7"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.contract.k == 7
    with open_workspace(workspace) as ws:
        assert ws.default_contract() == app.contract
    # applied without saving: the default stays
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        assert app.contract.k == 7  # the app starts under the saved default
        await open_scores(pilot)
        await pilot.press("c")
        await pilot.pause()
        app.screen.query_one("#contract-k", Input).value = "5"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.contract.k == 5
    with open_workspace(workspace) as ws:
        assert ws.default_contract().k == 7


def stored_by_the_cli(workspace: Path) -> dict[str, object]:
    with open_workspace(workspace) as ws:
        (stored,) = list_evaluations(ws)
    return stored.summary


async def test_scores_computed_in_the_app_are_stored_as_evaluations_when_asked(
    tmp_path: Path,
) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "cli").mkdir()
    workspace = build_review_workspace(tmp_path / "app")
    # the command line's numbers on a twin (it stores its own evaluations)
    twin = build_review_workspace(tmp_path / "cli")
    expected = cli_scores(twin, ["beta"])
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await open_scores(pilot)
        await settle(pilot)
        with open_workspace(workspace) as ws:
            assert list_evaluations(ws) == []  # shown, not stored: nobody asked
        await pilot.press("S")
        await settle(pilot)
        with open_workspace(workspace) as ws:
            stored = list_evaluations(ws)
        assert [(s.run_name, s.fingerprint, s.current) for s in stored] == [
            ("beta", expected["beta"]["fingerprint"], True)
        ]
        assert stored[0].summary == stored_by_the_cli(twin)
        told = [note.message for note in app._notifications]
        assert told[-1] == "1 run's score stored as evaluations"
        await pilot.press("f5", "S")  # the same numbers again: not stored twice
        await settle(pilot)
        told = [note.message for note in app._notifications]
        assert told[-1] == "0 runs' scores stored as evaluations; 1 stored already"
        with open_workspace(workspace) as ws:
            assert len(list_evaluations(ws)) == 1
            judge(ws, "q1", "d9", 1, annotator="bob", allow_new=True)  # another terminal
        await pilot.press("f5")
        await settle(pilot)
        with open_workspace(workspace) as ws:
            assert len(list_evaluations(ws)) == 1  # scored again, not stored
        await pilot.press("S")
        await settle(pilot)
        with open_workspace(workspace) as ws:
            after = list_evaluations(ws)
        assert len(after) == 2 and after[-1].qrels_digest != stored[0].qrels_digest


async def test_the_contract_dialog_refuses_a_pattern_re2_cannot_run_and_scores_any_other(
    tmp_path: Path,
) -> None:
    workspace = build_review_workspace(tmp_path)
    # a run whose IDs are 30 digits: each one a trap for a backtracking engine
    digits = tmp_path / "digits.trec"
    digits.write_text("".join(f"q1 Q0 {n:030d} {n} {10 - n} d\n" for n in range(1, 6)))
    with open_workspace(workspace) as ws:
        import_run(ws, digits, name="digits")
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await open_scores(pilot)
        before = app.contract
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ContractDialog)
        dialog.query_one("#contract-entity", Input).value = r"(d\d+)(?=#)"
        await pilot.press("ctrl+s")
        await pilot.pause()
        # refused with the reason, the dialog still open, nothing applied
        assert app.screen is dialog
        error = str(dialog.query_one("#contract-error", Static).render())
        assert "(?=" in error and "look-around" in error and "RE2" in error
        assert app.contract == before
        # a pattern Python's re backtracks on for ever: applied, and scored at once
        dialog.query_one("#contract-entity", Input).value = CATASTROPHIC
        dialog.query_one("#contract-unjudged", Select).value = "zero"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.contract.entity == CATASTROPHIC
        screen = app.screen
        assert isinstance(screen, ScoresScreen)
        table = screen.query_one("#scores-runs", DataTable)
        await wait_until(pilot, lambda: table.row_count == 3, "the scores of the three runs")


async def test_a_saved_default_re2_cannot_run_opens_the_app_under_the_plain_contract(
    tmp_path: Path,
) -> None:
    workspace = build_review_workspace(tmp_path)
    with open_workspace(workspace) as ws:
        data = Contract(scale=ws.scale, k=7).to_dict()
        data["entity"] = r"(\w+)(?<=a)"  # saved when patterns ran in Python's re
        with ws.write() as conn:
            ws.put_setting(conn, "default_contract", data)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.contract == Contract(scale=app.ws.scale)
        (notice,) = [n for n in app._notifications if "default contract" in n.message]
        assert "(?<=" in notice.message and "ctrl+o" in notice.message
        # the lead changes it where it is changed, and it is saved
        await open_scores(pilot)
        await pilot.press("c")
        await pilot.pause()
        app.screen.query_one("#contract-entity", Input).value = r"(\w+)a"
        await pilot.press("ctrl+o")
        await settle(pilot)
    with open_workspace(workspace) as ws:
        assert ws.default_contract().entity == r"(\w+)a"
