"""The undo rules on plain rows: which event an undo takes back, which it
refuses, and what it brings back (the store's one transaction that applies
them is tested through the services: tests/services/test_judging.py,
tests/store/test_ws_ledger.py)."""

from __future__ import annotations

from judgepool.core.team.undo import (
    NOTHING,
    Restored,
    UndoRow,
    latest_standing_grade,
    restored_state,
    standing,
    taken_back,
    undo_refusal,
)


def row(
    id_: int,
    doc_id: str = "d1",
    grade: int | None = 1,
    *,
    unsure: bool = False,
    undoes: int | None = None,
    adjudicates: bool = False,
) -> UndoRow:
    return UndoRow(id_, "q1", doc_id, grade, unsure, undoes, adjudicates)


def test_the_events_undos_took_back() -> None:
    assert taken_back([None, 3, None, 5]) == {3, 5}
    rows = [row(1), row(2, grade=3), row(3, undoes=2)]
    assert [found.id for found in standing(rows)] == [1]


def test_the_latest_standing_grade_walks_back_as_a_stack() -> None:
    rows = [row(1, "d1"), row(2, "d2", unsure=True, grade=None), row(3, "d3")]
    assert latest_standing_grade(rows) == 3
    rows.append(row(4, "d3", grade=None, undoes=3))  # d3 taken back: withdrawn
    assert latest_standing_grade(rows) == 2  # an unsure mark is taken back too
    rows.append(row(5, "d2", grade=None, undoes=2))
    assert latest_standing_grade(rows) == 1
    rows.append(row(6, "d1", grade=None, undoes=1))
    assert latest_standing_grade(rows) is None
    assert latest_standing_grade([]) is None


def test_a_withdrawal_that_stands_hides_what_came_before_it() -> None:
    # d1 graded, then withdrawn (as an import does with --withdraw-missing):
    # its grade no longer stands, so the latest is d2's older one
    rows = [row(1, "d2"), row(2, "d1"), row(3, "d1", grade=None)]
    assert latest_standing_grade(rows) == 1


def test_an_adjudication_is_an_item_of_its_own_kind() -> None:
    # an adjudicator's withdrawn adjudication leaves their annotation to take back
    rows = [row(1, "d1"), row(2, "d1", grade=2, adjudicates=True)]
    rows.append(row(3, "d1", grade=None, adjudicates=True))
    assert latest_standing_grade(rows) == 1


def test_the_latest_event_of_an_item_may_be_undone_an_undo_too() -> None:
    rows = [row(1), row(2, grade=3)]
    assert undo_refusal(2, rows) is None
    rows.append(row(3, undoes=2))
    assert undo_refusal(3, rows) is None  # undoing the undo brings the 3 back


def test_the_latest_standing_event_may_be_undone_after_an_undo() -> None:
    # a grade, then a note (a grade event of its own) taken back: the grade
    # before the note stands and may be taken back in turn
    rows = [row(1), row(2, grade=1), row(3, undoes=2)]
    assert undo_refusal(1, rows) is None


def test_an_event_taken_back_or_judged_again_is_refused() -> None:
    rows = [row(1), row(2, grade=3), row(3, undoes=2)]
    assert undo_refusal(2, rows) == "taken back"
    rows = [row(1), row(2, grade=3)]
    assert undo_refusal(1, rows) == "judged again"
    rows = [row(1), row(2, grade=None, undoes=1)]
    assert undo_refusal(1, rows) == "taken back"


def test_what_an_undo_brings_back() -> None:
    # nothing before, or a withdrawal before: the judgment is withdrawn
    assert Restored(None, False, "human", None) == NOTHING
    assert restored_state(4, None, False, "import:nist", None) == NOTHING
    # a grade keeps its source and is dated from when it was given
    assert restored_state(4, 2, False, "model:x", None) == Restored(2, False, "model:x", 4)
    assert restored_state(4, None, True, "human", None) == Restored(None, True, "human", 4)
    # a grade an undo brought back is dated from when it was first given
    assert restored_state(9, 2, False, "human", 4) == Restored(2, False, "human", 4)
