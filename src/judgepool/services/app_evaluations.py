"""Scores computed in the app, stored as evaluations like ``judgepool score
--workspace`` stores them (`judgepool.services.evaluations`).

The scores screen recomputes after every grade while it is shown; a run whose
score has not changed (the same fingerprint: contract, judgments and run) is
not stored again, so the list of evaluations grows only with new numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgepool.services.evaluations import store_evaluations
from judgepool.store.evaluations import list_stored
from judgepool.store.workspace import Workspace, WorkspaceReadOnly

if TYPE_CHECKING:
    from judgepool.services.review import Scoreboard


def store_scoreboard(ws: Workspace, board: Scoreboard) -> tuple[int, WorkspaceReadOnly | None]:
    """Store each run the board scored whose latest stored evaluation has another
    fingerprint; (how many were stored, the refusal of a read-only workspace)."""
    if ws.read_only:
        return 0, WorkspaceReadOnly(ws.path)
    rule = board.rule if board.rule is not None else ws.default_consensus()
    latest = {
        stored.run_name: stored.fingerprint
        for stored in list_stored(ws)
        if stored.run_name is not None and stored.consensus == rule
    }
    new = [
        score.scored
        for score in board.runs
        if score.scored is not None and latest.get(score.run) != score.scored.fingerprint
    ]
    refused = store_evaluations(ws, new, ["stored"] * len(new), rule)
    return (0 if refused else len(new)), refused
