"""The grade screen's settle order and the comparison views, beyond the story:
unsure defers a hole, undo ranks the holes again, ``n`` returns to where the
annotator was, a workspace without runs is told so, and data in the pairs
and the side-by-side lists shows literally. Driven with the Pilot on real
workspace files.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from judgepool.services.imports import import_documents, import_queries
from judgepool.services.settle_queue import SettleQueue, SettleStep
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.tui.dialogs.side_by_side import SideBySideScreen
from judgepool.tui.dialogs.verdicts import VerdictsScreen
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.widgets.settle_order import SettleOrder, pairs_words
from judgepool.tui.widgets.side_by_side import RankedColumn
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.story_support import build_story_workspace

SIZE = (150, 45)


async def test_unsure_defers_the_hole_and_undo_ranks_again(tmp_path: Path) -> None:
    workspace = build_story_workspace(tmp_path)
    with open_workspace(workspace) as ws:
        first = SettleQueue.of_workspace(ws, ws.default_contract()).step().hole
    assert first is not None
    best = (first.query_id, first.doc_id)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        bar = grade.query_one(SettleOrder)
        await pilot.press("t")
        await wait_until(pilot, lambda: grade.session.current == best, "the first hole")
        holes = bar.last.holes if bar.last else None

        await pilot.press("u")  # unsure: not a grade, the next hole comes instead
        await wait_until(pilot, lambda: grade.session.current != best, "the next hole")
        assert bar.last is not None and bar.last.holes == holes  # nothing was judged
        assert grade.session.judgment(*best).own_unsure

        await pilot.press("z")  # undo: the queue is built again, the best hole is back
        await wait_until(pilot, lambda: grade.session.current == best, "the first hole again")
        assert bar.active and not grade.session.judgment(*best).own_unsure


async def test_n_leaves_the_settle_order_where_the_annotator_was(tmp_path: Path) -> None:
    workspace = build_story_workspace(tmp_path)
    with open_workspace(workspace) as ws:
        first = SettleQueue.of_workspace(ws, ws.default_contract()).step().hole
    assert first is not None
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        await pilot.press("j", "j")
        if grade.session.current == (first.query_id, first.doc_id):
            await pilot.press("j")  # away from the hole the settle order shows first
        before = grade.session.current
        assert before is not None
        bar = grade.query_one(SettleOrder)
        await pilot.press("t")
        await wait_until(pilot, lambda: bar.last is not None, "the settle order")
        await pilot.pause()
        assert grade.session.current != before
        assert "settle order:" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert not bar.active
        # back in the pool order, at the document before (unjudged) or the next unjudged
        assert grade.session.current == before or not grade.session.judgment(*before).judged
        assert "settle order:" not in screen_text(app)


async def test_settle_order_without_runs_says_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "queries.tsv").write_text("q1\tgreen tea\n", encoding="utf-8")
    (tmp_path / "docs.tsv").write_text("d1\tabout tea\n", encoding="utf-8")
    path = tmp_path / "empty.sqlite"
    with init_workspace(path) as ws:
        import_queries(ws, tmp_path / "queries.tsv")
        import_documents(ws, tmp_path / "docs.tsv")
    app = review_app(path)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert not grade.query_one(SettleOrder).active
        assert "the workspace has no runs: import runs to compare first" in screen_text(app)


async def test_ids_in_the_pairs_and_the_lists_show_literally(tmp_path: Path) -> None:
    # the review workspace: run alpha has the unjudged document "[bold]X" in q1
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("s")
        await settle(pilot)
        scores = app.screen
        assert isinstance(scores, ScoresScreen)
        await wait_until(pilot, lambda: scores.compared is not None, "the pairs")
        await pilot.press("p")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, VerdictsScreen)
        # unjudged=reject would refuse alpha: the view says how it compared them
        assert "as under unjudged=zero" in screen_text(app)
        queries = view.query_one("#verdicts-queries", DataTable)
        queries.focus()
        queries.move_cursor(row=queries.get_row_index("q1"))
        await pilot.press("enter")
        await settle(pilot)
        lists = app.screen
        assert isinstance(lists, SideBySideScreen)
        await wait_until(pilot, lambda: lists.lists is not None, "both lists")
        shown = screen_text(app)
        assert "[bold]X" in shown and "A alpha" in shown and "B beta" in shown


async def test_a_grade_given_side_by_side_counts_in_the_settle_order(tmp_path: Path) -> None:
    workspace = build_story_workspace(tmp_path)
    with open_workspace(workspace) as ws:
        first = SettleQueue.of_workspace(ws, ws.default_contract()).step().hole
    assert first is not None
    best = (first.query_id, first.doc_id)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        bar = grade.query_one(SettleOrder)
        await pilot.press("t")
        await wait_until(pilot, lambda: grade.session.current == best, "the first hole")
        assert bar.last is not None
        holes = bar.last.holes

        # another hole of the same query, graded in the side-by-side lists
        await pilot.press("s")
        await settle(pilot)
        scores = app.screen
        assert isinstance(scores, ScoresScreen)
        await wait_until(pilot, lambda: scores.compared is not None, "the pairs")
        await pilot.press("p")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, VerdictsScreen)
        pairs = view.compared.report.pairs
        index = next(i for i, p in enumerate(pairs) if {p.a, p.b} >= set(first.runs[:1]))
        view.query_one("#verdicts-pairs", DataTable).move_cursor(row=index)
        queries = view.query_one("#verdicts-queries", DataTable)
        queries.focus()
        queries.move_cursor(row=queries.get_row_index(first.query_id))
        await pilot.press("o")
        await settle(pilot)
        lists = app.screen
        assert isinstance(lists, SideBySideScreen)
        await wait_until(pilot, lambda: lists.lists is not None, "both lists")
        assert lists.lists is not None
        side_a = lists.a in first.runs  # the list of a run with the hole
        column = lists.query_one("#sbs-a" if side_a else "#sbs-b", RankedColumn)
        ranked = (lists.lists.a if side_a else lists.lists.b).ranked[:10]
        other = next(r.doc_id for r in ranked if r.grade is None and r.doc_id != first.doc_id)
        column.focus()
        column.move_cursor(row=column.docs.index(other))
        await pilot.pause()
        await pilot.press("1")
        await settle(pilot)

        # back on the grade screen: grading the shown hole ranks both in
        await pilot.press("g")
        await pilot.pause()
        assert grade.session.current == best
        await pilot.press("0")
        await wait_until(
            pilot, lambda: bar.last is not None and bar.last.holes == holes - 2, "both counted"
        )
        await pilot.pause()
        assert grade.session.current not in (best, (first.query_id, other))


def test_the_bar_names_undecided_and_probable_pairs_apart() -> None:
    def words(undecided: int, probable: int) -> str:
        return pairs_words(SettleStep(None, 3, undecided, probable, 15))

    assert words(2, 0) == "2 of 15 pairs could flip"
    assert words(2, 4) == "2 of 15 pairs could flip, 4 probable"
    assert words(0, 4) == "no pair of 15 undecided, 4 probable"
    assert words(0, 0) == "no pair of 15 can flip any more"
    assert SettleStep(None, 3, 2, 4, 15).open_pairs == 6  # the bounds leave both open
