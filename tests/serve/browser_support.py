"""Shared by the browser test and the serve benchmark: `judgepool serve` on a
free localhost port, and a Chromium page whose terminal output is read from
the websocket frames it receives.

textual-serve draws with xterm.js on a canvas, so the page has no text to
read; what the browser receives is the app's terminal output, which carries
every character drawn. `BrowserSession` keeps it (escape sequences removed)
and waits for a text to arrive after a given point: what the browser has
been sent to draw, the moment it received it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

CHROMIUM: Final = Path("/usr/bin/chromium")
JUDGEPOOL: Final = [sys.executable, "-m", "judgepool"]
_ESCAPE: Final = re.compile(
    rb"\x1b(?:\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])"
)


def need_browser() -> Any:
    """Playwright's sync API, or a skip saying what is missing (a failure in CI)."""
    missing = []
    try:
        from playwright import sync_api
    except ImportError:
        sync_api = None
        missing.append('Playwright for Python (pip install -e ".[test]")')
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        missing.append("Chromium (apt-get install chromium)")
    if missing:
        message = "the browser tests need " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return sync_api


def chromium_path() -> str:
    return str(CHROMIUM) if CHROMIUM.exists() else str(shutil.which("chromium"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def add_annotator(workspace: Path, name: str) -> str:
    """``judgepool annotators WS add NAME``: the token, from the last line."""
    done = subprocess.run(
        [*JUDGEPOOL, "annotators", str(workspace), "add", name],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()[-1]


@contextlib.contextmanager
def serving(workspace: Path) -> Iterator[str]:
    """``judgepool serve WS`` on a free port until the block ends: its URL."""
    port = free_port()
    server = subprocess.Popen(
        [*JUDGEPOOL, "serve", str(workspace), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if server.poll() is not None:
                raise AssertionError(f"judgepool serve exited: {server.stderr.read()!r}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise AssertionError("judgepool serve did not listen within 30 s")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# How long a wait in the browser may take before it fails. Each page is a new
# app process that textual-serve starts (Python, the imports, the workspace,
# the first screen): a few seconds alone, and once more than 30 s beside the
# rest of the suite and a CPU hog, which failed a test that was right.
WAIT_SECONDS = 120.0


class BrowserSession:
    """One page of a browser context on the served app, and what it was sent."""

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.received = bytearray()
        self.arrivals: list[tuple[float, int]] = []  # (monotonic time, buffer length)
        page.on("websocket", self._watch)
        page.goto(url)

    def _watch(self, websocket: Any) -> None:
        websocket.on("framereceived", self._frame)

    def _frame(self, payload: bytes | str) -> None:
        data = payload if isinstance(payload, bytes) else payload.encode("utf-8")
        self.received.extend(_ESCAPE.sub(b"", data))
        self.arrivals.append((time.monotonic(), len(self.received)))

    def mark(self) -> int:
        """A point in what was received: `wait_for` looks only after it."""
        return len(self.received)

    def text_since(self, mark: int) -> str:
        return self.received[mark:].decode("utf-8", "replace")

    def wait_for(self, text: str, since: int = 0, timeout: float = WAIT_SECONDS) -> float:
        """Until ``text`` arrives after ``since``; the time it arrived (monotonic).
        The wait ends as soon as it arrives: the timeout only bounds a failure."""
        wanted = text.encode("utf-8")
        deadline = time.monotonic() + timeout
        while True:
            found = self.received.find(wanted, since)
            if found >= 0:
                end = found + len(wanted)
                return next(t for t, size in self.arrivals if size >= end)
            if time.monotonic() > deadline:
                tail = self.text_since(max(since, len(self.received) - 2000))
                raise AssertionError(f"{text!r} did not arrive within {timeout} s; last: {tail!r}")
            self.page.wait_for_timeout(25)  # each look is a round trip to the browser

    def focus(self) -> None:
        """Keys go to the terminal (xterm.js's input element)."""
        self.page.focus(".xterm-helper-textarea")

    def press(self, key: str) -> None:
        if key == "Escape":
            self.press_escape()
        else:
            self.page.keyboard.press(key)

    def press_escape(self) -> None:
        """Escape, then F12 (bound nowhere in the app), so that the next key
        cannot be read with the Escape as one. Textual's reader tells a lone
        Escape from the start of a longer key only once 0.1 s passes with
        nothing after it, and its input thread looks at the clock only between
        reads: under load it read late, got the Escape and the next key in one
        read, and took them as one key (Escape then ``g`` is Alt+g, Escape then
        ``?`` is ``?``). The Escape that was to close a dialog was lost: the
        team test's ``?`` then never showed the grade screen's help, once in a
        suite run. F12's own sequence starts with an escape character, which
        ends the pending one as an Escape key, and is complete in itself."""
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("F12")

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)

    def sign_in(self, name: str, token: str) -> int:
        """Type the name, Tab, the token, Enter; the mark before Enter."""
        self.wait_for("Token")
        self.focus()
        self.type(name)
        self.press("Tab")
        self.type(token)
        mark = self.mark()
        self.press("Enter")
        return mark
