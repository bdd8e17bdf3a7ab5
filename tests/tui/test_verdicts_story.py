"""The demo's story in the app, driven with the Pilot on a real workspace file:
the audit shows a pair of runs that could flip and the holes in its way; the
grade screen's settle order (key ``t``) shows those holes, best first; a few
grades later the scores screen shows the pair settled, with fewer grades than
there were holes.

The workspace is `tests.tui.story_support`'s (three DL19 runs, four queries);
each hole is given its true grade.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgepool.services import app_queries
from judgepool.services.workspace import open_workspace
from judgepool.tui.screens.audit import AuditScreen
from judgepool.tui.screens.review import ReviewScreen
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.verdict_jobs import SettleQueue
from judgepool.tui.widgets.pair_verdicts import PairVerdicts
from judgepool.tui.widgets.settle_order import SettleOrder
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import review_app, settle
from tests.tui.story_support import FLIPPING, build_story_workspace, true_grade

SIZE = (150, 45)


def verdict(screen: ReviewScreen) -> str | None:
    return screen.query_one(PairVerdicts).verdict_of(*FLIPPING)


async def test_holes_settle_queue_grades_and_the_pair_is_settled(tmp_path: Path) -> None:
    workspace = build_story_workspace(tmp_path / "story.sqlite")
    with open_workspace(workspace) as ws:
        # what the settle order should offer first, computed without the app
        first = SettleQueue.of_workspace(ws, ws.default_contract()).step()
    assert first.hole is not None and first.open_pairs == 1 and first.holes == 13
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)

        # the audit: the pair could flip, and 13 holes stand in its way
        await pilot.press("a")
        await settle(pilot)
        audit = app.screen
        assert isinstance(audit, AuditScreen)
        await wait_until(pilot, lambda: verdict(audit) == "could flip", "the audit's verdicts")
        shown = screen_text(app)
        assert "could flip" in shown and "2 settled" in shown
        row = next(line for line in shown.splitlines() if line.split()[-3:-1] == ["could", "flip"])
        assert row.split()[-1] == "13", row
        assert "repllama" in row and "splade-pp-ed" in row  # 13 holes stand in the pair's way

        # the settle order shows the best hole first
        await pilot.press("g", "t")
        bar = grade.query_one(SettleOrder)
        await wait_until(pilot, lambda: grade.session.current == first_item(first), "the hole")
        assert bar.active and "1 of 3 pairs could flip" in screen_text(app)

        # grade each hole with its true grade until no pair can flip
        judged: list[tuple[str, str]] = []
        while bar.last is not None and bar.last.open_pairs:
            current, before = grade.session.current, bar.last
            assert current is not None and current not in judged
            await pilot.press(str(true_grade(*current)))
            judged.append(current)

            def moved(current: Any = current, before: Any = before) -> bool:
                # the order was ranked again, and the next hole is shown (if any is needed)
                last = bar.last
                return last is not before and (
                    not last.open_pairs or grade.session.current != current
                )

            await wait_until(pilot, moved, "the next hole")
            assert len(judged) < 13, "the pair should settle before every hole is judged"
        assert "no pair of 3 can flip" in screen_text(app)
        assert 1 <= len(judged) <= 6

        # the grades are on disk, and the scores screen shows the pair settled
        with open_workspace(workspace) as ws:
            mine = app_queries.item_judgments(ws, "tester")
        assert {item: mine[item].own_grade for item in judged} == {
            item: true_grade(*item) for item in judged
        }
        await pilot.press("s")
        await settle(pilot)
        scores = app.screen
        assert isinstance(scores, ScoresScreen)
        await wait_until(pilot, lambda: verdict(scores) == "settled", "the pair settled")
        assert "3 settled" in screen_text(app)

        # the audit, shown again, recomputes too
        await pilot.press("a")
        await settle(pilot)
        await wait_until(pilot, lambda: verdict(audit) == "settled", "the audit recomputed")

        # leaving the settle order returns to the pool order
        await pilot.press("g", "t")
        await pilot.pause()
        assert not bar.active


def first_item(step: Any) -> tuple[str, str]:
    return step.hole.query_id, step.hole.doc_id
