"""Scores computed in the app, stored as evaluations like ``judgepool score
--workspace`` stores them (`judgepool.services.evaluations`), when the lead
asks (``S`` on the scores screen).

The scores screen follows every grade, but a live rescore is not a result
anyone asked to keep: the app stores nothing unasked. Asked, it stores each
run's score once per contract, judgments and run (its fingerprint, under the
consensus rule): asking again with nothing changed stores nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.evaluations import store_evaluations
from judgepool.store.evaluations import stored_fingerprints
from judgepool.store.workspace import StorageError, Workspace, WorkspaceReadOnly

if TYPE_CHECKING:
    from judgepool.services.review import Scoreboard


@dataclass(frozen=True)
class StoredScores:
    """What asking to store a board did: how many runs' scores were stored,
    how many were stored already, or why none was (a read-only workspace, a
    busy file)."""

    stored: int
    already: int
    refused: str | None = None

    @property
    def severity(self) -> Literal["information", "warning"]:
        return "information" if self.refused is None else "warning"

    def line(self) -> str:
        """What was done, in one line for the lead."""
        if self.refused is not None:
            return f"scores not stored: {self.refused}"
        runs = "run's score" if self.stored == 1 else "runs' scores"
        already = f"; {self.already} stored already" if self.already else ""
        return f"{self.stored} {runs} stored as evaluations{already}"


def store_scoreboard(ws: Workspace, board: Scoreboard) -> StoredScores:
    """Store each run the board scored that no stored evaluation holds yet
    (the same run, consensus rule and fingerprint)."""
    scored = [score.scored for score in board.runs if score.scored is not None]
    try:
        if ws.read_only:
            raise WorkspaceReadOnly(ws.path)
        rule = board.rule if board.rule is not None else ws.default_consensus()
        held = stored_fingerprints(ws, rule)
        new = [run for run in scored if (run.run, run.fingerprint) not in held]
        refused = store_evaluations(ws, new, ["stored"] * len(new), rule)
        if refused is not None:
            raise refused
    except (JudgepoolError, StorageError) as exc:
        return StoredScores(0, 0, str(exc))
    return StoredScores(len(new), len(scored) - len(new))
