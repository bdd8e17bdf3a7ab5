"""Every screen at 80 × 24: the footer shows help and quit, the audit's
per-query table and the scores' run table keep their key columns, the
histogram does not take the per-query table's room. Pilot tests here; the
pictures are in test_snapshots_80x24.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.widgets.audit_findings import AuditQueryTable
from judgepool.tui.widgets.score_histogram import NdcgHistogram
from judgepool.tui.widgets.score_table import PerQueryTable
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.test_adjudication_screen import _team

SMALL = (80, 24)


def _footer(app: JudgepoolApp) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("key", ["g", "a", "s"])
async def test_the_footer_shows_help_and_quit(tmp_path: Path, key: str) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press(key)
        await settle(pilot)
        footer = _footer(app)
        assert "? help" in footer and "q quit" in footer, footer


@pytest.mark.parametrize("key", ["D", "K"])
async def test_the_team_screens_footer_shows_help_and_quit(teaching_ws: Path, key: str) -> None:
    _team(teaching_ws)
    # agreement is the lead's; adjudication (and search) carol's, the adjudicator
    app = create_app(teaching_ws, "lena" if key == "K" else "carol")
    async with app.run_test(size=SMALL) as pilot:
        await wait_ready(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: app.screen.id != "grade", "the screen")
        await pilot.pause()
        footer = _footer(app)
        assert "? help" in footer and "q quit" in footer, footer


async def test_the_audit_table_keeps_its_rows_and_key_columns(tmp_path: Path) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("a")
        await settle(pilot)
        table = app.screen.query_one(AuditQueryTable)
        # every query of the run fits: 5 rows and the header
        assert table.region.height >= 6, table.region
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if "query" in line and "status" in line)
        for column in ("query", "status", "judged@10", "unjudged@10"):
            assert column in header, header
        assert any("q5" in line and "no qrels" in line for line in lines)


async def test_the_scores_run_table_keeps_its_key_columns_and_the_histogram_gives_way(
    tmp_path: Path,
) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("s")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if line.lstrip().startswith("run "))
        for column in ("run", "nDCG@10 (mean)", "judged@10", "scored"):
            assert column in header, header
        assert any(line.lstrip().startswith("beta") and "0.7500" in line for line in lines)
        histogram = app.screen.query_one(NdcgHistogram)
        assert not histogram.display
        table = app.screen.query_one(PerQueryTable)
        assert table.region.width == 80
    # at 120 columns the histogram is beside the table, never over it
    (tmp_path / "wide").mkdir()
    app = review_app(build_review_workspace(tmp_path / "wide"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await settle(pilot)
        histogram = app.screen.query_one(NdcgHistogram)
        table = app.screen.query_one(PerQueryTable)
        assert histogram.display
        assert not table.region.overlaps(histogram.region)
