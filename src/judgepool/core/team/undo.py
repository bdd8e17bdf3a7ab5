"""The undo rules: which of an annotator's events an undo may take back, and
what taking one back brings back, on plain ledger rows (the store reads them
and appends the undo inside one transaction, `judgepool.store.ledger_undo`).

An undo is an event of its own (``undoes``: the event it takes back); the
ledger keeps both. An event *stands* while it is neither an undo nor taken
back by one. Of one item and one kind (annotations, or adjudications), an
annotator may undo their latest event there (an undo too: undoing it brings
back what it took back), or, when only undos and what they took back came
after it, their latest event there that stands (after taking back a note,
the grade before it). Anything older would silently discard what came after
it, and is refused.

Undoing restores the state before the event taken back: the annotator's
grade or unsure mark before it, or nothing. A grade brought back keeps its
source (a model's grade is still the model's, never silently a person's) and
is dated from when it was first given, so undoing moves nobody's grade later
in time (the ``latest`` consensus rule reads that date).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple


class UndoRow(NamedTuple):
    """One event as the undo rules read it: a tuple as SQLite gives it (its
    flags 0 or 1), since an annotator may hold 100 k imported events and the
    rules read them all."""

    id: int
    query_id: str
    doc_id: str
    grade: int | None
    unsure: int  # 1: an unsure mark (grade None)
    undoes: int | None  # the event this undo takes back; None: not an undo
    adjudicates: int  # 1: an adjudication, 0: an annotation


def taken_back(undoes: Iterable[int | None]) -> frozenset[int]:
    """The events that undos took back, from each event's ``undoes``."""
    return frozenset(event for event in undoes if event is not None)


def standing(rows: Sequence[UndoRow]) -> Iterator[UndoRow]:
    """The rows (in ledger order) that stand, latest first."""
    undone = taken_back(row.undoes for row in rows)
    return (row for row in reversed(rows) if row.undoes is None and row.id not in undone)


def latest_standing_grade(rows: Sequence[UndoRow]) -> int | None:
    """The ID of the latest grade or unsure mark that still stands among one
    annotator's rows (in ledger order), on an item where nothing of theirs
    that stands came after it; None: nothing is left to take back. Undoing
    again walks further back through their grades, item by item, as a stack."""
    # items (and kinds) where a later event that stands was a withdrawal:
    # what came before it there no longer stands
    withdrawn: set[tuple[str, str, int]] = set()
    for row in standing(rows):
        item = (row.query_id, row.doc_id, row.adjudicates)
        if item in withdrawn:
            continue
        if row.grade is not None or row.unsure:
            return row.id
        withdrawn.add(item)
    return None


Refusal = Literal["taken back", "judged again"]


def undo_refusal(event_id: int, item_rows: Sequence[UndoRow]) -> Refusal | None:
    """Why the event may not be undone (None: it may), from the annotator's
    rows of its item and kind in ledger order: ``taken back`` when an undo
    took it back already, ``judged again`` when an event that stands came
    after it."""
    latest = item_rows[-1].id if item_rows else None
    if latest == event_id:
        return None
    latest_standing = next(standing(item_rows), None)
    if latest_standing is None or latest_standing.id < event_id:
        return "taken back"
    if latest_standing.id != event_id:
        return "judged again"
    return None


@dataclass(frozen=True)
class Restored:
    """The state an undo brings back: a grade, unsure (grade None), or nothing
    (grade None, not unsure); with its source and the event it is dated from
    (None: nothing is brought back)."""

    grade: int | None
    unsure: bool
    source: str
    restored_from: int | None


# Nothing brought back: the undo withdraws the judgment, as a person's act.
NOTHING: Final = Restored(None, False, "human", None)


def restored_state(
    before_id: int,
    grade: int | None,
    unsure: bool,
    source: str,
    restored_from: int | None,
) -> Restored:
    """What undoing brings back of the event before the one taken back (its
    ID, grade, unsure mark, source and, if it was itself an undo's, the event
    its grade is dated from)."""
    if grade is None and not unsure:
        return NOTHING
    return Restored(grade, unsure, source, before_id if restored_from is None else restored_from)
