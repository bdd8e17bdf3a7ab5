"""The read connections of the app's thread workers, kept open from job to job.

The audit and scores screens read the workspace in thread workers (listing
runs, auditing, scoring, drilling down). Where their connections come from:

- Not the app's own connection (``app.ws``): the grade screen writes on it,
  on the event loop's thread, inside BEGIN IMMEDIATE transactions. A worker
  reading through it meanwhile would read inside that transaction (rows not
  yet committed), and one sqlite3 connection gives threads that share it no
  isolation from each other.
- Not a new connection per job, as before: every grade makes the screens
  recompute, so every grade opened and closed connections (and, before
  `judgepool.store.open_files`, read the file's header with a plain
  descriptor, whose closing dropped the app's locks: that lost grades).

So a worker borrows an open connection for one job (`ReadConnections.lease`)
and gives it back. There are as many as jobs have run at once, in practice
one or two (each screen's workers are exclusive), and all are closed with
the app. Textual runs thread workers on a shared thread pool, so a
connection may serve different threads one after another, never two at once
(the connections are opened with check_same_thread=False).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.workspace import Workspace, open_workspace


class ReadConnections:
    """Open read connections to one workspace, each lent to one worker job at a time."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._idle: list[Workspace] = []
        self._lock = threading.Lock()
        self._closed = False
        self.opened = 0  # how many connections were opened (tests read it)

    @contextlib.contextmanager
    def lease(self) -> Iterator[Workspace]:
        """An open connection for the duration of a job; a judgepool error when
        the workspace cannot be opened or the app is closing."""
        with self._lock:
            if self._closed:
                raise JudgepoolError("the app is closing")
            ws = self._idle.pop() if self._idle else None
        if ws is None:
            ws = open_workspace(self.workspace)
            with self._lock:
                self.opened += 1
        failed = True
        try:
            yield ws
            failed = False
        finally:
            self._give_back(ws, keep=not failed)

    def _give_back(self, ws: Workspace, *, keep: bool) -> None:
        # A job that failed may have left its connection in any state: close it.
        with self._lock:
            keep = keep and not self._closed
            if keep:
                self._idle.append(ws)
        if not keep:
            ws.close()

    def close(self) -> None:
        """Close every idle connection now, and each lent one when it comes back."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for ws in idle:
            ws.close()
