"""The scores a lead will ask for, made ready while the grade screen is shown.

The scores screen's first board reads every judgment, imports the scoring
engine and scores every run: 0.7 s of one core on DL20's five runs, all of it
after ``s`` when nothing was done ahead. Someone who may open the scores
screen (`judgepool.tui.reach`: a lead, or anyone outside a team) has that done
in a thread worker once the grade screen is drawn: the app's one
`judgepool.services.live.LiveScores` scores every run under the app's
contract, and the scores screen asks the same object for its board, which
then takes in only the grades made since (`LiveScores.board` waits for a
board in progress rather than making a second).

Nothing is stored and nothing is shown: a refusal (holes under
``unjudged=reject``, a contract the runs cannot be scored under) is left for
the scores screen to say when it is opened. Workspaces whose runs hold more
than `AHEAD_LINES` lines in all are not scored ahead: scoring them takes
seconds of the interpreter the grade screen shares, and their first board
says its progress anyway.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Final

from textual.app import App

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.live import LiveScores, stored_run_lines
from judgepool.services.workspace import Workspace
from judgepool.tui.readers import ReadConnections

# Run lines in all up to which the scores are made ready ahead (DL20's five
# runs hold 75,600; MS MARCO dev's runs of a million lines each are past it).
AHEAD_LINES: Final = 1_000_000
GROUP: Final = "scores-ahead"


def worth_scoring_ahead(ws: Workspace, limit: int = AHEAD_LINES) -> bool:
    """Whether the workspace has runs, and at most ``limit`` lines in all."""
    lines = stored_run_lines(ws)
    return lines is not None and lines <= limit


def score_ahead(
    app: App[Any], readers: ReadConnections, live: LiveScores, contract: Contract
) -> None:
    """Have ``live`` score every run under ``contract`` in a thread worker."""
    app.run_worker(
        partial(_board, readers, live, contract),
        thread=True,
        group=GROUP,
        exclusive=True,
        exit_on_error=False,
    )


def _board(readers: ReadConnections, live: LiveScores, contract: Contract) -> None:
    try:
        with readers.lease() as ws:
            live.board(ws, contract)
    except JudgepoolError:
        pass  # said by the scores screen, which asks again when it is opened
