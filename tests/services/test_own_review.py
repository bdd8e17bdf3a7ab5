"""An annotator's own review: the items they marked unsure or left a note on
(their own only, never another person's), and their grades per hour as
``judgepool progress`` counts them, once there are a few grades over a few
minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgepool.services.assignments import progress
from judgepool.services.imports import import_documents, import_queries
from judgepool.services.judging import judge, undo
from judgepool.services.own_review import own_items, own_rate
from judgepool.services.workspace import Workspace, init_workspace, open_workspace
from tests.dl20_support import dl20_workspace

TEACHING = Path(__file__).resolve().parents[2] / "sample_data" / "teaching"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    ws = init_workspace(tmp_path / "team.sqlite")
    import_queries(ws, TEACHING / "queries.tsv")
    import_documents(ws, TEACHING / "docs.tsv")
    return ws


def test_the_list_holds_my_unsure_and_noted_items_and_nobody_elses(ws: Workspace) -> None:
    judge(ws, "teach", "A", None, annotator="alice", unsure=True)
    judge(ws, "teach", "B", 2, annotator="alice", note="tea, but not brewing")
    judge(ws, "teach", "C", 3, annotator="alice")  # graded, no note: not listed
    judge(ws, "teach", "C", 1, annotator="bob", note="bob's note on C")
    judge(ws, "teach", "A", 0, annotator="bob", unsure=False)
    found = own_items(ws, "alice")
    assert [(i.doc_id, i.grade, i.unsure, i.note) for i in found.items] == [
        ("B", 2, False, "tea, but not brewing"),  # newest first
        ("A", None, True, None),
    ]
    assert (found.total, found.unsure, found.noted) == (2, 1, 1)
    shown = repr(found)
    assert "bob" not in shown and "bob's note" not in shown
    first = found.items[0]
    assert first.query_start == "how do I brew a good cup of green tea"
    assert first.doc_start is not None and first.doc_start.startswith("Green tea turns bitter")
    bob = own_items(ws, "bob")
    assert [(i.doc_id, i.note) for i in bob.items] == [("C", "bob's note on C")]


def test_a_note_taken_back_by_an_undo_leaves_the_list(ws: Workspace) -> None:
    judge(ws, "teach", "A", 1, annotator="alice")
    noted = judge(ws, "teach", "A", 1, annotator="alice", note="check the temperature")
    assert [i.note for i in own_items(ws, "alice").items] == ["check the temperature"]
    undo(ws, noted.id, annotator="alice")
    assert own_items(ws, "alice").items == ()


def test_an_item_graded_after_being_unsure_leaves_the_list_unless_noted(ws: Workspace) -> None:
    judge(ws, "teach", "A", None, annotator="alice", unsure=True, note="which temperature?")
    judge(ws, "teach", "B", None, annotator="alice", unsure=True)
    judge(ws, "teach", "B", 2, annotator="alice")
    judge(ws, "teach", "A", 3, annotator="alice")
    found = own_items(ws, "alice")
    assert [(i.doc_id, i.grade, i.unsure, i.note) for i in found.items] == [
        ("A", 3, False, "which temperature?")
    ]
    assert found.unsure == 0


def test_my_rate_is_the_one_progress_reports(ws: Workspace) -> None:
    assert own_rate(ws, "alice") is None  # nothing timed yet
    judge(ws, "teach", "A", 1, annotator="alice", seconds=30.0)
    judge(ws, "teach", "B", None, annotator="alice", unsure=True, seconds=15.0)
    judge(ws, "teach", "C", 2, annotator="alice", seconds=45.0)
    judge(ws, "teach", "A", 2, annotator="bob", seconds=1.0)
    judge(ws, "teach", "B", 0, annotator="alice")  # the command line's: no time
    for doc, seconds in (("A", 40.0), ("B", 20.0), ("C", 25.0)):
        judge(ws, "teach", doc, 3, annotator="alice", seconds=seconds)
    # five timed grades in 175 seconds
    assert own_rate(ws, "alice") == pytest.approx(5 * 3600 / 175)
    by_name = {row.annotator: row.per_hour for row in progress(ws)}
    assert own_rate(ws, "alice") == by_name["alice"]
    assert own_rate(ws, "bob") is by_name["bob"] is None  # one grade: no rate yet


def test_no_rate_before_a_few_grades_and_minutes(tmp_path: Path) -> None:
    """One grade in two seconds read "1,783.1/h"; so would five in ten."""
    path = dl20_workspace(tmp_path / "rate.sqlite", queries=1, depth=20)
    with open_workspace(path) as ws:
        items = [(str(q), str(d)) for q, d in ws.conn.execute(
            "SELECT query_id, doc_id FROM pool_members ORDER BY doc_id")]  # fmt: skip
        judge(ws, *items[0], 1, annotator="alice", seconds=2.019)
        assert own_rate(ws, "alice") is None  # was 3600 / 2.019 = 1,783.1
        for item in items[1:5]:
            judge(ws, *item, 0, annotator="alice", seconds=2.0)
        assert own_rate(ws, "alice") is None  # five grades, but in ten seconds
        for item in items[5:7]:
            judge(ws, *item, 2, annotator="alice", seconds=60.0)
        # seven grades over two minutes (130.019 s): a rate at last
        assert own_rate(ws, "alice") == pytest.approx(7 * 3600 / 130.019)
        judge(ws, *items[7], 1, annotator="bob", seconds=600.0)
        assert own_rate(ws, "bob") is None  # ten minutes, one grade
