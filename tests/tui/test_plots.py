"""The app's plots as people see them: each present on its screen with the
numbers the services compute, following the highlight, updated after a grade
where the view updates, and data text (run and annotator names) drawn as
typed, never as markup or terminal escapes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from judgepool.core.auditing.ndcg_spread import ndcg_spread
from judgepool.core.comparing.query_differences import QueryDifference, sorted_differences
from judgepool.core.team.pair_confusion import PairConfusion
from judgepool.services.agreement import workspace_agreement
from judgepool.services.consensus import workspace_judgments
from judgepool.services.judging import judge
from judgepool.services.judgments_source import workspace_source
from judgepool.services.review import judged_share_of_run, score_workspace_runs
from judgepool.services.workspace import open_workspace
from judgepool.services.workspace_comparison import compare_workspace
from judgepool.store import ledger
from judgepool.tui import grade_writer
from judgepool.tui.dialogs.verdicts import VerdictsScreen
from judgepool.tui.screens.agreement import AgreementScreen
from judgepool.tui.screens.audit import AuditScreen
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.widgets.confusion_plot import ConfusionHeatMap
from judgepool.tui.widgets.data_plot import DataPlot
from judgepool.tui.widgets.judged_share_plot import JudgedSharePlot
from judgepool.tui.widgets.ndcg_plot import NdcgBoxPlot
from judgepool.tui.widgets.pair_plot import PairDifferencePlot
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.story_support import build_story_workspace, true_grade
from tests.tui.test_adjudication_screen import _team

SIZE = (120, 36)


def plot_text(plot: DataPlot) -> str:
    rendered = plot.render()
    assert isinstance(rendered, Text)
    return rendered.plain


# -- scores: every run's per-query nDCG ----------------------------------------------


async def test_the_scores_box_plot_has_every_runs_spread_and_follows_the_grades(
    tmp_path: Path,
) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ScoresScreen)
        plot = screen.query_one(NdcgBoxPlot)
        with open_workspace(workspace) as ws:
            board = score_workspace_runs(ws, app.contract)
        # alpha is refused for its holes (unjudged=reject): no box, named as such
        beta = board.run("beta").evaluation
        assert beta is not None
        assert plot.spreads == (
            ndcg_spread("alpha", ()),
            ndcg_spread("beta", [r.ndcg for r in beta.per_query]),
        )
        assert plot.current == "alpha" and plot.k == 10
        text = plot_text(plot)
        assert "nDCG@10 per query" in text and "1 run without a value" in text
        assert "beta" in text
        # the highlight moves to beta: the plot's colour follows it
        await pilot.press("down")
        await pilot.pause()
        assert plot.current == "beta"
        # both holes of alpha graded elsewhere: alpha gets its box
        with open_workspace(workspace) as ws:
            judge(ws, "q1", "[bold]X", 0, annotator="other")
            judge(ws, "q2", "Y", 3, annotator="other")
        app.grade_saved("q2", "Y", 3)
        await settle(pilot)
        await wait_until(pilot, lambda: plot.spreads[0].five is not None, "alpha's box")
        with open_workspace(workspace) as ws:
            alpha = score_workspace_runs(ws, app.contract).run("alpha").evaluation
        assert alpha is not None
        assert plot.spreads[0] == ndcg_spread("alpha", [r.ndcg for r in alpha.per_query])


async def test_P_puts_the_box_plot_in_the_tables_place_at_80_columns(tmp_path: Path) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await settle(pilot)
        plot = app.screen.query_one(NdcgBoxPlot)
        assert not plot.display  # beside the table there is no room
        await pilot.press("P")
        await pilot.pause()
        assert plot.display and plot.region.width == 80
        assert plot.size.height >= plot.MIN_HEIGHT
        assert "beta" in plot_text(plot)
        await pilot.press("P")
        await pilot.pause()
        assert not plot.display


# -- the pairs view: the highlighted pair's sorted differences ------------------------


def expected_rows(workspace: Path, contract: Any, a: str, b: str) -> tuple[QueryDifference, ...]:
    with open_workspace(workspace) as ws:
        compared = compare_workspace(ws, contract)
    assert compared is not None
    report = compared.report
    return sorted_differences(
        report.population, report.per_query_diffs[(a, b)], report.per_query_bounds[(a, b)]
    )


async def test_the_pairs_plot_marks_the_queries_the_holes_could_reverse_and_follows_grades(
    tmp_path: Path,
) -> None:
    workspace = build_story_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, VerdictsScreen)
        plot = view.query_one(PairDifferencePlot)
        contract = view.compared.report.contract
        first = view.compared.report.pairs[0]
        assert (plot.a, plot.b) == (first.a, first.b)
        assert plot.rows == expected_rows(workspace, contract, first.a, first.b)
        assert [r.diff for r in plot.rows] == sorted(r.diff for r in plot.rows)
        # the first pair is settled: the holes can reverse none of its queries
        assert first.verdict == "settled" and not any(r.reversible for r in plot.rows)
        # the next pair could still change: some of its queries are marked
        view.query_one("#verdicts-pairs", DataTable).move_cursor(row=1)
        await pilot.pause()
        second = view.compared.report.pairs[1]
        assert (plot.a, plot.b) == (second.a, second.b)
        assert plot.rows == expected_rows(workspace, contract, second.a, second.b)
        marked = [r for r in plot.rows if r.reversible]
        assert marked
        text = plot_text(plot)
        assert "the holes could reverse" in text
        assert f"{len(marked)} of {len(plot.rows)} reversible" in text
        # a hole of a marked query graded: the plot shows the new numbers
        with open_workspace(workspace) as ws:
            judgments, _ = workspace_judgments(ws)
        query = marked[0].query_id
        tops = view.compared.report.per_query_bounds  # the holes are the runs' unjudged docs
        assert tops
        hole = next(
            doc
            for doc in _run_docs(workspace, second.b, query) + _run_docs(workspace, second.a, query)
            if doc not in judgments.get(query, {})
        )
        before = plot.rows
        written = grade_writer.judge(app, (query, hole), true_grade(query, hole))
        assert isinstance(written, grade_writer.Written)
        await settle(pilot)
        await wait_until(pilot, lambda: plot.rows != before, "the plot to follow the grade")
        assert plot.rows == expected_rows(workspace, contract, second.a, second.b)


def _run_docs(workspace: Path, run: str, query: str) -> list[str]:
    from judgepool.store.runs import run_entries

    with open_workspace(workspace) as ws:
        entries = [e for e in run_entries(ws, run) if e.query_id == query]
    return [e.doc_id for e in sorted(entries, key=lambda e: e.rank)][:10]


# -- the audit: judged share by rank ---------------------------------------------------


async def test_the_audit_plot_is_the_runs_judged_share_by_rank_and_follows_grades(
    tmp_path: Path,
) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        plot = screen.query_one(JudgedSharePlot)
        await wait_until(pilot, lambda: plot.run == "alpha", "alpha audited")

        def expected() -> tuple[float | None, ...]:
            with open_workspace(workspace) as ws:
                return judged_share_of_run(ws, "alpha", workspace_source(ws), app.contract)

        # alpha's holes: q1 at rank 3 ([bold]X), q2 at rank 3 (Y); three judged
        # queries reach rank 3 (q1, q2, q3 has two documents)
        assert plot.shares == expected()
        assert plot.shares[:4] == (1.0, 1.0, 0.0, 1.0)
        assert plot.shares[4:] == (None,) * 6
        assert "judged share by rank: alpha" in plot_text(plot)
        with open_workspace(workspace) as ws:
            judge(ws, "q2", "Y", 3, annotator="other")
        app.grade_saved("q2", "Y", 3)
        await settle(pilot)
        await wait_until(pilot, lambda: plot.shares[2] == 0.5, "the share to follow the grade")
        assert plot.shares == expected()


# -- agreement: the highlighted pair's confusion table ------------------------------


async def test_the_agreement_heat_map_is_the_highlighted_pairs_table(
    teaching_ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger, "now", lambda: "2026-01-02T03:04:05.000000Z")
    _team(teaching_ws)
    from judgepool.tui.app import create_app

    app = create_app(teaching_ws, "lena")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("K")
        await wait_until(pilot, lambda: app.screen.id == "agreement", "the screen")
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        heat = screen.query_one(ConfusionHeatMap)
        with open_workspace(teaching_ws) as ws:
            report = workspace_agreement(ws)
        assert heat.table == report.confusions[0]
        assert heat.table is not None
        first = report.overall.pairs[0]
        assert (heat.table.a, heat.table.b) == (first.a, first.b)
        assert heat.table.items == first.items
        text = plot_text(heat)
        assert f"{heat.table.items} items graded by both" in text


# -- data text drawn as typed ------------------------------------------------------------


class PlotsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield NdcgBoxPlot(id="box")
        yield PairDifferencePlot(id="pair")
        yield JudgedSharePlot(id="share")
        yield ConfusionHeatMap(id="heat")


async def test_names_in_titles_ticks_and_legends_are_drawn_as_typed() -> None:
    app = PlotsApp()
    async with app.run_test(size=(120, 80)) as pilot:
        box = app.query_one(NdcgBoxPlot)
        box.styles.height = 20
        box.show(
            [
                ndcg_spread("[bold]x[/]", [0.2, 0.5, 0.9]),
                ndcg_spread("[red]", [0.1, 0.3]),
                ndcg_spread("esc\x1b[31m", [0.4]),
            ],
            10,
            "[red]",
        )
        pair = app.query_one(PairDifferencePlot)
        pair.styles.height = 20
        pair.show("[bold]a[/]", "[red]", [QueryDifference("q", 0.2, (-0.1, 0.3), True)])
        share = app.query_one(JudgedSharePlot)
        share.styles.height = 20
        share.show("[red]", [1.0, 0.5])
        heat = app.query_one(ConfusionHeatMap)
        heat.styles.height = 20
        heat.show(PairConfusion("[b]ann", "[red]", (0, 1), ((1, 0), (0, 1))))
        await pilot.pause()
        box_text = plot_text(box)
        assert "[bold]x[/]" in box_text and "[red]" in box_text
        assert "esc\\x1b[31m" in box_text and "\x1b" not in box_text
        assert "[bold]a[/] − [red]" in plot_text(pair)
        assert "judged share by rank: [red]" in plot_text(share)
        heat_text = plot_text(heat)
        assert "[b]ann" in heat_text and "[red]" in heat_text


async def test_a_plot_too_small_to_read_says_so_instead_of_drawing() -> None:
    app = PlotsApp()
    async with app.run_test(size=(40, 30)) as pilot:
        share = app.query_one(JudgedSharePlot)
        share.styles.height = 4
        share.show("r", [1.0])
        await pilot.pause()
        assert plot_text(share) == "(the plot needs 24 × 8 cells)"


async def test_a_long_title_is_cut_to_the_plots_width_not_left_out() -> None:
    app = PlotsApp()
    async with app.run_test(size=(40, 40)) as pilot:
        share = app.query_one(JudgedSharePlot)
        share.styles.height = 12
        share.show("a-run-with-a-very-long-name", [1.0, 0.5])
        await pilot.pause()
        first_line = plot_text(share).splitlines()[0]
        assert first_line.strip().startswith("judged share by rank: a-run")
        assert first_line.rstrip().endswith("…")
