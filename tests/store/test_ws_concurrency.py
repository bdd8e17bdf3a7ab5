"""Several processes grading one workspace at once lose nothing."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from judgepool.services.consensus import workspace_judgments
from judgepool.services.judging import judge
from judgepool.services.workspace import WorkspaceBusy, init_workspace, open_workspace
from judgepool.store.ledger import current_judgments, list_events

GRADES_PER_PROCESS = 200

# Each process waits for the start file so that both write at the same time,
# then grades the same 200 items (its own annotator), acknowledging each grade
# only after judge() returned.
GRADER = """
import sys, time
from pathlib import Path
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
path, annotator, start, count = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
with open_workspace(path) as ws:
    print("ready", flush=True)
    while not start.exists():
        time.sleep(0.001)
    print("started", time.time(), flush=True)
    for i in range(count):
        event = judge(
            ws, "q%d" % (i % 7), "d%d" % i, (i + len(annotator)) % 4,
            annotator=annotator, allow_new=True,
        )
        print(event.id, flush=True)
    print("finished", time.time(), flush=True)
"""


def test_two_processes_grading_at_once_lose_no_grade(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    init_workspace(path).close()
    start = tmp_path / "go"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", GRADER, str(path), name, str(start), str(GRADES_PER_PROCESS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alice", "bob")
    ]
    for process in processes:  # both have the workspace open and are waiting
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
    start.touch()
    acknowledged: dict[str, list[int]] = {}
    window: dict[str, tuple[float, float]] = {}
    for name, process in zip(("alice", "bob"), processes, strict=True):
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        lines = out.split("\n")
        started, *ids, finished = [line for line in lines if line]
        window[name] = (float(started.split()[1]), float(finished.split()[1]))
        acknowledged[name] = [int(line) for line in ids]
        assert len(acknowledged[name]) == GRADES_PER_PROCESS
    with open_workspace(path) as ws:
        events = list_events(ws)
        assert len(events) == 2 * GRADES_PER_PROCESS
        for name in ("alice", "bob"):
            mine = [e for e in events if e.annotator == name]
            assert [e.id for e in mine] == acknowledged[name]
            assert [(e.query_id, e.doc_id, e.grade) for e in mine] == [
                (f"q{i % 7}", f"d{i}", (i + len(name)) % 4) for i in range(GRADES_PER_PROCESS)
            ]
        # the two really competed: each started before the other had finished
        # (SQLite may still serialise them, one waiting on the other's lock)
        assert window["alice"][0] < window["bob"][1]
        assert window["bob"][0] < window["alice"][1]
        assert len(current_judgments(ws)) == 2 * GRADES_PER_PROCESS
        judged, _ = workspace_judgments(ws, "latest")
        assert sum(len(docs) for docs in judged.values()) == GRADES_PER_PROCESS


def test_a_grade_waiting_too_long_for_the_lock_fails_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    init_workspace(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # e.g. a long import in another process
    with open_workspace(path, busy_timeout_ms=200) as ws:
        with pytest.raises(WorkspaceBusy, match="busy") as caught:
            judge(ws, "q1", "d1", 1, annotator="alice", allow_new=True)
        assert caught.value.exit_code == 2
        holder.execute("ROLLBACK")
        # and works once the lock is free
        judge(ws, "q1", "d1", 1, annotator="alice", allow_new=True)
        assert len(list_events(ws)) == 1
    holder.close()
