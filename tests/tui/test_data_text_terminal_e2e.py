"""Text whose width terminals disagree on, in a real terminal: tmux runs
``judgepool tui`` on the hostile-unicode set (tests/fixtures/README.md) and
``capture-pane`` reads what tmux drew.

The query holds Tamil, whose vowel signs (spacing combining marks) Rich lays
out in no cell and tmux, as glibc's ``wcwidth``, draws in one each: shown as
they are, they pushed the query panel's right border out of the pane. Every
row of every panel must end where the app put its border, in the last column.

Skipped only when tmux is not installed (as the other terminal tests).
"""

from __future__ import annotations

from pathlib import Path

import wcwidth

from tests.tui.conftest import build_workspace
from tests.tui.terminal_support import open_terminal
from tests.tui.test_terminal_e2e import WIDTH, app_command, pytestmark  # noqa: F401

_RIGHT_EDGES = ("│", "╮", "╯")


def out_of_place(screen: str) -> list[str]:
    """The rows of a bordered panel whose right border is not in the pane's
    last column, as tmux placed the characters (by their ``wcwidth``)."""
    return [
        row
        for row in screen.splitlines()
        if row[:1] in ("│", "╭", "╰")
        and (wcwidth.wcswidth(row) != WIDTH or row[-1:] not in _RIGHT_EDGES)
    ]


def test_a_tamil_line_keeps_the_border_in_place(tmp_path: Path) -> None:
    workspace = build_workspace(tmp_path / "unicode.sqlite", ["hostile-unicode"])
    with open_terminal(tmp_path) as terminal:
        terminal.start(*app_command(workspace, "tess"))
        screen = terminal.wait_for(lambda s: "document 1/11" in s and "vis·cer·al" in s)
        assert "what does vis·cer·al mean, in தம\\u0bbfழ் or עברית?" in screen
        assert out_of_place(screen) == []
        screens = [screen]
        for position in range(2, 12):  # every document, the Tamil couplet among them
            terminal.keys("j")
            screens.append(terminal.wait_for(lambda s, at=position: f"document {at}/11" in s))
            assert out_of_place(screens[-1]) == [], screens[-1]
        kural = next(shown for shown in screens if "kural-1" in shown)
        assert "அகர ம\\u0bc1தல" in kural
