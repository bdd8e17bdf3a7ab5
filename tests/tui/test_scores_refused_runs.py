"""A new workspace's scores screen, where ``unjudged=reject`` (the default)
refuses every run because every run has holes: one line says why and names the
keys out of it, at 80 × 24 (issue 17, point 11); the keys do what it says.

The workspace is the demo's data as someone would start: queries, documents,
the DL19 judgments, and the two modern runs (38 and 40 holes in their top 10).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.scores import ScoresScreen
from judgepool.tui.widgets.score_runs import RunSummaryTable
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import review_app, settle

DL19 = Path(__file__).resolve().parents[2] / "sample_data" / "dl19"
SMALL = (80, 24)
LINE = "2 refused: holes under unjudged=reject · h grade them · z zero · x condense"


def new_workspace(directory: Path) -> Path:
    path = directory / "new.sqlite"
    with init_workspace(path) as ws:
        import_queries(ws, DL19 / "queries.tsv")
        import_documents(ws, DL19 / "docs.tsv.gz")
        import_qrels(ws, DL19 / "qrels.txt")
        for run in ("splade-pp-ed", "repllama"):
            import_run(ws, DL19 / f"{run}.trec", name=run)
    return path


async def scores_shown(pilot: Pilot[Any]) -> ScoresScreen:
    await pilot.press("s")
    screen = pilot.app.screen
    assert isinstance(screen, ScoresScreen)
    await wait_until(pilot, lambda: screen.board is not None, "the runs scored")
    await settle(pilot)
    return screen


def cells(screen: ScoresScreen, run: str) -> tuple[str, str]:
    """The run's nDCG cell and its note, as shown."""
    table = screen.query_one(RunSummaryTable)
    row = table.get_row(run)
    return row[1].plain, row[-1].plain


async def test_the_line_and_its_keys_are_visible_at_80x24_and_z_x_score_the_session(
    tmp_path: Path,
) -> None:
    workspace = new_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SMALL) as pilot:
        screen = await scores_shown(pilot)
        assert cells(screen, "repllama")[0] == cells(screen, "splade-pp-ed")[0] == "refused"
        text = screen_text(app)
        assert LINE in text.splitlines()[8], text  # under the runs, whole
        assert max(len(line) for line in text.splitlines()) <= 80

        await pilot.press("z")
        await wait_until(
            pilot,
            lambda: screen.board is not None and screen.board.contract.unjudged == "zero",
            "the runs scored under unjudged=zero",
        )
        await settle(pilot)
        assert cells(screen, "repllama")[0] == "0.3461"  # the README's 0.346
        assert cells(screen, "splade-pp-ed")[0] == "0.4577"
        text = screen_text(app)
        assert "refused" not in text and "unjudged=zero" in text

        await pilot.press("x")
        await wait_until(
            pilot,
            lambda: screen.board is not None and screen.board.contract.unjudged == "condense",
            "the runs scored under unjudged=condense",
        )
        await settle(pilot)
        assert "refused" not in screen_text(app)
        assert cells(screen, "repllama")[0] not in ("refused", "0.3461")
    # for this session only: the workspace's default contract is as it was
    with open_workspace(workspace) as ws:
        assert ws.default_contract().unjudged == "reject"


async def test_h_sends_the_refused_runs_holes_to_grading(tmp_path: Path) -> None:
    app = review_app(new_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        screen = await scores_shown(pilot)
        table = screen.query_one(RunSummaryTable)
        table.move_cursor(row=table.get_row_index("splade-pp-ed"))
        await settle(pilot)
        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, GradeScreen), "the grade screen")
        await settle(pilot)
        text = screen_text(app)
        # the highlighted run's first hole (its refusal lists query 1106007 doc
        # 2960563 at rank 1 first), then every hole of both runs, each once
        assert "sent here for grading: 2960563" in text, text
        assert "58 holes left to judge" in text
