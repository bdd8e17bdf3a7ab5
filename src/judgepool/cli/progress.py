"""Progress on a terminal for long work, silence when piped.

Reading and scoring a large run happens in a few long stages inside compiled
code (pyarrow releases the GIL), so progress is a stage name with a ticking
clock, redrawn by a background thread on standard error.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

from judgepool.display import literal

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class StageProgress:
    """A one-line "stage … elapsed" indicator; does nothing when disabled."""

    def __init__(self, enabled: bool, stream: TextIO | None = None, interval: float = 0.1) -> None:
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.interval = interval
        self._stage = ""
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> StageProgress:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            with self._lock:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()

    def update(self, stage: str) -> None:
        """Name the stage now under way (file names are shown literally)."""
        with self._lock:
            self._stage = literal(stage)
            self._started = time.monotonic()

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(self.interval):
            with self._lock:
                elapsed = time.monotonic() - self._started
                line = f"{SPINNER[tick % len(SPINNER)]} {self._stage} … {elapsed:.1f}s"
                self.stream.write("\r\x1b[2K" + line[:200])
                self.stream.flush()
            tick += 1


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class CountProgress:
    """A progress bar for a known number of items ("done/total, rate, time
    left"), redrawn at most every ``interval`` seconds on standard error; does
    nothing when disabled (standard error not a terminal)."""

    WIDTH = 24

    def __init__(self, total: int, label: str, enabled: bool, stream: TextIO | None = None) -> None:
        self.total = total
        self.label = literal(label)
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.interval = 0.1
        self._started = time.monotonic()
        self._drawn = 0.0

    def update(self, done: int, extra: str = "", *, force: bool = False) -> None:
        """Show ``done`` of the total (``extra``: e.g. the failures so far)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._drawn < self.interval:
            return
        self._drawn = now
        elapsed = now - self._started
        share = min(1.0, done / self.total)
        filled = int(share * self.WIDTH)
        bar = "█" * filled + "░" * (self.WIDTH - filled)
        rate = done / elapsed if elapsed > 0 else 0.0
        left = f"{_clock((self.total - done) / rate)} left" if rate > 0 else "time left unknown"
        line = f"{self.label} {bar} {done:,}/{self.total:,}  {rate:.1f}/s  {left}"
        if extra:
            line += f"  {extra}"
        self.stream.write("\r\x1b[2K" + line[:200])
        self.stream.flush()

    def close(self) -> None:
        """Clear the line, so what follows starts on a clean one."""
        if self.enabled:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
