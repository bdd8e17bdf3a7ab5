"""A served session's process ends when its browser page goes, even while it
is busy: driven as textual-serve drives it (`tests.serve.session_protocol`),
with a real workspace file another process holds the write lock of, so the
session's main thread waits inside SQLite (up to the 10 s busy timeout) when
the page closes or SIGTERM comes; and under an entity pattern that Python's
``re`` backtracked on for ever, which took the whole process with it."""

from __future__ import annotations

import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.core.terms.contract import Contract
from judgepool.services.imports import import_run
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import open_workspace
from judgepool.tui.served_driver import GRACE_SECONDS
from tests.serve.browser_support import add_annotator
from tests.serve.session_protocol import ServedProcess
from tests.tui.conftest import build_workspace

pytestmark = pytest.mark.slow

# What a session may take to end once asked, on a loaded machine: the grace
# and then some. Before, a waiting session ended only when the busy timeout
# (10 s) let it go, and a backtracking one never.
ENDS_WITHIN = GRACE_SECONDS + 4.0
CATASTROPHIC = r"(\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d)+x"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ServedProcess, Path]]:
    workspace = build_workspace(tmp_path / "served.sqlite", ["teaching"])
    token = add_annotator(workspace, "alice")
    session = ServedProcess(workspace)
    try:
        session.sign_in("alice", token)
        session.wait_for("judged this session")
        yield session, workspace
    finally:
        session.stop()


def wait_on_a_held_lock(session: ServedProcess, workspace: Path) -> sqlite3.Connection:
    """Another process holds the write lock; the session grades, so its main
    thread waits on the lock inside SQLite."""
    holder = sqlite3.connect(workspace, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    session.type("2")
    session.wait_main_thread_sleeping()
    return holder


def test_closing_the_page_ends_a_session_waiting_on_the_workspace(
    served: tuple[ServedProcess, Path],
) -> None:
    session, workspace = served
    holder = wait_on_a_held_lock(session, workspace)
    try:
        session.close_page()
        took = session.ended_within(ENDS_WITHIN)
        assert took is not None, "the session outlived its page"
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_sigterm_ends_a_session_waiting_on_the_workspace(
    served: tuple[ServedProcess, Path],
) -> None:
    session, workspace = served
    holder = wait_on_a_held_lock(session, workspace)
    try:
        session.process.send_signal(signal.SIGTERM)
        took = session.ended_within(ENDS_WITHIN)
        assert took is not None, "the session ignored SIGTERM"
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_session_scoring_under_a_backtracking_pattern_ends_with_its_page(
    tmp_path: Path,
) -> None:
    workspace = build_workspace(tmp_path / "served.sqlite", ["teaching"])
    digits = tmp_path / "digits.trec"
    docs = [f"{n:030d}" for n in range(1, 11)]
    digits.write_text("".join(f"q1 Q0 {d} {r} {20 - r} d\n" for r, d in enumerate(docs, 1)))
    qrels = tmp_path / "digits.qrels"
    qrels.write_text("".join(f"q1 0 {d} {n % 4}\n" for n, d in enumerate(docs)))
    with open_workspace(workspace) as ws:
        import_qrels(ws, qrels, annotator="assessors")
        import_run(ws, digits, name="digits")
        # as a lead saves it with ctrl+o: every later score runs the pattern
        ws.set_default_contract(Contract(scale=ws.scale, entity=CATASTROPHIC, unjudged="zero"))
    token = add_annotator(workspace, "carol")
    with open_workspace(workspace) as ws:
        from judgepool.services.roles import set_role

        set_role(ws, "carol", "lead")
    session = ServedProcess(workspace)
    try:
        session.sign_in("carol", token)
        session.wait_for("judged this session")
        mark = session.mark()
        session.type("s")
        session.wait_for("digits", since=mark)  # the scores screen, scoring
        session.close_page()
        assert session.ended_within(ENDS_WITHIN) is not None, "the session outlived its page"
    finally:
        session.stop()
