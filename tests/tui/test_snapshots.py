"""Pictures of the key screens of grading (pytest-textual-snapshot, textual pinned).

Behaviour is tested with the Pilot elsewhere; these catch layout changes. Update
them on purpose with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the pictures before committing. ``snap_compare`` must be called
from plain (not async) tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from judgepool.services.imports import import_queries
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import wait_until
from tests.tui.test_adjudication_screen import NARRATIVE, WHEN, _team

# the clock on the grade screen stands still: the pictures do not depend on timing
pytestmark = pytest.mark.usefixtures("still_clock")
SIZE = (120, 40)
SnapCompare = Callable[..., bool]


def test_grade_screen(teaching_ws: Path, snap_compare: SnapCompare) -> None:
    """The teaching query and its first unjudged document (of three pooled), the
    0..3 scale with TREC DL's labels, both progress bars at 0 of 3, the
    annotator's name on the top line, the clock (held still) at the end of the
    status line and the keys in the footer."""

    async def ready(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=ready)


def test_grade_screen_after_a_grade(hostile_ws: Path, snap_compare: SnapCompare) -> None:
    """The hostile set after grading its first document 2: the status line says
    "saved 2 Highly relevant", the bars show 1 of 3, and the next document's
    markup and escape sequences are drawn as plain characters."""

    async def grade(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press("2")
        await pilot.pause()

    assert snap_compare(create_app(hostile_ws, "alice"), terminal_size=SIZE, run_before=grade)


def test_help_screen(teaching_ws: Path, snap_compare: SnapCompare) -> None:
    """Help over the grade screen: every key of the app and of the grade, audit
    and scores screens, the grade keys limited to 0..3."""

    async def open_help(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(create_app(teaching_ws, "alice"), terminal_size=SIZE, run_before=open_help)


def test_adjudicate_screen_120x36(
    teaching_ws: Path, tmp_path: Path, snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol's queue with the resolved item too (r), on it (j): the queue of two,
    the query with its narrative, then document A with every grade (alice's and
    bob's with their notes, carol's settling grade) and its text, the query's
    terms highlighted; ? help and q quit first in the footer."""
    monkeypatch.setattr(ledger, "now", lambda: WHEN)  # the grades' times, in the picture
    queries = tmp_path / "queries.tsv"
    queries.write_text(f"teach\thow do I brew a good cup of green tea\t{NARRATIVE}\n")
    with open_workspace(teaching_ws) as ws:
        import_queries(ws, queries)
    _team(teaching_ws)
    app = create_app(teaching_ws, "carol")

    async def show(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(pilot, lambda: app.screen.id == "adjudicate", "the adjudication screen")
        await pilot.press("r", "j")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 36), run_before=show)
