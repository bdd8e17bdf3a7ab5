"""After an undo, the adjudicator's screen dates each grade from when it was
given and shows no note that was taken back, replayed on TREC DL 2020: alice
grades, adds a note (the app's ``e``: her grade again, with the note), and
takes it back with ``judgepool undo``; the screen dated her grade to the undo
and kept the note. Driven by the Pilot on a real workspace file."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgepool.services.judging import judge
from judgepool.services.undo import undo_last_grade
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from judgepool.tui.screens.adjudicate import AdjudicateScreen
from tests.dl20_support import dl20_queries, dl20_workspace
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until


async def test_the_adjudicator_reads_a_grade_brought_back_by_an_undo_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = dl20_workspace(tmp_path / "undo.sqlite", queries=1)
    query = dl20_queries(1)[0]
    with open_workspace(path) as ws:
        # BM25's first passage for the query
        (doc,) = ws.conn.execute(
            "SELECT doc_id FROM run_lines WHERE query_id = ? AND rank = 1", (query,)
        ).fetchone()
        at = [""]
        monkeypatch.setattr(ledger, "now", lambda: at[0])
        at[0] = "2026-01-05T09:00:00.000000Z"
        judge(ws, query, doc, 0, annotator="bob")
        at[0] = "2026-01-05T09:01:00.000000Z"
        judge(ws, query, doc, 2, annotator="alice")
        at[0] = "2026-01-05T09:10:00.000000Z"  # the app's e: her grade again, with the note
        judge(ws, query, doc, 2, annotator="alice", note="still [b]2[/b], I think")
        at[0] = "2026-01-05T09:20:00.000000Z"
        undo_last_grade(ws, "alice")
        monkeypatch.undo()
        with ws.write() as conn:
            ledger.set_role(conn, "carol", "adjudicator")
    app = create_app(path, "carol")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
        await wait_until(pilot, lambda: "bob 0 Irrelevant" in screen_text(app), "the grades")
        text = screen_text(app)
        assert "alice 2 Highly relevant  2026-01-05 09:01:00 UTC" in text
        assert "09:20:00" not in text and "I think" not in text
        assert "bob 0 Irrelevant  2026-01-05 09:00:00 UTC" in text
