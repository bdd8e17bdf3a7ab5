"""Shared by the terminal tests beside test_terminal_e2e.py: a tmux `Terminal`
with a short socket path, and waiting for the app's process to exit."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.tui.test_terminal_e2e import Terminal


@contextlib.contextmanager
def open_terminal(cwd: Path) -> Iterator[Terminal]:
    """A tmux server of its own, killed at the end."""
    # A short directory for the socket: a socket path is limited to about
    # 100 bytes, which pytest's tmp_path can exceed.
    sockets = Path(tempfile.mkdtemp(prefix="jp-tmux-"))
    term = Terminal(sockets / "s", cwd)
    try:
        yield term
    finally:
        term.close()
        shutil.rmtree(sockets, ignore_errors=True)


def wait_for_exit(terminal: Terminal, timeout: float = 60.0) -> None:
    """Until the pane's process (the app) has exited."""
    try:
        pid = terminal.pid()
    except subprocess.CalledProcessError:
        return  # the pane, and so the app, is gone already
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError("the app did not exit")
