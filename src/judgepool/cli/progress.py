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
