"""Judging: a grade refused before anything is written, undo by appending, and
setting adjudicators all at once or not at all."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.services.consensus import workspace_judgments
from judgepool.services.judging import judge as judge_held
from judgepool.services.judging import list_annotators, on_scale, set_adjudicators, undo
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.ledger import list_events

# These tests judge items made up on the spot, in workspaces holding nothing else.
judge = functools.partial(judge_held, allow_new=True)


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with init_workspace(tmp_path / "w.sqlite") as workspace:
        yield workspace


def test_grade_outside_scale_or_bad_source_is_refused_and_nothing_is_written(ws: Workspace) -> None:
    with pytest.raises(InputError, match="outside the workspace's scale"):
        judge(ws, "q1", "d1", 4, annotator="alice")
    with pytest.raises(InputError, match="source"):
        judge(ws, "q1", "d1", 1, annotator="alice", source="robot")
    with pytest.raises(InputError, match="either a grade or unsure"):
        judge(ws, "q1", "d1", 1, unsure=True, annotator="alice")
    assert list_events(ws) == []
    event = judge(ws, "q1", "d1", 1, annotator="m", source="model:gpt-x")
    assert event.source == "model:gpt-x"


def test_on_scale_says_which_grades_judge_takes(ws: Workspace) -> None:
    # the app asks it for the grade keys it offers: the one check of the scale
    assert [grade for grade in range(-1, 6) if on_scale(ws, grade)] == [0, 1, 2, 3]
    with pytest.raises(InputError, match="outside the workspace's scale"):
        judge(ws, "q1", "d1", 4, annotator="alice")
    assert judge(ws, "q1", "d1", 3, annotator="alice").grade == 3


def test_undo_appends_an_event_restoring_the_previous_state(ws: Workspace) -> None:
    first = judge(ws, "q1", "d1", 1, annotator="alice")
    second = judge(ws, "q1", "d1", 3, annotator="alice")
    restored = undo(ws, second.id, annotator="alice")
    assert (restored.grade, restored.undoes, restored.previous_grade) == (1, second.id, 3)
    assert workspace_judgments(ws)[0] == {"q1": {"d1": 1}}
    withdrawn = undo(ws, restored.id, annotator="alice")  # undo the undo: back to 3
    assert withdrawn.grade == 3
    undo(ws, withdrawn.id, annotator="alice")
    # undoing the first grade of an item withdraws the judgment
    again = judge(ws, "q2", "d9", 2, annotator="alice")
    gone = undo(ws, again.id, annotator="alice")
    assert gone.withdrawn and gone.previous_grade == 2
    assert "q2" not in workspace_judgments(ws)[0]
    # nothing was deleted: six events, all present, in order
    assert [e.id for e in list_events(ws)] == list(range(first.id, first.id + 7))


def test_undo_refuses_other_annotators_and_superseded_events(ws: Workspace) -> None:
    first = judge(ws, "q1", "d1", 1, annotator="alice")
    with pytest.raises(InputError, match="only your own"):
        undo(ws, first.id, annotator="bob")
    judge(ws, "q1", "d1", 2, annotator="alice")
    with pytest.raises(InputError, match="undo that one first"):
        undo(ws, first.id, annotator="alice")
    judge(ws, "q1", "d1", 0, annotator="bob")  # another annotator does not block alice
    assert len(list_events(ws)) == 3


def test_adjudicators_are_set_all_at_once_or_not_at_all(ws: Workspace) -> None:
    for annotator in ("alice", "bob", "carol"):
        judge(ws, "q1", "d1", 1, annotator=annotator)
    set_adjudicators(ws, grant=["alice", "bob"])
    with pytest.raises(InputError, match="no annotator 'dave'"):
        set_adjudicators(ws, grant=["carol"], revoke=["alice", "dave"])
    roles = {a.name: a.adjudicator for a in list_annotators(ws)}
    assert roles == {"alice": True, "bob": True, "carol": False}  # nothing changed
    set_adjudicators(ws, grant=["carol"], revoke=["alice"])
    roles = {a.name: a.adjudicator for a in list_annotators(ws)}
    assert roles == {"alice": False, "bob": True, "carol": True}
