"""Taking back an annotator's latest grade from the command line
(``judgepool undo WS --annotator A``): an event is appended that restores the
state before it, as the app's undo does; the ledger keeps both.
`brought_back` is the event whose grade the undo restored, so that what is
said of it names its own time (a note added in the app is the grade again
with the note: taking it back leaves the grade as it was)."""

from __future__ import annotations

from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.entry_checks import check_known_annotator, check_name
from judgepool.store.ledger import JudgmentEvent as JudgmentEvent  # named by the command line
from judgepool.store.ledger import get_event
from judgepool.store.ledger_undo import undo_latest
from judgepool.store.workspace import Workspace


def undo_last_grade(ws: Workspace, annotator: str) -> tuple[JudgmentEvent, JudgmentEvent]:
    """Take back ``annotator``'s latest grade (or unsure mark) that still stands;
    returns (the event taken back, the event that took it back). Undoing again
    goes further back. Refused when they have nothing left to take back."""
    check_name("annotator", annotator)
    check_known_annotator(ws, annotator)
    done = undo_latest(ws, annotator)
    if done is None:
        raise InputError(
            f"annotator {quoted(annotator)} has no grade left to take back", str(ws.path)
        )
    return done


def brought_back(ws: Workspace, undo: JudgmentEvent) -> JudgmentEvent | None:
    """The event whose grade (or unsure mark) ``undo`` restored, dated as it
    was given; None when it restored nothing."""
    return None if undo.restored_from is None else get_event(ws, undo.restored_from)
