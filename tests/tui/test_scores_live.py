"""The scores screen while others grade (issue 32, point 3), driven with the
Pilot on a real workspace file: a grade committed by another connection is on
the screen without a key pressed, with the numbers of a full rescore, and no
live rescore is stored as an evaluation (``S`` stores, on request).
"""

from __future__ import annotations

from pathlib import Path

from judgepool.services.evaluations import list_evaluations
from judgepool.services.judging import judge
from judgepool.services.review import Scoreboard, score_workspace_runs
from judgepool.services.workspace import open_workspace
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.widgets.score_runs import RunSummaryTable
from tests.tui.pilot_support import wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.test_scores_screen import SIZE, fmt, open_scores, row_texts


def full_rescore(workspace: Path, screen: ScoresScreen) -> Scoreboard:
    """What scoring every run from scratch gives, on another connection."""
    assert screen.board is not None
    with open_workspace(workspace) as ws:
        return score_workspace_runs(ws, screen.board.contract)


def judgments_shown(screen: ScoresScreen) -> int:
    return -1 if screen.board is None else screen.board.judgments


async def test_a_grade_from_another_connection_is_scored_on_screen_and_not_stored(
    tmp_path: Path,
) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace, "lead")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scores(pilot)
        runs = screen.query_one(RunSummaryTable)
        assert row_texts(runs, "alpha")["ndcg"] == "refused"  # its two holes
        assert judgments_shown(screen) == 10
        before = screen.board
        # bob grades one hole in another process's place: his own connection
        with open_workspace(workspace) as ws:
            judge(ws, "q2", "Y", 3, annotator="bob")
        await wait_until(pilot, lambda: judgments_shown(screen) == 11, "bob's grade scored")
        # beta's q2 has a new relevant document in its ideal list: beta's numbers moved
        assert screen.board != before and screen.board == full_rescore(workspace, screen)
        beta = screen.board.run("beta").evaluation
        assert beta is not None
        assert row_texts(runs, "beta")["ndcg"] == fmt(beta.summary.ndcg)
        assert row_texts(runs, "alpha")["ndcg"] == "refused"  # "[bold]X" still a hole
        # the last hole: alpha is scored at last, as a full rescore scores it
        with open_workspace(workspace) as ws:
            judge(ws, "q1", "[bold]X", 0, annotator="bob")
        await wait_until(pilot, lambda: judgments_shown(screen) == 12, "alpha scored")
        await settle(pilot)
        assert screen.board == full_rescore(workspace, screen)
        alpha = screen.board.run("alpha").evaluation
        assert alpha is not None
        assert row_texts(runs, "alpha")["ndcg"] == fmt(alpha.summary.ndcg)
        with open_workspace(workspace) as ws:
            assert list_evaluations(ws) == []  # followed, never stored unasked
        await pilot.press("S")
        await settle(pilot)
        with open_workspace(workspace) as ws:
            stored = list_evaluations(ws)
        assert sorted((s.run_name, s.fingerprint) for s in stored) == sorted(
            (score.run, score.scored.fingerprint)
            for score in screen.board.runs
            if score.scored is not None
        )


async def test_a_burst_of_grades_while_scoring_ends_on_the_last_grade(tmp_path: Path) -> None:
    """Grades that come while a board is being scored are not lost with it:
    the screen scores again once it is done, and shows every grade."""
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace, "lead")
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(unjudged="zero")
        screen = await open_scores(pilot)
        screen.recompute()
        screen.recompute()  # while the first is being scored: wanted next, not dropped
        assert screen.scoring and screen.score_again
        with open_workspace(workspace) as ws:
            for number, doc in enumerate(("A", "B", "C", "D", "E", "F", "G")):
                judge(ws, "q3", doc, number % 4, annotator="bob", allow_new=True)
                # a wish to score again while one may be running: kept, not dropped
                screen.recompute()
                await pilot.pause()
        await wait_until(pilot, lambda: judgments_shown(screen) == 17, "every grade scored")
        await settle(pilot)
        assert not screen.scoring and not screen.score_again
        assert screen.board == full_rescore(workspace, screen)
