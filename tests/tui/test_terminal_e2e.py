"""The app in a real terminal: tmux runs ``judgepool tui`` (120x40) and the
tests type keys with ``send-keys`` and read the screen with ``capture-pane``.

- a digit grades the document, and the grade is in the workspace file;
- markup and escape sequences in data show as characters: the pane shows
  them, nothing turns the window title into "pwned title";
- five grades, then SIGKILL to the app's process (not to tmux): all five are
  in the workspace.
- ``judgepool demo`` in an empty directory builds the demo workspace and opens it.

Skipped only when tmux is not installed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from judgepool.services import app_queries
from judgepool.services.workspace import open_workspace
from tests.tui.conftest import build_workspace

# On a developer's machine without tmux these tests skip, saying why; in CI
# (which installs tmux) a missing tmux fails them instead of hiding them.
pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None and not os.environ.get("CI"),
    reason="tmux is not installed: the terminal tests need it (apt-get install tmux)",
)

WIDTH, HEIGHT = 120, 40


class Terminal:
    """One tmux server (its own socket file) running one command in a 120x40 pane."""

    def __init__(self, socket: Path, cwd: Path) -> None:
        self.socket = str(socket)
        self.cwd = cwd

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-S", self.socket, *args],
            capture_output=True,
            text=True,
            check=True,
            cwd=self.cwd,
        )
        return result.stdout

    def start(self, *command: str) -> None:
        env = {**os.environ, "TERM": "xterm-256color"}
        line = " ".join(_quote(part) for part in command)
        subprocess.run(
            [
                "tmux",
                "-S",
                self.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "jp",
                "-x",
                str(WIDTH),
                "-y",
                str(HEIGHT),
                f"exec {line}",
            ],
            check=True,
            cwd=self.cwd,
            env=env,
        )

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "jp")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "jp", *keys)

    def pid(self) -> int:
        return int(self.tmux("display-message", "-p", "-t", "jp", "#{pane_pid}").strip())

    def title(self) -> str:
        return self.tmux("display-message", "-p", "-t", "jp", "#{pane_title}").strip()

    def wait_for(self, check: Callable[[str], bool], timeout: float = 45.0) -> str:
        """The screen once ``check`` holds on it and it has stopped changing.

        A frame reaches tmux in pieces: on a loaded machine a check on the
        header line held while the panels below were still being drawn, and
        the assertions that followed read half a frame. So the screen is
        returned only when two captures 0.1 s apart are the same."""
        deadline = time.monotonic() + timeout
        settling: str | None = None
        while True:
            shown = self.screen()
            if check(shown):
                if shown == settling or time.monotonic() > deadline:
                    return shown  # (a screen that never stops changing: as it is)
                settling = shown
                time.sleep(0.1)
                continue
            settling = None
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never showed what was expected:\n{shown}")
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


def _quote(part: str) -> str:
    return "'" + part.replace("'", "'\\''") + "'"


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    # A short directory of its own for the socket: a socket path is limited
    # to about 100 bytes, which pytest's tmp_path can exceed.
    sockets = Path(tempfile.mkdtemp(prefix="jp-tmux-"))
    term = Terminal(sockets / "s", tmp_path)
    try:
        yield term
    finally:
        term.close()
        shutil.rmtree(sockets, ignore_errors=True)


def app_command(workspace: Path, annotator: str) -> list[str]:
    return [sys.executable, "-m", "judgepool", "tui", str(workspace), "--annotator", annotator]


def judged(workspace: Path, annotator: str) -> dict[tuple[str, str], int | None]:
    """The annotator's current grades, read through the services."""
    with open_workspace(workspace) as ws:
        return {item: j.own_grade for item, j in app_queries.item_judgments(ws, annotator).items()}


def showing(text: str) -> Callable[[str], bool]:
    return lambda shown: text in shown


def session_count(n: int) -> Callable[[str], bool]:
    return showing(f"{n} judged this session")


def test_a_digit_grade_reaches_the_workspace(tmp_path: Path, terminal: Terminal) -> None:
    workspace = build_workspace(tmp_path / "teaching.sqlite", ["teaching"])
    terminal.start(*app_command(workspace, "tess"))
    shown = terminal.wait_for(lambda s: "annotator tess" in s and "document 1/3" in s)
    assert "how do I brew a good cup of green tea" in shown
    terminal.keys("2")
    terminal.wait_for(session_count(1))
    grades = judged(workspace, "tess")
    assert list(grades.values()) == [2]


def test_hostile_text_shows_literally_in_the_terminal(tmp_path: Path, terminal: Terminal) -> None:
    workspace = build_workspace(tmp_path / "hostile.sqlite", ["hostile"])
    terminal.start(*app_command(workspace, "tess"))
    screens = [terminal.wait_for(lambda s: "document 1/3" in s)]
    for position in (2, 3):
        terminal.keys("j")
        screens.append(terminal.wait_for(showing(f"document {position}/3")))
    everything = "\n".join(screens)
    for expected in (
        "which [bold]document[/bold] shows its \\x1b[1mmarkup\\x1b[0m literally?",
        "[bold]not bold[/bold]",
        "[link=https://example.com]x[/link]",
        "[@click=app.quit]not an action[/]",
        "\\x1b[31mred\\x1b[0m",
        "\\x1b]0;pwned title\\x07",
        "\\x9b32mgreen",
        "[red]hostile-id[/red]",
    ):
        assert expected in everything
    assert "pwned" not in terminal.title()
    assert terminal.pid() > 0  # still running: no [@click=app.quit] took effect


def test_sigkill_after_five_grades_loses_none(tmp_path: Path, terminal: Terminal) -> None:
    workspace = build_workspace(tmp_path / "noveleval.sqlite", ["noveleval"])
    terminal.start(*app_command(workspace, "tess"))
    terminal.wait_for(lambda s: "annotator tess" in s and "document 1/" in s)
    terminal.keys("1", "2", "0", "2", "1")
    terminal.wait_for(session_count(5))
    os.kill(terminal.pid(), signal.SIGKILL)
    grades = judged(workspace, "tess")
    assert sorted(g for g in grades.values() if g is not None) == [0, 1, 1, 2, 2]


def test_demo_builds_and_opens_in_an_empty_directory(tmp_path: Path, terminal: Terminal) -> None:
    terminal.start(sys.executable, "-m", "judgepool", "demo", "--annotator", "newcomer")
    shown = terminal.wait_for(lambda s: "annotator newcomer" in s and "document" in s)
    assert "workspace demo.sqlite" in shown
    assert (tmp_path / "workspaces" / "demo.sqlite").is_file()


def test_keys_typed_after_quit_open_no_screen(tmp_path: Path, terminal: Terminal) -> None:
    # "s q a" typed quickly: the audit screen, opened while the app shut down,
    # once printed a traceback (NoMatches: ContractBar) after the app exited.
    # The app draws on standard error, so the traceback is read off the pane.
    workspace = build_workspace(tmp_path / "teaching.sqlite", ["teaching"])
    shell = " ".join(_quote(part) for part in app_command(workspace, "tess"))
    terminal.start("sh", "-c", f"{shell}; echo exit-status-$?; sleep 60")
    terminal.wait_for(lambda s: "annotator tess" in s and "document 1/3" in s)
    terminal.keys("s", "q", "a")
    shown = terminal.wait_for(showing("exit-status-"), timeout=20)
    assert "exit-status-0" in shown
    assert "Traceback" not in shown and "NoMatches" not in shown, shown
