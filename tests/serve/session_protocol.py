"""A served session's process, driven as textual-serve drives it.

textual-serve starts ``judgepool tui WS --signed-in-session`` with
``TEXTUAL_DRIVER`` naming Textual's web driver and talks to it over pipes:
what the app draws comes back on its stdout in packets (a type byte, ``D``
for data or ``M`` for meta, a 4-byte big-endian length, the payload), after a
``__GANGLION__`` line; keys go to its stdin as ``D`` packets, and ``M``
packets carry JSON (``{"type": "quit"}`` is what textual-serve sends when the
browser's page closes). `ServedProcess` does the same, so a test can type,
read the screen and close the page without a browser.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Final

_ESCAPE: Final = re.compile(
    rb"\x1b(?:\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])"
)


class ServedProcess:
    """``judgepool tui WS --signed-in-session`` as textual-serve runs it."""

    def __init__(self, workspace: Path, size: tuple[int, int] = (120, 36)) -> None:
        width, height = size
        env = {
            **os.environ,
            "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
            "TEXTUAL_FPS": "60",
            "TEXTUAL_COLOR_SYSTEM": "truecolor",
            "TERM_PROGRAM": "textual",
            "COLUMNS": str(width),
            "ROWS": str(height),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "judgepool", "tui", str(workspace), "--signed-in-session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._lock = threading.Lock()
        self._screen = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while (line := stdout.readline()) and line != b"__GANGLION__\n":
            pass
        while True:
            head = stdout.read(5)
            if len(head) < 5:
                return
            payload = stdout.read(int.from_bytes(head[1:], "big"))
            if head[:1] == b"D":
                with self._lock:
                    self._screen.extend(_ESCAPE.sub(b"", payload))

    def mark(self) -> int:
        with self._lock:
            return len(self._screen)

    def wait_for(self, text: str, since: int = 0, timeout: float = 60.0) -> None:
        """Until the app has drawn ``text`` after ``since``."""
        wanted = text.encode("utf-8")
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if self._screen.find(wanted, since) >= 0:
                    return
                tail = bytes(self._screen[-1500:])
            if self.process.poll() is not None:
                raise AssertionError(f"the session ended before {text!r}: {self.stderr()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not drawn within {timeout} s; last: {tail!r}")
            time.sleep(0.02)

    def _packet(self, kind: bytes, payload: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(kind + len(payload).to_bytes(4, "big") + payload)
        stdin.flush()

    def type(self, keys: str) -> None:
        """Keys as a terminal sends them (Tab is ``\\t``, Enter ``\\r``)."""
        self._packet(b"D", keys.encode("utf-8"))

    def close_page(self) -> None:
        """What textual-serve sends the session when its browser page goes."""
        self._packet(b"M", json.dumps({"type": "quit"}).encode("utf-8"))

    def sign_in(self, name: str, token: str) -> None:
        self.wait_for("Token")
        mark = self.mark()
        self.type(name + "\t")
        self.type(token + "\r")
        self.wait_for(name, since=mark)

    def wait_main_thread_sleeping(self, timeout: float = 30.0) -> None:
        """Until the app's main thread sleeps in the kernel's nanosleep: what
        SQLite's busy handler does while another process holds the write lock
        (the event loop itself waits in epoll, never there)."""
        wchan = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/wchan")
        deadline = time.monotonic() + timeout
        while wchan.read_text() != "hrtimer_nanosleep":
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the session's main thread never waited on the lock")
            time.sleep(0.005)

    def ended_within(self, seconds: float) -> float | None:
        """How long the process took to end, or None if it still runs after ``seconds``."""
        started = time.monotonic()
        try:
            self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            return None
        return time.monotonic() - started

    def stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return ""
        return self.process.stderr.read().decode("utf-8", "replace")[-2000:]

    def stop(self) -> None:
        """Ends the process (killed if it must be) and closes its pipes."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
