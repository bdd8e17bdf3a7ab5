"""`judgepool serve` in a real headless browser (Chromium driven by Playwright):
a wrong token is refused; alice and bob, in two browser contexts at the same
time, sign in and grade 20 documents each with the keyboard; the ledger then
holds exactly those 40 events, each under the name that signed in.

Skips, saying what is missing, without Playwright or Chromium; fails in CI
(env CI set), where `.ci/run` installs them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.serve.browser_support import (
    BrowserSession,
    add_annotator,
    chromium_path,
    need_browser,
    serving,
)
from tests.tui.conftest import build_workspace

pytestmark = pytest.mark.slow

GRADES = 20


def ledger(path: Path) -> list[tuple[str, str, str, int | None]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT annotator, query_id, doc_id, grade FROM judgment_events ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def failures(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT name, reason FROM sign_in_failures ORDER BY id").fetchall()
    finally:
        conn.close()


def test_two_annotators_grade_at_once_in_a_browser(tmp_path: Path) -> None:
    sync_api = need_browser()
    workspace = build_workspace(tmp_path / "served.sqlite", ["dl19"])
    tokens = {name: add_annotator(workspace, name) for name in ("alice", "bob")}
    with serving(workspace) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        try:
            pages = {
                name: BrowserSession(
                    browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), url
                )
                for name in ("alice", "bob")
            }
            alice, bob = pages["alice"], pages["bob"]

            # A wrong token: refused, logged, and no key reaches the grade screen.
            refused = alice.sign_in("alice", tokens["bob"])
            alice.wait_for("do not match", since=refused)
            alice.press("1")
            alice.press("g")
            assert failures(workspace) == [("alice", "wrong token")]

            # Both sign in, alice again after the pause a failure costs.
            alice.wait_for("you can type again", since=refused)
            # The field was emptied, but the keys pressed while it was shut may
            # reach it late (under load, after it opened again): empty it
            # whatever it holds, from its end (Ctrl+A moves to its start).
            alice.focus()
            alice.press("End")
            for _ in range(len(tokens["alice"]) + 20):
                alice.press("Backspace")
            mark = alice.mark()
            alice.type(tokens["alice"])
            alice.press("Enter")
            alice.wait_for("annotator", since=mark)
            alice.wait_for("alice", since=mark)
            mark = bob.sign_in("bob", tokens["bob"])
            bob.wait_for("bob", since=mark)
            bob.wait_for("0 judged this session", since=mark)

            # Interleaved: both sessions are open and grading at the same time.
            for count in range(1, GRADES + 1):
                for name, session in pages.items():
                    grade = str((count + len(name)) % 4)
                    mark = session.mark()
                    session.press(grade)
                    session.wait_for(f"{count} judged this session", since=mark)
        finally:
            browser.close()

    events = ledger(workspace)
    assert len(events) == 2 * GRADES
    for name in ("alice", "bob"):
        theirs = [event for event in events if event[0] == name]
        assert [grade for *_, grade in theirs] == [
            (count + len(name)) % 4 for count in range(1, GRADES + 1)
        ]
        assert len({(query, doc) for _, query, doc, _ in theirs}) == GRADES
    assert {event[0] for event in events} == {"alice", "bob"}
