"""Contract changes made in the app can be saved as the workspace's default,
and scores computed in the app are stored as evaluations like the command
line's (issue 10, point 6)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from judgepool.services.evaluations import list_evaluations
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from judgepool.tui.widgets.score_contract import ContractDialog
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.test_scores_screen import SIZE, cli_scores, open_scores


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


async def test_scores_computed_in_the_app_are_stored_as_evaluations(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "cli").mkdir()
    workspace = build_review_workspace(tmp_path / "app")
    # the command line's numbers on a twin (it stores its own evaluations)
    twin = build_review_workspace(tmp_path / "cli")
    expected = cli_scores(twin, ["beta"])
    with open_workspace(workspace) as ws:
        assert list_evaluations(ws) == []
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await open_scores(pilot)
        await settle(pilot)
        with open_workspace(workspace) as ws:
            stored = list_evaluations(ws)
        assert [(s.run_name, s.fingerprint, s.current) for s in stored] == [
            ("beta", expected["beta"]["fingerprint"], True)
        ]
        assert stored[0].summary == stored_by_the_cli(twin)
        await pilot.press("f5")  # the same numbers again: not stored twice
        await settle(pilot)
        with open_workspace(workspace) as ws:
            assert len(list_evaluations(ws)) == 1
            judge(ws, "q1", "d9", 1, annotator="bob", allow_new=True)  # another terminal
        await pilot.press("f5")
        await settle(pilot)
        with open_workspace(workspace) as ws:
            after = list_evaluations(ws)
        assert len(after) == 2 and after[-1].qrels_digest != stored[0].qrels_digest
