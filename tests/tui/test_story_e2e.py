"""The demo's story in a real terminal (tmux, 120x40): ``judgepool demo`` in an
empty directory, the audit's pairs that could flip, the grade screen's settle
order (``t``), the holes graded with their true grades, and the scores screen
showing a pair settled that could flip at the start.

The holes the app should offer are computed beforehand with the same queue
(`SettleQueue`) on the workspace the demo built, and each is graded only once
the pane shows it. Skipped only when tmux is not installed (as the other
terminal tests).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from judgepool.services import app_queries
from judgepool.services.settle_queue import SettleQueue, SettleStep
from judgepool.services.workspace import open_workspace
from judgepool.tui.widgets.settle_order import pairs_words
from tests.tui.story_support import STORY_LENGTH, true_grade
from tests.tui.terminal_support import open_terminal
from tests.tui.test_terminal_e2e import Terminal, pytestmark, showing

__all__ = ["pytestmark"]  # the tmux skip applies here too


def expected_story(
    workspace: Path,
) -> tuple[list[tuple[str, str]], SettleStep, SettleStep]:
    """The holes the settle order offers until a pair settles, with the
    queue's steps at the start and at the end."""
    with open_workspace(workspace) as ws:
        queue = SettleQueue.of_workspace(ws, ws.default_contract())
    step = start = queue.step()
    start_open = step.open_pairs
    offered: list[tuple[str, str]] = []
    while step.open_pairs == start_open and step.hole is not None:
        item = (step.hole.query_id, step.hole.doc_id)
        offered.append(item)
        queue.judge(*item, true_grade(*item))
        step = queue.step()
    return offered, start, step


def pairs_line(shown: str) -> str:
    return next(
        (line for line in shown.splitlines() if "Pairs" in line and "(6 pairs," in line), ""
    )


def open_count(line: str) -> int:
    """The pairs the bounds leave open, as the tally says them: probable and
    could flip together (the settle queue counts both as open)."""
    counts = re.findall(r"(\d+) (?:probable|could flip)\b", line)
    return sum(int(n) for n in counts) if counts else -1


@pytest.mark.slow
def test_the_demo_story_in_a_terminal(tmp_path: Path) -> None:
    with open_terminal(tmp_path) as terminal:
        _walk_the_story(tmp_path, terminal)


def _walk_the_story(tmp_path: Path, terminal: Terminal) -> None:
    terminal.start(sys.executable, "-m", "judgepool", "demo", "--annotator", "newcomer")
    terminal.wait_for(lambda s: "annotator newcomer" in s and "document" in s, timeout=60)
    workspace = tmp_path / "workspaces" / "demo.sqlite"
    offered, start, end = expected_story(workspace)
    start_open, end_open, holes = start.open_pairs, end.open_pairs, start.holes
    assert 0 < len(offered) <= STORY_LENGTH and end_open < start_open

    # the audit: pairs that could flip
    terminal.keys("a")
    shown = terminal.wait_for(lambda s: open_count(pairs_line(s)) == start_open, timeout=30)
    # with the holes in each pair's way
    assert re.search(r"(could flip|probable)\s+\d+", shown), shown

    # the settle order, graded hole by hole once each is shown
    terminal.keys("g", "t")
    terminal.wait_for(showing(f"settle order: {holes} holes left, {pairs_words(start)}"))
    for done, (query_id, doc_id) in enumerate(offered):

        def shown_next(s: str, doc_id: str = doc_id, done: int = done) -> bool:
            return doc_id in s and "decides most" in s and f"{holes - done} holes left" in s

        terminal.wait_for(shown_next, timeout=30)
        terminal.keys(str(true_grade(query_id, doc_id)))
    terminal.wait_for(
        showing(f"{holes - len(offered)} holes left, {pairs_words(end)}"),
        timeout=30,
    )

    # the scores: a pair that could flip is settled now
    terminal.keys("s")
    shown = terminal.wait_for(lambda s: open_count(pairs_line(s)) == end_open, timeout=30)
    settled_now = int(pairs_line(shown).split()[1])
    assert settled_now == 6 - end_open > 6 - start_open, pairs_line(shown)

    with open_workspace(workspace) as ws:
        mine = app_queries.item_judgments(ws, "newcomer")
    assert {item: mine[item].own_grade for item in offered} == {
        item: true_grade(*item) for item in offered
    }
    terminal.keys("q")
