"""The list of every run's holes (``H`` on the audit screen), driven with the
Pilot on real workspace files.

What it lists is checked against the audit itself, run by run (the same
holes, the same runs, the same best ranks), and against
`judgepool.core.holes.settle.find_holes` over the runs' top k; enter goes from the
list to the grade screen with the rest queued, and a grade takes the hole
off the list the next time it opens.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable

from judgepool.core.holes.settle import find_holes
from judgepool.services import judging
from judgepool.services.consensus import workspace_judgments
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.review import audit_workspace_run
from judgepool.services.runs.scoring import score_run_with_tops
from judgepool.services.runs.sources import run_names, stored_source
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import create_app
from judgepool.tui.dialogs.all_holes import AllHolesScreen
from judgepool.tui.screens.audit import AuditScreen
from judgepool.tui.screens.grade import GradeScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle

SIZE = (150, 45)
# (query, document) -> (the runs that hold it in their top k, its best rank)
Holes = dict[tuple[str, str], tuple[set[str], int]]


def audited_holes(workspace: Path, app: Any) -> Holes:
    """Every run's holes as the audit screen shows them, run by run, gathered."""
    found: Holes = {}
    with open_workspace(workspace) as ws:
        for run in run_names(ws):
            audit = audit_workspace_run(ws, run, app.contract)
            for query in audit.queries:
                for hole in query.holes:
                    runs, best = found.get((query.query_id, hole.doc_id), (set(), hole.rank))
                    runs.add(run)
                    found[(query.query_id, hole.doc_id)] = (runs, min(best, hole.rank))
    return found


def listed_holes(dialog: AllHolesScreen) -> Holes:
    assert dialog.holes is not None
    return {
        (item.hole.query_id, item.hole.doc_id): (set(item.hole.runs), item.hole.best_rank)
        for item in dialog.holes.listed
    }


def column(table: DataTable[Text], key: str) -> list[str]:
    index = [str(c.key.value) for c in table.ordered_columns].index(key)
    return [table.get_row_at(row)[index].plain for row in range(table.row_count)]


async def open_all_holes(pilot: Pilot[Any]) -> AllHolesScreen:
    """From anywhere: the audit screen, then ``H``."""
    await pilot.press("a")
    await settle(pilot)
    assert isinstance(pilot.app.screen, AuditScreen)
    await pilot.press("H")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, AllHolesScreen)
    assert dialog.holes is not None
    return dialog


@asynccontextmanager
async def holes_of_two_sets(
    tmp_path: Path,
) -> AsyncIterator[tuple[Path, Pilot[Any], list[tuple[str, str]]]]:
    """The hostile and teaching sets in one workspace, the app open as alice
    on every run's holes: the workspace, the pilot and the holes' order."""
    from tests.tui.conftest import build_workspace

    workspace = build_workspace(tmp_path / "two.sqlite", ["hostile", "teaching"])
    app = create_app(workspace, "alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        dialog = await open_all_holes(pilot)
        assert dialog.holes is not None
        yield workspace, pilot, list(dialog.holes.order)


async def test_every_runs_holes_with_runs_and_text(tmp_path: Path) -> None:
    """The hostile and teaching sets (three runs, nothing judged): every hole
    the audit shows for any run, once, with its runs, best rank first and a
    shared hole before a lone one; markup and escapes in IDs and texts shown
    as typed."""
    from tests.tui.conftest import build_workspace

    workspace = build_workspace(tmp_path / "two.sqlite", ["hostile", "teaching"])
    app = create_app(workspace, "alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        dialog = await open_all_holes(pilot)
        holes = dialog.holes
        assert holes is not None
        expected = audited_holes(workspace, app)
        assert len(expected) == 6
        assert listed_holes(dialog) == expected
        assert (holes.counts.holes, holes.counts.queries, holes.counts.runs) == (6, 2, 3)
        # best rank first; at rank 1, B (both teaching runs) before the lone ones
        order = [(item.hole.best_rank, -len(item.hole.runs)) for item in holes.listed]
        assert order == sorted(order)
        assert [item.hole.doc_id for item in holes.listed][:1] == ["B"]
        table: DataTable[Text] = dialog.query_one("#holes-table", DataTable)
        assert column(table, "document") == [item.hole.doc_id for item in holes.listed]
        assert column(table, "runs") == ["2", "1", "1", "1", "1", "1"]
        assert column(table, "which runs")[0] == "teaching/candidates-bc, teaching/perfect-ab"
        assert column(table, "text")[0].startswith("Green tea turns bitter when the water")
        text = screen_text(app)
        assert "6 holes in the top 10 · 2 queries · 3 of 3 runs" in text
        assert "[red]hostile-id[/red]" in column(table, "document")
        for shown in (
            "[red]hostile-id…",  # an ID that is markup, cut to fit
            "Rich markup that must show as typed: [bold]not bold[/bold]",
            "[blink]\\x1b[5mblink",  # an escape in a text, shown as one
        ):
            assert shown in text, shown
        assert "\x1b" not in text
        # the highlighted hole's runs, named in full below the table
        assert "in the top k of 2 runs: teaching/candidates-bc, teaching/perfect-ab" in text
        # and its whole ID
        table.move_cursor(row=column(table, "document").index("[red]hostile-id[/red]"))
        await pilot.pause()
        assert "document [red]hostile-id[/red]  best rank 3" in screen_text(app)


async def test_the_holes_are_find_holes_over_every_run(tmp_path: Path) -> None:
    """The review workspace (alpha has holes, one on a query the judgments do
    not know; beta has none): the judged queries' holes are `find_holes` over
    both runs' top k, and the unknown query's top document is listed too, as
    the audit lists it."""
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_all_holes(pilot)
        with open_workspace(workspace) as ws:
            judgments, digest = workspace_judgments(ws)
            tops = {
                run: score_run_with_tops(
                    stored_source(ws, run),
                    JudgmentsSource(judgments, digest),
                    app.contract.with_changes(unjudged="zero"),
                )[1]
                for run in run_names(ws)
            }
        judged = {
            (hole.query_id, hole.doc_id): (set(hole.runs), hole.best_rank)
            for hole in find_holes(tops, app.contract.k)
        }
        assert judged == {("q1", "[bold]X"): ({"alpha"}, 3), ("q2", "Y"): ({"alpha"}, 3)}
        assert listed_holes(dialog) == {**judged, ("q5", "Z"): ({"alpha"}, 1)}
        assert listed_holes(dialog) == audited_holes(workspace, app)
        assert "3 holes in the top 10 · 3 queries · 1 of 2 runs" in screen_text(app)


async def test_enter_grades_the_first_and_the_next_comes(tmp_path: Path) -> None:
    """Enter sends the first listed hole to grading with the rest queued in
    the list's order; after a grade the next one is on screen; the list opened
    again has one hole fewer, the graded one gone."""
    async with holes_of_two_sets(tmp_path) as (workspace, pilot, order):
        app = pilot.app
        await pilot.press("enter")
        await settle(pilot)
        grade = app.screen
        assert isinstance(grade, GradeScreen)
        assert grade.session.current == order[0]
        assert list(grade.holes) == order
        await pilot.press("2")
        await settle(pilot)
        assert grade.session.current == order[1]
        assert "next hole" in screen_text(app)
        assert f"{len(order) - 1} holes left to judge" in screen_text(app)
        with open_workspace(workspace) as ws:
            judgments, _ = workspace_judgments(ws)
        assert judgments[order[0][0]][order[0][1]] == 2
        again = await open_all_holes(pilot)
        assert again.holes is not None
        assert list(again.holes.order) == order[1:]
        assert again.holes.counts.holes == len(order) - 1
        assert f"{len(order) - 1} holes in the top 10" in screen_text(app)


async def test_the_list_follows_grades_from_another_terminal(tmp_path: Path) -> None:
    """A colleague grades two listed holes in another process while the list
    is open: both leave it by themselves (the live refresh), the count in the
    heading follows, and the highlighted hole stays highlighted."""
    async with holes_of_two_sets(tmp_path) as (workspace, pilot, order):
        app = pilot.app
        dialog = app.screen
        assert isinstance(dialog, AllHolesScreen)
        assert len(order) >= 4
        await pilot.press("down", "down")
        await settle(pilot)
        highlighted = order[2]
        with open_workspace(workspace) as ws:
            for query_id, doc_id in (order[0], order[3]):
                judging.judge(ws, query_id, doc_id, 1, annotator="bob")
        rest = [order[1], order[2], *order[4:]]
        await wait_until(
            pilot,
            lambda: dialog.holes is not None and list(dialog.holes.order) == rest,
            "the graded holes to leave the list",
        )
        await settle(pilot)
        assert dialog.current == rest.index(highlighted)
        assert f"{len(rest)} holes in the top 10" in screen_text(app)
        table = app.screen.query_one(DataTable)
        listed = set(zip(column(table, "query"), column(table, "document"), strict=True))
        assert order[0] not in listed and order[3] not in listed


async def test_j_on_a_later_hole_queues_from_there(tmp_path: Path) -> None:
    """j on the third hole: it comes first, then the ones below it, then the
    ones above; escape closes the list without sending anything."""
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_all_holes(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AuditScreen)
        dialog = await open_all_holes(pilot)
        assert dialog.holes is not None
        order = list(dialog.holes.order)
        assert len(order) == 3
        await pilot.press("down", "down", "j")
        await settle(pilot)
        grade = app.screen
        assert isinstance(grade, GradeScreen)
        assert grade.session.current == order[2]
        assert list(grade.holes) == [order[2], order[0], order[1]]


async def test_no_holes_says_so(tmp_path: Path) -> None:
    """At k=2 the review workspace's only hole is the unknown q5's Z (alpha's
    others are at rank 3); once it is graded, the list says every run's top 2
    is judged, and enter sends nothing."""
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(k=2)
        dialog = await open_all_holes(pilot)
        assert dialog.holes is not None
        assert list(dialog.holes.order) == [("q5", "Z")]
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        dialog = await open_all_holes(pilot)
        assert dialog.holes is not None and dialog.holes.order == ()
        assert "No holes: every run's top 2 is judged (2 runs)" in screen_text(app)
        await pilot.press("enter")  # nothing to send: the list stays
        await settle(pilot)
        assert app.screen is dialog
