"""The app's connections to its workspace: one for the main thread, a few
reused by the thread workers, every one closed when the app exits, and the
process's locks on the file kept throughout (issue 7, point 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from judgepool.services.pools import pool
from judgepool.services.workspace import open_workspace
from judgepool.store import open_files
from judgepool.store.ledger import list_events
from judgepool.tui.readers import ReadConnections
from tests.store.test_ws_open_files import LOCK_PROBE
from tests.tui.conftest import wait_ready
from tests.tui.review_support import build_review_workspace, review_app, settle

SIZE = (150, 45)


def lock_state(path: Path) -> str:
    probe = subprocess.run(
        [sys.executable, "-c", LOCK_PROBE, str(path)], capture_output=True, text=True, check=True
    )
    return probe.stdout.strip()


@pytest.mark.slow
async def test_workers_reuse_their_connections_and_the_app_keeps_its_locks(
    tmp_path: Path,
) -> None:
    workspace = build_review_workspace(tmp_path)
    with open_workspace(workspace) as ws:
        pool(ws, depth=3)
    key = open_files.file_key(workspace.stat())
    app = review_app(workspace, "alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        for round_ in range(3):
            for key_press in ("a", "s", "g"):
                await pilot.press(key_press)
                await settle(pilot)
            await pilot.press(str(round_))  # a grade: audit and scores recompute
            await settle(pilot)
            assert lock_state(workspace) == "held"
        # nine screen visits and three grades, each making workers read again
        # at most as many as jobs ran at once (a few), never one per job (dozens)
        assert 1 <= app.readers.opened <= 4
        assert open_files.is_open(key)
    assert not open_files.is_open(key)  # the app's and the workers' connections are closed
    assert lock_state(workspace) == "free"
    with open_workspace(workspace) as ws:
        grades = [e.grade for e in list_events(ws) if e.annotator == "alice"]
    assert grades == [0, 1, 2]


def test_a_closed_pool_closes_connections_as_they_come_back(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    key = open_files.file_key(workspace.stat())
    readers = ReadConnections(workspace)
    with readers.lease() as first:
        with readers.lease() as second:
            assert first is not second
        readers.close()  # the app quits while a worker still reads
        assert first.conn.execute("SELECT count(*) FROM runs").fetchone() == (2,)
        assert open_files.is_open(key)
    assert not open_files.is_open(key)
    assert readers.opened == 2
