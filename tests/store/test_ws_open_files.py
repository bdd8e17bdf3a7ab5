"""A process with several connections to one workspace keeps its locks, so no
acknowledged grade is lost to another process (issue 7, point 2).

POSIX locks belong to a process and an inode: closing any descriptor of the
database file drops every lock the process holds on it. The header check
once read the file with open()/close() on every open_workspace, so a second
connection of the app (its audit and scores workers) unlocked the first; the
next outside process to close the workspace then deleted the write-ahead log,
and later commits went to an orphaned log. These tests hold every connection
of one process open beside outside writers and check, from a fresh process
once everything has exited, that every acknowledged event is on disk.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.services.imports import import_queries, import_run
from judgepool.services.judging import judge
from judgepool.services.qrels import import_qrels
from judgepool.store import open_files
from judgepool.store.workspace import Workspace, open_workspace
from tests.tui.conftest import build_workspace

JUDGEPOOL = [sys.executable, "-m", "judgepool"]

# SQLite's lock bytes on the database file (os_unix.c): a connection to a WAL
# database holds a shared lock on the SHARED range for as long as it is open.
PENDING_BYTE = 0x40000000
SHARED_FIRST = PENDING_BYTE + 2
SHARED_SIZE = 510

# Run in another process: can it take an exclusive lock on the SHARED range?
# It can only if no process holds a shared lock there, i.e. if our
# connections lost theirs. (Its own open/close is harmless: it is another
# process, holding no lock on the file.)
LOCK_PROBE = f"""
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, {SHARED_SIZE}, {SHARED_FIRST})
except OSError:
    print("held")
else:
    print("free")
"""

# Another process that opens the file and closes it, as a backup tool or an
# editor might.
PLAIN_OPEN = "import sys; open(sys.argv[1], 'rb').read(100)"

# A fresh process reading the ledger once everything has exited.
READ_LEDGER = """
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
rows = conn.execute("SELECT id, annotator, query_id, doc_id, grade FROM judgment_events")
print(json.dumps([list(row) for row in rows]))
"""


def _pooled_items(path: Path, count: int) -> list[tuple[str, str]]:
    with open_workspace(path) as ws:
        rows = ws.conn.execute(
            "SELECT query_id, doc_id FROM pool_members ORDER BY query_id, doc_id LIMIT ?",
            (count,),
        ).fetchall()
    assert len(rows) == count
    return [(str(q), str(d)) for q, d in rows]


def _lock_state(path: Path) -> str:
    probe = subprocess.run(
        [sys.executable, "-c", LOCK_PROBE, str(path)], capture_output=True, text=True, check=True
    )
    return probe.stdout.strip()


def _judge_in_another_process(path: Path, item: tuple[str, str], grade: int) -> int:
    """`judgepool judge … --annotator bob`; the event ID it acknowledged."""
    done = subprocess.run(
        [*JUDGEPOOL, "judge", str(path), *item, str(grade), "--annotator", "bob"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.rsplit("[event ", 1)[1].rstrip("]\n"))


def _events_on_disk(path: Path) -> dict[int, tuple[str, str, str, int | None]]:
    done = subprocess.run(
        [sys.executable, "-c", READ_LEDGER, str(path)], capture_output=True, text=True, check=True
    )
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in json.loads(done.stdout)}


@pytest.fixture
def pooled(tmp_path: Path) -> Path:
    return build_workspace(tmp_path / "pooled.sqlite", ["noveleval"])


def test_opening_a_second_connection_keeps_the_first_ones_locks(pooled: Path) -> None:
    with open_workspace(pooled) as first:
        first.conn.execute("SELECT count(*) FROM judgment_events").fetchone()
        assert _lock_state(pooled) == "held"
        for _ in range(3):  # what each job of the app's workers did
            open_workspace(pooled).close()
            assert _lock_state(pooled) == "held"
        # through another name for the same file, too
        alias = pooled.with_name("alias.sqlite")
        alias.symlink_to(pooled)
        open_workspace(alias).close()
        assert _lock_state(pooled) == "held"
    assert _lock_state(pooled) == "free"


def test_two_connections_and_outside_writers_keep_every_acknowledged_event(
    pooled: Path,
) -> None:
    items = iter(_pooled_items(pooled, 30))
    acknowledged: dict[int, tuple[str, str, str, int | None]] = {}

    def grade(ws: Workspace, annotator: str, value: int) -> None:
        event = judge(ws, *next(items), value, annotator=annotator)
        acknowledged[event.id] = (annotator, event.query_id, event.doc_id, event.grade)

    def outside(value: int) -> None:
        item = next(items)
        event_id = _judge_in_another_process(pooled, item, value)
        acknowledged[event_id] = ("bob", *item, value)
        subprocess.run([sys.executable, "-c", PLAIN_OPEN, str(pooled)], check=True)

    with open_workspace(pooled) as app:
        grade(app, "alice", 1)
        with open_workspace(pooled) as worker:  # a second connection, as the app's workers
            grade(worker, "carol", 2)
            outside(3)
            grade(app, "alice", 0)
            grade(worker, "carol", 1)
        outside(2)
        for value in (0, 1, 2, 3):  # after the worker's connection closed
            grade(app, "alice", value)
        open_workspace(pooled).close()
        outside(1)
        grade(app, "alice", 2)
    outside(0)
    on_disk = _events_on_disk(pooled)
    missing = {i: e for i, e in acknowledged.items() if on_disk.get(i) != e}
    assert not missing, f"acknowledged events not on disk: {missing}"
    assert len(on_disk) == len(acknowledged) == 13  # alice 7, carol 2, bob 4


def test_a_file_that_is_not_a_workspace_is_still_refused_while_one_is_open(
    pooled: Path, tmp_path: Path
) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("q1 0 d1 1\n")
    with open_workspace(pooled), pytest.raises(InputError, match="not an SQLite database"):
        open_workspace(other)
    assert other.read_text() == "q1 0 d1 1\n"


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_an_open_workspaces_own_files_are_refused_as_input(pooled: Path, suffix: str) -> None:
    own = pooled.with_name(pooled.name + suffix)
    with open_workspace(pooled) as ws:
        judge(ws, *_pooled_items(pooled, 1)[0], 2, annotator="alice")
        assert own.exists()
        for read in (
            lambda: import_run(ws, own, name="itself"),
            lambda: import_qrels(ws, own),
            lambda: import_queries(ws, own),
        ):
            with pytest.raises(InputError, match=r"is the workspace|a file SQLite keeps"):
                read()
        assert _lock_state(pooled) == "held"


def test_the_registry_forgets_a_file_once_its_last_connection_closes(pooled: Path) -> None:
    key = open_files.file_key(pooled.stat())
    first = open_workspace(pooled)
    second = open_workspace(pooled)
    assert open_files.is_open(key)
    first.close()
    first.close()  # closing twice counts once
    assert open_files.is_open(key)
    second.close()
    assert not open_files.is_open(key)
    assert open_files.open_workspace_file(pooled) is None
