"""The settle order (``t`` on the grade screen) stays inside the annotator's
queue when the current assignment gives them one: the holes assigned to
someone else are theirs to judge. Driven by the Pilot on the demo workspace."""

from __future__ import annotations

from pathlib import Path

from judgepool.services.assignments import assign
from judgepool.services.settle_queue import SettleQueue
from judgepool.services.workspace import open_workspace
from judgepool.store.grading_live import assigned_to
from judgepool.tui.widgets.settle_order import SettleOrder
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import review_app
from tests.tui.story_support import build_story_workspace, true_grade

SIZE = (150, 45)


async def test_the_settle_order_offers_only_the_annotators_holes(tmp_path: Path) -> None:
    workspace = build_story_workspace(tmp_path)
    with open_workspace(workspace) as ws:
        assign(ws, annotators=["tester", "other"], overlap=1, seed=0)
        best = SettleQueue.of_workspace(ws, ws.default_contract()).step().hole
        assert best is not None
        # the annotator whose queue does not hold the hole that settles most
        who = (
            "other"
            if (best.query_id, best.doc_id) in (assigned_to(ws, "tester") or ())
            else "tester"
        )
        mine = assigned_to(ws, who)
        everyone = SettleQueue.of_workspace(ws, ws.default_contract()).step().holes
    assert mine is not None
    app = review_app(workspace, who)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        bar = grade.query_one(SettleOrder)
        await pilot.press("t")
        await wait_until(pilot, lambda: shown(grade.session.current, bar), "the settle order")
        # not the hole that settles most (someone else's), but the best of theirs
        assert grade.session.current in mine
        assert bar.last is not None and bar.last.in_queue
        assert bar.last.holes == len(mine) < everyone  # their holes only
        assert "settle order in your queue:" in screen_text(app)
        for _ in range(3):
            current = grade.session.current
            assert current in mine and current != (best.query_id, best.doc_id)
            assert current is not None
            await pilot.press(str(true_grade(*current)))
            await wait_until(
                pilot,
                lambda was=current: (
                    grade.session.current != was and shown(grade.session.current, bar)
                ),
                "the next hole",
            )
        assert bar.last is not None and bar.last.holes == len(mine) - 3


def shown(current: tuple[str, str] | None, bar: SettleOrder) -> bool:
    """The grade screen shows the settle order's hole."""
    hole = None if bar.last is None else bar.last.hole
    return hole is not None and current == (hole.query_id, hole.doc_id)
