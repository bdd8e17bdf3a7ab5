"""Taking back an annotator's latest grade from the command line
(``judgepool undo WS --annotator A``): an event is appended that restores the
state before it, as the app's undo does; the ledger keeps both."""

from __future__ import annotations

from judgepool.core.errors import InputError
from judgepool.display import quoted
from judgepool.services.entry_checks import check_known_annotator, check_name
from judgepool.store.ledger import JudgmentEvent
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
