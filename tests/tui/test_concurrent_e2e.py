"""The app in a real terminal grading across every screen while other
processes judge, score and export the same workspace: every event any of them
acknowledged is on disk at the end (issue 7, point 2).

The app (tmux, ``judgepool tui``) grades, shows the audit, the scores, grades
again; each screen's workers read the workspace on connections of their own.
Meanwhile other processes write: a loop of ``judgepool judge … --annotator
bob`` in the background all along, and at the moments that once lost grades
(just after a worker opened its connection) a ``judge``, a ``score
--workspace`` (which stores evaluations), an ``export`` and a plain
``open()``/``close()`` of the file. Once every process has exited, a fresh
process reads the ledger and the stored evaluations.

Before the fix the audit worker's header check closed a descriptor of the
file, dropping the app's locks; the next outside process to close deleted
the write-ahead log, and the app's later grades (and others') were lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.services.workspace import open_workspace
from tests.tui.conftest import build_workspace
from tests.tui.terminal_support import open_terminal, wait_for_exit
from tests.tui.test_terminal_e2e import Terminal, app_command, pytestmark, session_count

__all__ = ["pytestmark"]  # skipped without tmux, as the other terminal tests

JUDGEPOOL = [sys.executable, "-m", "judgepool"]

READ_BACK = """
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
events = conn.execute("SELECT id, annotator, query_id, doc_id, grade FROM judgment_events")
stored = conn.execute("SELECT id, run_name, contract FROM evaluations")
print(json.dumps({"events": [list(e) for e in events], "evaluations": [list(s) for s in stored]}))
"""

Event = tuple[str, str, str, int | None]  # annotator, query, document, grade


class Outside:
    """The other processes: what each acknowledged."""

    def __init__(self, workspace: Path, items: list[tuple[str, str]]) -> None:
        self.workspace = workspace
        self.items = iter(items)
        self.events: dict[int, Event] = {}
        self.evaluations = 0
        self.lock = threading.Lock()

    def judge(self, annotator: str) -> None:
        with self.lock:
            query, doc = next(self.items)
        grade = len(self.events) % 4
        command = ["judge", str(self.workspace), query, doc, str(grade), "--annotator", annotator]
        done = subprocess.run(
            [*JUDGEPOOL, *command],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        event_id = int(done.stdout.rsplit("[event ", 1)[1].rstrip("]\n"))
        with self.lock:
            self.events[event_id] = (annotator, query, doc, grade)

    def score(self) -> None:
        options = ["--unjudged", "zero", "--format", "json"]
        done = subprocess.run(
            [*JUDGEPOOL, "score", "--workspace", str(self.workspace), *options],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""  # stored: no "not stored" note
        with self.lock:
            self.evaluations += len(done.stdout.splitlines())

    def export(self) -> None:
        done = subprocess.run(
            [*JUDGEPOOL, "export", str(self.workspace), "qrels"], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("\n") > 800

    def plain_open(self) -> None:
        with open(self.workspace, "rb") as handle:  # another process: holds no lock
            handle.read(100)

    def round(self) -> None:
        """One of each, in turn."""
        self.judge("bob")
        self.plain_open()
        self.score()
        self.export()


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    with open_terminal(tmp_path) as term:
        yield term


@pytest.fixture
def background(tmp_path: Path) -> Iterator[tuple[Path, Outside, threading.Event]]:
    """A pooled DL19 workspace (tests/fixtures/dl19-top20: 43 queries, 892 pooled
    documents, 67 of them not judged by its qrels), and a thread judging as
    ``dora`` until told to stop."""
    workspace = build_workspace(tmp_path / "dl19.sqlite", ["dl19-top20"], qrels=True)
    with open_workspace(workspace) as ws:
        items = [
            (str(q), str(d))
            for q, d in ws.conn.execute(
                "SELECT query_id, doc_id FROM pool_members ORDER BY doc_id, query_id"
            )
        ]
    outside = Outside(workspace, items)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            outside.judge("dora")

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield workspace, outside, stop
    finally:
        stop.set()
        thread.join(timeout=60)


@pytest.mark.slow
def test_every_acknowledged_event_survives_the_app_and_other_writers(
    tmp_path: Path, background: tuple[Path, Outside, threading.Event], terminal: Terminal
) -> None:
    workspace, outside, stop = background
    terminal.start(*app_command(workspace, "alice"))
    terminal.wait_for(lambda s: "annotator alice" in s and "document 1/" in s, timeout=30)
    alice: list[int] = []

    def grade(key: str) -> None:
        terminal.keys(key)
        alice.append(int(key))
        terminal.wait_for(session_count(len(alice)))

    def audit() -> None:
        terminal.keys("a")
        terminal.wait_for(lambda s: "judged@10" in s and "auditing" not in s, timeout=60)

    def scores() -> None:
        terminal.keys("s")
        terminal.wait_for(lambda s: "judgments:" in s and "scoring" not in s, timeout=60)

    def back_to_grading() -> None:
        terminal.keys("g")
        terminal.wait_for(session_count(len(alice)))

    grade("1")
    audit()
    outside.round()
    scores()
    outside.round()
    back_to_grading()
    for key in "2032":
        grade(key)
    outside.judge("bob")
    for key in "10":
        grade(key)
    audit()  # the screens recompute after the grades, with writers beside them
    scores()
    outside.round()
    back_to_grading()
    grade("3")
    outside.judge("bob")
    grade("2")
    stop.set()
    terminal.keys("q")
    wait_for_exit(terminal)
    outside.judge("bob")  # and one after the app has gone

    done = subprocess.run(
        [sys.executable, "-c", READ_BACK, str(workspace)], capture_output=True, text=True
    )
    on_disk = json.loads(done.stdout)
    events = {row[0]: tuple(row[1:]) for row in on_disk["events"]}
    lost = {i: e for i, e in outside.events.items() if events.get(i) != e}
    assert not lost, f"acknowledged events of other processes not on disk: {lost}"
    assert sorted(e[3] for e in events.values() if e[0] == "alice") == sorted(alice)
    # the command line's evaluations (under unjudged=zero), and the app's own:
    # it stores the scores it computes, under its contract (the default, reject)
    by_policy: dict[str, int] = {}
    for _, _, contract in on_disk["evaluations"]:
        policy = json.loads(contract)["unjudged"]
        by_policy[policy] = by_policy.get(policy, 0) + 1
    assert by_policy.get("zero", 0) == outside.evaluations
    assert set(by_policy) <= {"zero", "reject"}
    assert len([e for e in outside.events.values() if e[0] == "dora"]) >= 3  # it did run beside
    imported = 9260
    assert len(events) == imported + len(alice) + len(outside.events)
