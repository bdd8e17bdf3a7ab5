"""The lead's scores made ready while the grade screen is shown
(`judgepool.tui.scores_ahead`): scored ahead for whoever may open the scores
screen, whose first board then takes in only the grades made since; never for
an annotator of a team (blind grading), nor for runs too long to score
beside grading."""

from __future__ import annotations

from pathlib import Path

from judgepool.services.review import score_workspace_runs
from judgepool.services.roles import set_role
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.tui.app import create_app
from judgepool.tui.scores_ahead import worth_scoring_ahead
from judgepool.tui.screens.scores import ScoresScreen
from tests.tui.conftest import build_workspace, wait_ready
from tests.tui.pilot_support import wait_until


def _team(tmp_path: Path) -> Path:
    path = build_workspace(tmp_path / "team.sqlite", ["teaching"])
    with open_workspace(path) as ws:
        set_role(ws, "lena", "lead")
        set_role(ws, "bob", "annotator")
    return path


async def test_a_lead_finds_the_scores_ready_and_up_to_date(tmp_path: Path) -> None:
    path = _team(tmp_path)
    app = create_app(path, "lena")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        live = app.live_scores
        await wait_until(pilot, lambda: live.judged.position >= 0, "the scores made ready ahead")
        ahead = live.judged.position
        await pilot.press("2")  # a grade after the scores were made ready
        await pilot.press("s")
        screen = app.screen
        assert isinstance(screen, ScoresScreen)
        await wait_until(pilot, lambda: screen.board is not None, "the scores")
        # the same object, brought up to date with the grade made since
        assert app.live_scores is live and live.judged.position > ahead
        board = screen.board
        assert board is not None
    with open_workspace(path) as ws:
        fresh = score_workspace_runs(ws, board.contract)
    assert board.judgments == fresh.judgments and board.qrels_digest == fresh.qrels_digest
    assert board.runs == fresh.runs


async def test_an_annotator_of_a_team_has_nothing_scored_ahead(tmp_path: Path) -> None:
    path = _team(tmp_path)
    app = create_app(path, "bob")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.live_scores.judged.position == -1


def test_only_runs_of_a_bounded_length_are_scored_ahead(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "runs.sqlite", ["teaching"])
    with open_workspace(path) as ws:
        lines = sum(1 for _ in ws.conn.execute("SELECT 1 FROM run_lines"))
        assert lines > 0
        assert worth_scoring_ahead(ws, limit=lines)
        assert not worth_scoring_ahead(ws, limit=lines - 1)
    with init_workspace(tmp_path / "empty.sqlite", scale="0..3") as ws:
        assert not worth_scoring_ahead(ws)  # no runs: nothing to score
