"""Undoing a note, replayed on TREC DL 2020: a note added in the app (``e``)
is an event with the grade again, so ``judgepool undo`` then took back "2"
and left "2" and said so ("took back 2 … now 2"), and the disagreement, as
the adjudicator reads it, dated the grade that came back to the undo and kept
the note taken back. The real command on a real workspace file."""

from __future__ import annotations

import json
from pathlib import Path

from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from judgepool.store.ledger import list_events
from tests.cli.test_team_cli import judgepool
from tests.dl20_support import dl20_grades, dl20_queries, dl20_workspace

NOTE = "on second thought: still 2"


def test_undoing_a_note_says_so_and_the_grade_keeps_its_time(tmp_path: Path) -> None:
    path = dl20_workspace(tmp_path / "undo.sqlite", queries=1)
    query = dl20_queries(1)[0]
    doc = next(doc for doc, grade in dl20_grades(query).items() if grade == 2)
    with open_workspace(path) as ws:
        judge(ws, query, doc, 0, annotator="bob", allow_new=True)
        given = judge(ws, query, doc, 2, annotator="alice", allow_new=True)
        noted = judge(ws, query, doc, 2, annotator="alice", note=NOTE)  # the app's e

    done = judgepool("undo", path, "--annotator", "alice")
    assert done.returncode == 0, done.stderr
    with open_workspace(path) as ws:
        undo = list_events(ws, annotator="alice")[-1]
    assert done.stdout == (
        f"alice: took back the note '{NOTE}' given with 2 on query {query} doc {doc} "
        f"(event {noted.id}, {noted.created_at}); the grade stays 2, as given at "
        f"{given.created_at} (event {given.id}) [event {undo.id}]\n"
    )

    listed = judgepool("disagreements", path, "--format", "json")
    assert listed.returncode == 0, listed.stderr
    item = json.loads(listed.stdout.splitlines()[0])
    alice = next(detail for detail in item["details"] if detail["annotator"] == "alice")
    assert alice["time"] == given.created_at != undo.created_at
    assert alice["note"] is None  # the note was taken back

    # a grade that changed: what came back, and from when
    with open_workspace(path) as ws:
        changed = judge(ws, query, doc, 3, annotator="alice", note="perfect after all")
    again = judgepool("undo", path, "--annotator", "alice")
    assert again.stdout.startswith(
        f"alice: took back 3 with the note 'perfect after all' on query {query} doc {doc} "
        f"(event {changed.id}, {changed.created_at}); now 2, as given at {given.created_at} "
        f"(event {given.id}) [event "
    )
