"""How a workspace this process cannot write is read (issue 7, point 9), in
the cases SQLite treats differently (see judgepool.store.read_only):

- a read-only folder while someone who may write it has the workspace open:
  SQLite reads the writer's -wal through its -shm, opened read-only;
- a read-only folder holding what a crashed writer left (-wal and -shm);
- a read-only folder with a -wal but no -shm: refused, saying why;
- a read-only folder with neither: read immutable, and a change made
  meanwhile by someone with more rights is reported, not passed off as exact.

The reading processes are bound by file permissions, also as root
(tests/read_only.py).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgepool.services.judging import judge
from judgepool.store.ledger import list_events
from judgepool.store.workspace import open_workspace
from tests.read_only import (
    read_only_file,
    read_only_folder,
    require_truly_read_only,
    run_many,
    unprivileged,
)
from tests.tui.review_support import build_review_workspace

# Grades one document and dies without closing: its commit stays in the -wal.
CRASHING_WRITER = """
import os, sys
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
ws = open_workspace(sys.argv[1])
ws.conn.execute("PRAGMA wal_autocheckpoint = 0")
judge(ws, "q2", "Y", 3, annotator="crashed", allow_new=True)
os._exit(0)
"""

# Opens the workspace, says so, waits for the go file, then leaves the `with`.
PATIENT_READER = """
import sys, time
from pathlib import Path
from judgepool.services.workspace import open_workspace
path, go = sys.argv[1], Path(sys.argv[2])
try:
    with open_workspace(path) as ws:
        print("open", ws.read_only, flush=True)
        while not go.exists():
            time.sleep(0.01)
        ws.conn.execute("SELECT count(*) FROM judgment_events").fetchone()
except Exception as exc:
    print(type(exc).__name__, exc, flush=True)
else:
    print("closed", flush=True)
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    require_truly_read_only(folder)
    return build_review_workspace(folder)


def exported(workspace: Path) -> str:
    (done,) = run_many(["export", workspace, "qrels", "--annotator", "writer"])
    assert done.exit_code == 0, done
    return done.stdout


def test_a_read_only_folder_with_a_live_writer_reads_its_latest_grade(workspace: Path) -> None:
    with open_workspace(workspace) as writer:  # someone who may write the folder
        writer.conn.execute("PRAGMA wal_autocheckpoint = 0")
        judge(writer, "q2", "Y", 3, annotator="writer", allow_new=True)
        sidecars = [workspace.with_name(workspace.name + s) for s in ("-wal", "-shm")]
        assert sidecars[0].stat().st_size > 0  # the grade is in the log only
        with read_only_folder(workspace.parent), read_only_file(workspace, *sidecars):
            assert exported(workspace) == "q2 0 Y 3\n"
            judge(writer, "q1", "X", 1, annotator="writer", allow_new=True)
            assert exported(workspace) == "q1 0 X 1\nq2 0 Y 3\n"


def test_a_read_only_folder_with_a_crashed_writers_log_reads_it(workspace: Path) -> None:
    subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(workspace)], check=True)
    log = workspace.with_name(workspace.name + "-wal")
    assert log.stat().st_size > 0
    with read_only_folder(workspace.parent):
        (done,) = run_many(["export", workspace, "qrels", "--annotator", "crashed"])
    assert done.exit_code == 0, done
    assert done.stdout == "q2 0 Y 3\n"


def test_a_read_only_folder_with_a_log_and_no_shared_memory_is_refused(workspace: Path) -> None:
    subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(workspace)], check=True)
    workspace.with_name(workspace.name + "-shm").unlink()
    with read_only_folder(workspace.parent):
        (done,) = run_many(["export", workspace, "qrels"])
    assert done.exit_code == 2, done
    assert done.exception is None
    assert "its write-ahead log review.sqlite-wal holds changes not yet in the file" in (
        done.stderr
    )
    assert "copy the workspace with its -wal file" in done.stderr


def test_an_unlocked_read_reports_a_change_made_meanwhile(workspace: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    with read_only_folder(workspace.parent):
        reader = subprocess.Popen(
            unprivileged([sys.executable, "-c", PATIENT_READER, str(workspace), str(go)]),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert reader.stdout is not None
        assert reader.stdout.readline() == "open True\n"
        # someone with more rights (root here) grades meanwhile, and closes:
        # the grade is folded into the file the reader reads without locks
        with open_workspace(workspace) as writer:
            judge(writer, "q2", "Y", 3, annotator="root", allow_new=True)
        go.touch()
        out, _ = reader.communicate(timeout=60)
    assert out.startswith("WorkspaceChanged ")
    assert "the workspace changed while it was being read" in out
    assert "run the command again" in out


def test_an_unlocked_read_of_an_unchanged_file_closes_quietly(
    workspace: Path, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    go.touch()
    with read_only_folder(workspace.parent):
        done = subprocess.run(
            unprivileged([sys.executable, "-c", PATIENT_READER, str(workspace), str(go)]),
            capture_output=True,
            text=True,
            check=True,
        )
    assert done.stdout == "open True\nclosed\n"


def test_asking_whether_it_is_read_only_neither_waits_nor_writes(workspace: Path) -> None:
    holder = sqlite3.connect(workspace, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process is writing (a long import)
    try:
        with open_workspace(workspace) as ws:
            started = time.monotonic()
            assert ws.read_only is False
            assert time.monotonic() - started < 1  # not the 10 s busy timeout
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    log = workspace.with_name(workspace.name + "-wal")
    with open_workspace(workspace) as ws:
        judge(ws, "q2", "Y", 3, annotator="alice", allow_new=True)  # the log is not empty
        size = log.stat().st_size
        fresh = open_workspace(workspace)
        assert fresh.read_only is False
        assert fresh.conn.execute("PRAGMA busy_timeout").fetchone()[0] == fresh.busy_timeout_ms
        fresh.close()
        assert log.stat().st_size == size  # no frame appended
        assert len(list_events(ws)) == 11  # the 10 imported qrels and alice's grade
