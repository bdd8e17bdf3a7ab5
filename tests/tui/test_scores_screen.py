"""The scores screen, driven with the Pilot on a real workspace file.

The numbers on screen are checked against ``judgepool score --format json``
run through click on the same inputs; sorting, the contract dialog, the
drill-down and the run comparison are driven with keys as a person would.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select, Static

from judgepool.cli import main
from judgepool.core.auditing.result_order import SORT_KEYS
from judgepool.core.terms.types import QueryResult
from judgepool.tui.dialogs.comparison import ComparisonScreen
from judgepool.tui.dialogs.drilldown import DrilldownScreen
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.widgets.score_contract import ContractDialog
from judgepool.tui.widgets.score_runs import RunSummaryTable
from judgepool.tui.widgets.score_table import COLUMNS, PerQueryTable
from tests.tui.pilot_support import screen_text
from tests.tui.review_support import (
    build_review_workspace,
    review_app,
    settle,
)

SIZE = (150, 45)


def _workspace_option() -> bool:
    # commands are registered when first used (cli/__init__.py): ask for it by name
    command = main.get_command(click.Context(main), "score")
    assert isinstance(command, click.Command)
    return any(param.name == "workspace" for param in command.params)


def cli_scores(workspace: Path, runs: list[str], *options: str) -> dict[str, dict[str, Any]]:
    """``judgepool score --format json`` per run name: the stored runs with
    ``--workspace`` (or, before the command had it, the very files the workspace
    was built from, which give the same numbers and digests)."""
    if _workspace_option():
        args = ["score", *runs, "--workspace", str(workspace), "--format", "json", "--per-query"]
    else:
        directory = workspace.parent
        args = [
            "score",
            *(str(directory / f"{run}.trec") for run in runs),
            "--qrels",
            str(directory / "qrels.txt"),
            "--format",
            "json",
            "--per-query",
        ]
    if importlib.util.find_spec("judgepool.core.fast") is None:
        # the fast engine is not built yet; the reference one gives the same numbers
        args += ["--engine", "reference"]
    result = CliRunner().invoke(main, [*args, *options])
    assert result.exit_code == 0, result.output
    by_run: dict[str, dict[str, Any]] = {}
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    for line in lines:
        record = json.loads(line)
        label = str(record["run"])
        # a run file's name up to its first dot, or a stored run's name
        name = label.rsplit("#", 1)[1] if "#" in label else Path(label).name.split(".", 1)[0]
        by_run[name] = record
    return {run: by_run[run] for run in runs}


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def row_texts(table: DataTable[Text], key: str) -> dict[str, str]:
    """The cells of one row by column key, as plain text."""
    cells = table.get_row(key)
    return {
        str(column.key.value): cell.plain
        for column, cell in zip(table.ordered_columns, cells, strict=True)
    }


def assert_summary_matches(table: DataTable[Text], run: str, record: dict[str, Any]) -> None:
    summary = record["summary"]
    shown = row_texts(table, run)
    assert shown["run"] == run
    assert shown["ndcg"] == fmt(summary["ndcg"])
    assert shown["pooled"] == fmt(summary["ndcg_pooled"])
    assert shown["candidate"] == fmt(summary["candidate_ndcg"])
    assert shown["judged"] == fmt(summary["judged_at_k"])
    for key in ("queries", "scored", "zero_idcg", "excluded", "missing", "unknown"):
        assert shown[key] == str(summary[key]), key
    assert shown["unjudged"] == str(summary["unjudged_at_k"])


async def open_scores(pilot: Pilot[Any]) -> ScoresScreen:
    await pilot.press("s")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ScoresScreen)
    return screen


async def test_default_contract_refuses_the_run_with_holes_and_matches_the_cli(
    tmp_path: Path,
) -> None:
    workspace = build_review_workspace(tmp_path)
    # the CLI refuses alpha too (exit 1): ask it for beta alone
    expected = cli_scores(workspace, ["beta"])
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scores(pilot)
        runs = screen.query_one(RunSummaryTable)
        assert runs.row_count == 2
        alpha = row_texts(runs, "alpha")
        assert alpha["ndcg"] == "refused"
        assert "unjudged" in alpha["note"]
        assert_summary_matches(runs, "beta", expected["beta"])
        # the contract in force is on screen
        assert "unjudged=reject" in screen_text(app)


async def test_scores_are_the_cli_numbers(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    expected = cli_scores(workspace, ["alpha", "beta"], "--unjudged", "zero")
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(unjudged="zero")
        screen = await open_scores(pilot)
        runs = screen.query_one(RunSummaryTable)
        board = screen.board
        assert board is not None
        for run in ("alpha", "beta"):
            assert_summary_matches(runs, run, expected[run])
            # the same judged universe, run and contract: the same fingerprint
            scored = board.run(run).scored
            assert scored is not None
            assert scored.qrels_digest == expected[run]["qrels_digest"]
            assert scored.fingerprint == expected[run]["fingerprint"]
        # the per-query table of the highlighted run shows the CLI's per-query values
        table = screen.query_one(PerQueryTable)
        assert runs.current_run == "alpha"
        per_query = {r["query_id"]: r for r in expected["alpha"]["per_query"]}
        assert sorted(table.shown_order) == sorted(per_query)
        for query_id, record in per_query.items():
            shown = row_texts(table, query_id)
            assert shown["ndcg"] == fmt(record["ndcg"])
            assert shown["dcg"] == fmt(record["dcg"])
            assert shown["idcg"] == fmt(record["idcg"])
            assert shown["candidate_ndcg"] == fmt(record["candidate_ndcg"])
            assert shown["judged_at_k"] == fmt(record["judged_at_k"])
            assert (shown["zero_idcg"] == "zero-IDCG") is record["zero_idcg"]
        # q1 has an unjudged document: candidate-only overstates its nDCG
        q1 = per_query["q1"]
        assert row_texts(table, "q1")["inflation"] == f"{q1['candidate_ndcg'] - q1['ndcg']:+.4f}"
        text = screen_text(app)
        assert "nDCG@10 per query" in text  # the box plot's title
        assert "candidate-only@10" in text


def _sorted_ids(results: list[QueryResult], key: str, descending: bool) -> list[str]:
    """The expected order, written out independently of `sort_results`."""

    def value_of(result: QueryResult) -> Any:
        return SORT_KEYS[key](result)

    defined = [r for r in results if value_of(r) is not None]
    undefined = [r.query_id for r in results if value_of(r) is None]
    if descending:
        # equal values keep query ID order
        ordered = sorted(sorted(defined, key=lambda r: r.query_id), key=value_of, reverse=True)
    else:
        ordered = sorted(defined, key=lambda r: (value_of(r), r.query_id))
    return [r.query_id for r in ordered] + sorted(undefined)


async def test_sorting_by_key_and_by_header_click(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(unjudged="zero")
        screen = await open_scores(pilot)
        table = screen.query_one(PerQueryTable)
        board = screen.board
        assert board is not None
        evaluation = board.run("alpha").evaluation
        assert evaluation is not None
        results = list(evaluation.per_query)
        # starts worst first
        assert table.sort_key == "ndcg"
        assert table.shown_order == _sorted_ids(results, "ndcg", False)
        # `o` walks through every column
        for key, _ in [*COLUMNS[COLUMNS.index(("ndcg", "nDCG@{k}")) + 1 :], *COLUMNS[:2]]:
            await pilot.press("o")
            assert table.sort_key == key
            if key == "query":
                assert table.shown_order == sorted(r.query_id for r in results)
            else:
                assert table.shown_order == _sorted_ids(results, key, False), key
        assert table.sort_key == "ndcg"
        await pilot.press("r")
        assert table.descending
        assert table.shown_order == _sorted_ids(results, "ndcg", True)
        # a click on the IDCG header sorts by it; a second click reverses
        offset = sum(
            column.get_render_width(table)
            for column in table.ordered_columns[: [k for k, _ in COLUMNS].index("idcg")]
        )
        await pilot.click(PerQueryTable, offset=(offset + 2, 0))
        await pilot.pause()
        assert table.sort_key == "idcg"
        assert not table.descending
        assert table.shown_order == _sorted_ids(results, "idcg", False)
        await pilot.click(PerQueryTable, offset=(offset + 2, 0))
        await pilot.pause()
        assert table.descending
        assert "▼" in str(table.ordered_columns[3].label)


async def test_changing_the_contract_recomputes(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    expected = cli_scores(workspace, ["alpha", "beta"], "--unjudged", "zero", "-k", "3")
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scores(pilot)
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ContractDialog)
        # an invalid value shows the contract's own message and keeps the dialog
        dialog.query_one("#contract-k", Input).value = ""
        await pilot.press("0", "enter")
        await pilot.pause()
        error = dialog.query_one("#contract-error", Static)
        assert app.screen is dialog
        assert "k must be a positive integer, got 0" in screen_text(app)
        dialog.query_one("#contract-k", Input).value = "10"
        dialog.query_one("#contract-gain", Input).value = "0=0,1=1"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert "gives no gain for grade(s) [2, 3]" in str(error.content)
        assert app.contract.k == 10
        # valid values: the dialog closes, the app's contract changes, all recomputes
        dialog.query_one("#contract-gain", Input).value = "linear"
        dialog.query_one("#contract-k", Input).value = "3"
        dialog.query_one("#contract-unjudged", Select).value = "zero"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert app.contract.k == 3
        assert app.contract.unjudged == "zero"
        runs = screen.query_one(RunSummaryTable)
        for run in ("alpha", "beta"):
            assert_summary_matches(runs, run, expected[run])
        text = screen_text(app)
        assert "k=3" in text
        assert "nDCG@3" in text


async def test_drill_down_shows_grades_beside_the_ideal_list(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(unjudged="zero")
        screen = await open_scores(pilot)
        table = screen.query_one(PerQueryTable)
        table.focus()
        table.move_cursor(row=table.shown_order.index("q1"))
        await pilot.press("enter")
        await settle(pilot)
        drill = app.screen
        assert isinstance(drill, DrilldownScreen)
        ranked: DataTable[Text] = drill.query_one("#drill-ranked", DataTable)
        ideal: DataTable[Text] = drill.query_one("#drill-ideal", DataTable)
        ranked_rows = [[c.plain for c in ranked.get_row_at(i)] for i in range(ranked.row_count)]
        ideal_rows = [[c.plain for c in ideal.get_row_at(i)] for i in range(ideal.row_count)]
        # alpha's q1: B C [bold]X A; the markup-like ID is shown as it is
        assert [(r[1], r[2]) for r in ranked_rows] == [
            ("B", "2"),
            ("C", "1"),
            ("[bold]X", "unjudged"),
            ("A", "3"),
        ]
        assert [(r[1], r[2]) for r in ideal_rows] == [
            ("A", "3"),
            ("B", "2"),
            ("C", "1"),
            ("D", "0"),
        ]
        assert "[bold]X" in screen_text(app)
        await pilot.press("escape")
        assert app.screen is screen


async def test_comparison_counts_wins_ties_losses(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(unjudged="zero")
        await open_scores(pilot)
        await pilot.press("v")
        await pilot.pause()
        compare = app.screen
        assert isinstance(compare, ComparisonScreen)
        # alpha against beta: beta is perfect on q1, q2 and q4 (which alpha
        # skipped); q3 has no relevant document, 0 for both
        result = compare.comparison
        assert (result.run_a, result.run_b) == ("alpha", "beta")
        assert (result.wins, result.ties, result.losses) == (0, 1, 3)
        text = screen_text(app)
        assert "A wins 0  ties 1  losses 3" in text
        await pilot.press("x")
        assert (compare.comparison.run_a, compare.comparison.wins) == ("beta", 3)
        assert "A wins 3  ties 1  losses 0" in screen_text(app)
        outcomes = {row.query_id: row.outcome for row in compare.comparison.rows}
        assert outcomes == {"q1": "win", "q2": "win", "q3": "tie", "q4": "win"}


async def test_a_saved_grade_recomputes_the_scores(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scores(pilot)
        assert row_texts(screen.query_one(RunSummaryTable), "alpha")["ndcg"] == "refused"
        # grade both holes of alpha outside the screen, then tell the app
        from judgepool.services.judging import judge
        from judgepool.services.workspace import open_workspace

        with open_workspace(workspace) as ws:
            judge(ws, "q1", "[bold]X", 0, annotator="other")
            judge(ws, "q2", "Y", 3, annotator="other")
        app.grade_saved("q2", "Y", 3)
        await settle(pilot)
        shown = row_texts(screen.query_one(RunSummaryTable), "alpha")
        assert shown["ndcg"] != "refused"
        assert shown["unjudged"] == "0"


def test_snapshot_scores_screen(tmp_path: Path, snap_compare: Any) -> None:
    """The scores screen under unjudged=zero: the contract bar on top, alpha
    and beta's summaries (alpha highlighted), alpha's per-query table sorted
    by nDCG ascending, beside the box plots of both runs' per-query nDCG
    (alpha's highlighted)."""
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)

    async def run_before(pilot: Pilot[Any]) -> None:
        app.contract = app.contract.with_changes(unjudged="zero")
        await pilot.press("s")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
