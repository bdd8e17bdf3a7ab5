"""Pictures of every screen at 80 × 24 (pytest-textual-snapshot, textual pinned).

The smallest terminal the app is made for: each picture shows help and quit
in the footer and the screen's key content. Update on purpose with
``pytest tests/tui/test_snapshots_80x24.py --snapshot-update`` and look at the
pictures before committing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Footer

from judgepool.services.guidelines import set_guidelines
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.snapshot_scenes import (
    DEMO_KEYS,
    GRADE_DIALOGS,
    demo_app,
    open_dialog,
    press_through,
    steady_cursors,
)
from tests.tui.test_adjudication_screen import _team

# the clock on the grade screen stands still: the pictures do not depend on timing
pytestmark = pytest.mark.usefixtures("still_clock")
SIZE = (80, 24)
SnapCompare = Callable[..., bool]


def test_grade_screen_80x24(teaching_ws: Path, snap_compare: SnapCompare) -> None:
    """The teaching query's first document, the scale on two lines, both bars
    at 0 %, the clock (held still) after the status, and ? help and q quit
    first in the footer."""

    async def ready(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=ready)


def test_help_screen_80x24(teaching_ws: Path, snap_compare: SnapCompare) -> None:
    """Help over the grade screen, its first keys: a description too long for
    the box (D, K, f5) wraps under itself, beside its keys."""

    async def open_help(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=open_help)


@pytest.mark.parametrize("keys", [("a",), ("s",), ("a", "p")], ids=["audit", "scores", "pairs"])
def test_review_screens_80x24(
    tmp_path: Path, snap_compare: SnapCompare, keys: tuple[str, ...]
) -> None:
    """Audit: a narrow runs list, the summary without its frame, the one pair
    (alpha, beta) on its line and in words, every query with its status and
    key columns beside the holes, every audit key in the footer. Scores: the
    run table's key columns, the pair, the per-query table across the width
    (the box plot gives way: P shows it). Pairs: the dialog over the whole screen, the pair on two
    lines with every column whole."""
    app = review_app(build_review_workspace(tmp_path))

    async def show(pilot: Pilot[Any]) -> None:
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=show)


@pytest.mark.parametrize("key", ["D", "K", "f"], ids=["adjudicate", "agreement", "search"])
def test_team_screens_80x24(
    teaching_ws: Path, snap_compare: SnapCompare, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Adjudicate (carol: one unresolved disagreement, its query, then its
    document headed by every grade with its note and time), agreement (the pairs beside
    the highlighted one's confusion table as a heat map, and all annotators),
    and the search dialog on the teaching query's
    words."""
    # the grades' times are on the adjudication screen: the same in every picture
    monkeypatch.setattr(ledger, "now", lambda: "2026-01-02T03:04:05.000000Z")
    _team(teaching_ws)
    # agreement is the lead's; adjudication (and search) carol's, the adjudicator
    app = create_app(teaching_ws, "lena" if key == "K" else "carol")

    async def show(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: app.screen.id != "grade", "the screen")
        # the search's results (and agreement's figures) come from a worker
        await app.workers.wait_for_complete()
        await steady_cursors(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=show)


def test_all_holes_80x24(two_queries_ws: Path, snap_compare: SnapCompare) -> None:
    """Every run's holes over the audit (H): the counts, then per hole the
    query, the document (a markup ID cut to fit, shown as typed), how many
    runs, the best rank and the start of its text across the rest; the
    highlighted hole's runs named below the table."""
    app = create_app(two_queries_ws, "alice")

    async def show(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        for key in ("a", "H"):
            await pilot.press(key)
            await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=show)


GUIDE = """# How we grade

Read the query, then the whole passage. Grade **3** only when the passage
answers the query outright; **2** when it answers part of it.

| grade | example for "brew green tea" |
|---|---|
| 3 | steep for two minutes at 80 C |
| 0 | a history of tea in China |

Mark a passage *unsure* (u) rather than guess, and say why in a note (e).
"""


def test_guidelines_80x24(teaching_ws: Path, snap_compare: SnapCompare) -> None:
    """The guidelines on first open: why they are shown, every grade with its
    label, then the Markdown (a heading, emphasis, a table), and the keys."""
    with open_workspace(teaching_ws) as ws:
        set_guidelines(ws, GUIDE)
    app = create_app(teaching_ws, "alice")

    async def show(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await wait_until(pilot, lambda: app.screen.id != "grade", "the guidelines")
        # Markdown renders block by block, the table last: a loaded machine
        # caught it with its text shown and the table not yet drawn
        await wait_until(pilot, lambda: "unsure (u)" in screen_text(app), "their text")
        await wait_until(pilot, lambda: "history of tea" in screen_text(app), "their table")
        # the grade screen's footer, under the dialog, is painted when that
        # screen next paints: on a quiet machine after the picture, on a loaded
        # one (the suite beside other work) before it, and the pictures differed
        # by that line. The picture is of the dialog: the footer under it is
        # taken out of the layout, so whichever comes first the picture is one
        grade = app.screen_stack[-2]
        grade_footer = grade.query_one(Footer)
        await wait_until(
            pilot, lambda: bool(grade_footer.children), "the grade screen's footer composed"
        )
        grade_footer.display = False
        await wait_until(pilot, lambda: grade_footer.region.height == 0, "the footer taken out")
        grade.refresh(layout=True)
        app.screen.refresh(layout=True)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=show)


@pytest.mark.parametrize("scene", list(DEMO_KEYS))
def test_demo_screens_80x24(tmp_path: Path, snap_compare: SnapCompare, scene: str) -> None:
    """The demo (four runs, six pairs) as its lead sees it at 80 × 24.

    audit: the narrow runs list; the summary without its frame; the pairs a
    line each (three shown, the table scrolls to the others) and the first in
    words on two lines; the queries beside their holes; every audit key in the
    footer (P, the plot, on ?: no room). audit-plot: P on repllama: its judged
    share by rank 1..10 in the room of the pairs and lists. scores: the runs'
    key columns, the pairs as on the audit, the per-query table across the
    width (the box plot gives way). scores-plot: P: the four runs' box plots
    of per-query nDCG in the table's and pairs' room, bm25's in orange. pairs:
    the dialog over the whole screen: per run its mean, interval and bounds;
    per pair two lines, every column whole (the holes 40, 38...), the first
    pair in words and its queries (no room for the plot). pairs-plot: P, then
    the second pair: its six sorted differences, the four the holes could
    reverse marked x, in the runs' and queries' room. side-by-side: bm25 and
    bm25-rm3's lists of query 1106007 and the
    highlighted document. drill-down: query 962179 of bm25 beside the ideal.
    comparison: bm25 vs bm25-rm3 query by query. all-holes: the 58 holes.
    contract: the dialog's first fields, scrolling, above its three buttons."""
    app = demo_app(tmp_path)

    async def show(pilot: Pilot[Any]) -> None:
        await press_through(pilot, DEMO_KEYS[scene])

    assert snap_compare(app, terminal_size=SIZE, run_before=show)


def test_own_items_80x24(two_queries_ws: Path, snap_compare: SnapCompare) -> None:
    """The annotator's unsure and noted items (m): the counts, then per item
    their state, the query and the document with the start of their text,
    and the note; the highlighted one spelt out below."""
    with open_workspace(two_queries_ws) as ws:
        judge(ws, "teach", "A", None, annotator="alice", unsure=True)
        judge(ws, "teach", "B", 2, annotator="alice", note="about tea, not about brewing it")
        judge(ws, "teach", "C", 0, annotator="bob", note="bob's note: never listed for alice")
    app = create_app(two_queries_ws, "alice")

    async def show(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press("m")
        await wait_until(pilot, lambda: "to go back to" in screen_text(app), "the list")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=show)


@pytest.mark.parametrize("scene", list(GRADE_DIALOGS))
def test_grade_dialogs_80x24(teaching_ws: Path, snap_compare: SnapCompare, scene: str) -> None:
    """note: the note dialog over the grade screen for document A, its field
    and hint whole. go-to-query: the go to query dialog, its field and hint."""

    async def show(pilot: Pilot[Any]) -> None:
        await open_dialog(pilot, GRADE_DIALOGS[scene])

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=show)
