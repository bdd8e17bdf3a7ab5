"""The app on a truly read-only workspace, in a real terminal (issue 7, point 9):
it opens, says the workspace is read-only and why, refuses a grade with that
reason, still audits and scores, and quits having changed nothing.

The app runs bound by file permissions, also as root (tests/read_only.py).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.read_only import (
    read_only_file,
    read_only_folder,
    require_truly_read_only,
    snapshot,
    unprivileged,
)
from tests.tui.conftest import build_workspace
from tests.tui.terminal_support import open_terminal, wait_for_exit
from tests.tui.test_terminal_e2e import Terminal, pytestmark

__all__ = ["pytestmark"]  # skipped without tmux, as the other terminal tests


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    with open_terminal(tmp_path) as term:
        yield term


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_the_app_opens_a_read_only_workspace_and_refuses_grades(
    terminal: Terminal, kind: str, request: pytest.FixtureRequest
) -> None:
    # A short folder of its own: the refusal names the file, and how much of
    # it the status line and the notice show depends on the path's length
    # (pytest-xdist's worker folders made it longer, and the test read another
    # screen than without -n).
    folder = Path(tempfile.mkdtemp(prefix="jp-ro-")) / "shared"
    folder.mkdir()
    request.addfinalizer(lambda: shutil.rmtree(folder.parent, ignore_errors=True))
    require_truly_read_only(folder)
    workspace = build_workspace(folder / "teaching.sqlite", ["teaching"], qrels=True)
    before = snapshot(folder)
    guard = read_only_file(workspace) if kind == "file" else read_only_folder(folder)
    with guard:
        terminal.start(
            *unprivileged(
                [sys.executable, "-m", "judgepool", "tui", str(workspace), "--annotator", "tess"]
            )
        )
        shown = terminal.wait_for(lambda s: "annotator tess" in s and "document 1/" in s)
        assert "workspace teaching.sqlite (read-only)" in shown
        reason = "you may not write the file" if kind == "file" else "you may not write its"
        notice = terminal.wait_for(lambda s: "This workspace is read-only" in s)
        assert reason in notice
        terminal.keys("2")
        # the status line says so, and a notice gives the whole message
        # (the notice may come a moment after the status line: both are waited for)
        terminal.wait_for(
            lambda s: "not saved:" in s and "nothing was" in s and "the workspace is" in s
        )
        terminal.keys("a")
        terminal.wait_for(lambda s: "judged@10" in s and "auditing" not in s, timeout=30)
        terminal.keys("s")
        terminal.wait_for(lambda s: "judgments:" in s and "scoring" not in s, timeout=30)
        terminal.keys("q")
        wait_for_exit(terminal)
    after = snapshot(folder)
    assert after[workspace.name] == before[workspace.name]
    if kind == "folder":
        assert after == before
