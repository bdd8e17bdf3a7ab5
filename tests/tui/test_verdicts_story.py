"""The demo's story in the app, driven with the Pilot on the demo workspace:
the audit shows pairs of runs that could flip and the holes in their way; the
grade screen's settle order (key ``t``) shows those holes, best first, and
says what is left; a few true grades later the scores screen shows a pair
that could flip settled, with far fewer grades than there were holes.

Also: the comparison view (``p``) and a query's two lists side by side,
where a grade given moves the verdicts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from judgepool.services import app_queries
from judgepool.services.settle_queue import SettleQueue
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import JudgepoolApp
from judgepool.tui.dialogs.side_by_side import SideBySideScreen
from judgepool.tui.dialogs.verdicts import VerdictsScreen
from judgepool.tui.screens.audit import AuditScreen
from judgepool.tui.screens.review import ReviewScreen
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.widgets.pair_verdicts import PairVerdicts
from judgepool.tui.widgets.settle_order import SettleOrder, pairs_words
from judgepool.tui.widgets.side_by_side import RankedColumn
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import review_app, settle
from tests.tui.story_support import STORY_LENGTH, build_story_workspace, true_grade

SIZE = (150, 45)


def verdicts(screen: ReviewScreen) -> dict[tuple[str, str], str | None]:
    """The verdict of every pair the screen shows (empty until computed)."""
    compared = screen.query_one(PairVerdicts).compared
    if compared is None:
        return {}
    return {(pair.a, pair.b): pair.verdict for pair in compared.report.pairs}


async def show(pilot: Any, key: str, kind: type[ReviewScreen]) -> Any:
    await pilot.press(key)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, kind)
    await wait_until(pilot, lambda: bool(verdicts(screen)), f"the verdicts on {key}")
    return screen


@pytest.mark.slow
async def test_holes_settle_order_true_grades_and_a_pair_is_settled(tmp_path: Path) -> None:
    workspace = build_story_workspace(tmp_path)
    with open_workspace(workspace) as ws:
        # what the settle order offers first, computed without the app
        first = SettleQueue.of_workspace(ws, ws.default_contract()).step()
    assert first.hole is not None
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)

        # the audit: pairs that could flip, and the holes in their way
        audit = await show(pilot, "a", AuditScreen)
        at_start = verdicts(audit)
        # the pairs the bounds leave open: the draws call some of them probable
        could_flip = {
            pair for pair, verdict in at_start.items() if verdict in ("could flip", "probable")
        }
        assert could_flip and len(could_flip) == first.open_pairs
        shown = screen_text(app)
        probable = sum(1 for verdict in at_start.values() if verdict == "probable")
        assert f"{probable} probable  {len(could_flip) - probable} could flip" in shown
        for line in shown.splitlines():
            if line.split()[-3:-1] == ["could", "flip"]:
                assert int(line.split()[-1]) > 0  # holes stand between the pair and a verdict

        # the settle order shows the best hole first, and what is left
        await pilot.press("g", "t")
        bar = grade.query_one(SettleOrder)
        best = (first.hole.query_id, first.hole.doc_id)
        await wait_until(pilot, lambda: grade.session.current == best, "the first hole")
        assert f"{first.holes} holes left, {pairs_words(first)}" in screen_text(app)

        # true grades, in settle order, until a pair that could flip cannot any more
        judged: list[tuple[str, str]] = []
        while bar.last is not None and bar.last.open_pairs == first.open_pairs:
            assert len(judged) < STORY_LENGTH, "no pair settled within the story's grades"
            current, before = grade.session.current, bar.last
            assert current is not None and current not in judged
            await pilot.press(str(true_grade(*current)))
            judged.append(current)

            def moved(current: Any = current, before: Any = before) -> bool:
                last = bar.last
                return last is not before and grade.session.current != current

            await wait_until(pilot, moved, "the next hole")
        assert bar.last is not None and bar.last.holes == first.holes - len(judged)
        assert f"left, {pairs_words(bar.last)}" in screen_text(app)

        # the grades are on disk, and the scores screen shows a pair settled
        with open_workspace(workspace) as ws:
            mine = app_queries.item_judgments(ws, "tester")
        assert {item: mine[item].own_grade for item in judged} == {
            item: true_grade(*item) for item in judged
        }
        scores = await show(pilot, "s", ScoresScreen)
        now = verdicts(scores)
        settled = {pair for pair in could_flip if now[pair] == "settled"}
        assert settled, now
        # the audit, shown again, recomputes too
        audit = await show(pilot, "a", AuditScreen)
        await wait_until(pilot, lambda: verdicts(audit) == now, "the audit recomputed")

        # t again returns to the pool order
        await pilot.press("g", "t")
        await pilot.pause()
        assert not bar.active and "back to the pool order" in screen_text(app)


async def test_compare_view_side_by_side_and_a_grade_given_there(tmp_path: Path) -> None:
    workspace = build_story_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, "s", ScoresScreen)
        await pilot.press("p")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, VerdictsScreen)
        shown = screen_text(app)
        for label in ("W/T/L", "p t", "p rand", "bootstrap 95 %", "bounds under the holes"):
            assert label in shown
        assert "could flip" in shown

        # a pair that could flip, on the query of the settle order's first hole
        with open_workspace(workspace) as ws:
            first = SettleQueue.of_workspace(ws, ws.default_contract()).step().hole
        assert first is not None
        pairs = view.compared.report.pairs
        index = next(
            i
            for i, p in enumerate(pairs)
            if p.verdict in ("could flip", "probable") and {p.a, p.b} & set(first.runs)
        )
        pair = pairs[index]
        view.query_one("#verdicts-pairs", DataTable).move_cursor(row=index)
        await pilot.pause()
        assert view.pair_index == index
        queries = view.query_one("#verdicts-queries", DataTable)
        queries.focus()
        queries.move_cursor(row=queries.get_row_index(first.query_id))
        await pilot.press("o")
        await settle(pilot)
        lists = app.screen
        assert isinstance(lists, SideBySideScreen)
        await wait_until(pilot, lambda: lists.lists is not None, "both lists")
        column_a = lists.query_one("#sbs-a", RankedColumn)
        column_b = lists.query_one("#sbs-b", RankedColumn)
        assert column_a.row_count == column_b.row_count == 10
        assert (lists.a, lists.b, lists.query_id) == (pair.a, pair.b, first.query_id)
        assert "only here" in screen_text(app)  # documents one run found and the other did not

        # a hole of either list, graded here with its true grade
        assert lists.lists is not None
        hole = next(
            (column, row.doc_id)
            for column, drilldown in ((column_a, lists.lists.a), (column_b, lists.lists.b))
            for row in drilldown.ranked[:10]
            if row.grade is None
        )
        column, doc_id = hole
        column.focus()
        column.move_cursor(row=column.docs.index(doc_id))
        await pilot.pause()
        assert lists.current_doc == doc_id
        await wait_until(pilot, lambda: doc_id in screen_text(app), "the document's text")
        grade = true_grade(lists.query_id, doc_id)
        holes_before = {(p.a, p.b): p.holes for p in view.compared.report.pairs}
        await pilot.press(str(grade))
        await settle(pilot)

        def regraded() -> bool:
            assert lists.lists is not None
            drilldown = lists.lists.a if column is column_a else lists.lists.b
            return any(r.doc_id == doc_id and r.grade == grade for r in drilldown.ranked)

        await wait_until(pilot, regraded, "the list to show the grade")
        with open_workspace(workspace) as ws:
            assert (
                app_queries.item_judgment(ws, "tester", lists.query_id, doc_id).own_grade == grade
            )
        # the comparison under the dialog was compared again: one hole fewer for the pair
        await wait_until(
            pilot,
            lambda: (
                view.compared.report.pairs[view.pair_index].holes
                == holes_before[(pair.a, pair.b)] - 1
            ),
            "the verdicts recomputed",
        )
        # the grade screen's plan counts it
        assert isinstance(app, JudgepoolApp)
        assert app.session.judgment(lists.query_id, doc_id).own_grade == grade
