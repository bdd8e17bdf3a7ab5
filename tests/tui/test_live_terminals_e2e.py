"""Two terminals on one workspace (issue 10, point 5): alice grades in one
app, and bob's app, in another tmux server, shows her grades in its progress
bars within a second, without a key pressed; grading blind, bob's screen never
names alice nor shows her grade.

Skipped only when tmux is not installed (as test_terminal_e2e.py).
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.tui.conftest import build_workspace
from tests.tui.terminal_support import open_terminal, wait_for_exit
from tests.tui.test_terminal_e2e import app_command, judged, pytestmark, session_count, showing

__all__ = ["pytestmark"]


def test_bob_sees_alices_grades_within_a_second_blind(tmp_path: Path) -> None:
    workspace = build_workspace(tmp_path / "two.sqlite", ["hostile", "teaching"])
    with open_terminal(tmp_path) as alice, open_terminal(tmp_path) as bob:
        alice.start(*app_command(workspace, "alice"))
        bob.start(*app_command(workspace, "bob"))
        alice.wait_for(lambda s: "annotator alice" in s)
        bob.wait_for(lambda s: "annotator bob" in s and "0 of 6 judged" in s)
        for count in (1, 2):
            alice.keys("2")
            alice.wait_for(session_count(count))  # on screen: committed
            saved = time.monotonic()
            shown = bob.wait_for(showing(f"{count} of 6 judged"), timeout=5.0)
            assert time.monotonic() - saved < 1.0, "bob's app took a second or more"
            assert "alice" not in shown  # blind: no name, no grade of hers
        assert list(judged(workspace, "alice").values()) == [2, 2]
        assert set(judged(workspace, "bob").values()) == {None}  # bob graded nothing
        for terminal in (alice, bob):
            terminal.keys("q")
            wait_for_exit(terminal)
