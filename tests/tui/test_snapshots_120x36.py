"""Pictures of every screen and dialog at 120 × 36 (pytest-textual-snapshot,
textual pinned): a common terminal, where each shows its whole content, the
footer its keys, and no header is cut. Update on purpose with ``pytest
tests/tui/test_snapshots_120x36.py --snapshot-update`` and look at the
pictures before committing. (The adjudication screen's is in
test_snapshots.py.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from judgepool.store import ledger
from judgepool.tui.app import create_app
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import wait_until
from tests.tui.snapshot_scenes import (
    DEMO_KEYS,
    GRADE_DIALOGS,
    demo_app,
    open_dialog,
    press_through,
    steady_cursors,
)
from tests.tui.test_adjudication_screen import _team

# The grade screen's clock held still, as in the other pictures: its seconds
# on a document otherwise read 1 or 2 s when the machine is loaded.
pytestmark = pytest.mark.usefixtures("still_clock")

SIZE = (120, 36)
SnapCompare = Callable[..., bool]


def test_grade_screen_120x36(teaching_ws: Path, snap_compare: SnapCompare) -> None:
    """The teaching query and its first unjudged document (of three pooled), the
    0..3 scale with its labels on one line, both bars at 0 of 3, and the keys
    in the footer from ? help and q quit on."""

    async def ready(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=ready)


def test_help_screen_120x36(teaching_ws: Path, snap_compare: SnapCompare) -> None:
    """Help over the grade screen, as the workspace's one user (the lead): the
    Everywhere keys, then the grade screen's, each description beside its
    keys (a long one wrapped under itself), with a scrollbar for the rest."""

    async def open_help(pilot: Pilot[Any]) -> None:
        await open_dialog(pilot, "question_mark")

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=open_help)


@pytest.mark.parametrize("scene", list(DEMO_KEYS))
def test_demo_screens_120x36(tmp_path: Path, snap_compare: SnapCompare, scene: str) -> None:
    """The demo (four runs, 71 grades, 58 holes) as its lead sees it.

    audit: bm25's coverage, score and findings in a frame; the six pairs a line
    each with the bounds, 1 settled and 5 could flip, bm25 vs bm25-rm3 in
    words ("not significant (p_adj 1); settled by the judgments"); the queries,
    then the holes beside the findings and bm25's judged share by rank (every
    bar at 1). audit-plot: P on repllama: its judged share by rank 1..10 in the
    lists' room. scores: the four runs, the six pairs with bounds and the first
    in words, bm25's per-query table beside the box plots of the four runs'
    per-query nDCG (bm25's in orange). scores-plot: P: the box plots in the
    table's and the pairs' room. pairs: the dialog over the audit: per run
    mean, interval and bounds; per pair two lines (run A over run B, two
    figures a column: every header and the holes whole), the first pair in
    words, its queries beside its sorted differences (none the holes could
    reverse: settled) and the legend. pairs-plot: P, then the second pair (bm25
    vs repllama): the plot in the runs' and queries' room, 4 of its 6 queries
    marked x (the holes could reverse them), with the legend. The dialogs over
    the audit (side-by-side, all-holes, contract) and the scores (drill-down,
    comparison) show the plot of the screen under them, dimmed. side-by-side:
    bm25 and bm25-rm3's top 10 of query 1106007 with
    grades and where the other run ranks each, the highlighted document below.
    drill-down: query 962179 of bm25, its ranked list beside the ideal.
    comparison: bm25 vs bm25-rm3 query by query. all-holes: the 58 holes of
    the two modern runs, best rank first. contract: the dialog, its fields
    scrolling above the Apply, Save as default and Cancel buttons."""
    app = demo_app(tmp_path)

    async def show(pilot: Pilot[Any]) -> None:
        await press_through(pilot, DEMO_KEYS[scene])

    assert snap_compare(app, terminal_size=SIZE, run_before=show)


@pytest.mark.parametrize("scene", list(GRADE_DIALOGS))
def test_grade_dialogs_120x36(teaching_ws: Path, snap_compare: SnapCompare, scene: str) -> None:
    """note: the note dialog over the grade screen, for document A, its field
    empty with its hint, Enter saves and Escape cancels. go-to-query: the go
    to query dialog, its field empty with its hint."""

    async def show(pilot: Pilot[Any]) -> None:
        await open_dialog(pilot, GRADE_DIALOGS[scene])

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=show)


@pytest.mark.parametrize("key", ["K", "f"], ids=["agreement", "search"])
def test_team_screens_120x36(
    teaching_ws: Path, snap_compare: SnapCompare, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """agreement: lena (the lead) sees alice – bob, their three shared items,
    raw agreement and the three κ beside their confusion table as a heat map
    (alice's grades down, bob's across, a count in each cell), then Fleiss' κ
    and Krippendorff's α over
    the two annotators. search: carol's search dialog on the teaching query's
    words, the results with their pool state and text."""
    monkeypatch.setattr(ledger, "now", lambda: "2026-01-02T03:04:05.000000Z")
    _team(teaching_ws)
    app = create_app(teaching_ws, "lena" if key == "K" else "carol")

    async def show(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: app.screen.id != "grade", "the screen")
        # the search's results (and agreement's figures) come from a worker
        await app.workers.wait_for_complete()
        await steady_cursors(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=show)
