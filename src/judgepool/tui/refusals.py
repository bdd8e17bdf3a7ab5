"""A refusal as the app words it: what is refused, then the app's way out.

The policy refusals' messages end with the command line's way out (``--unjudged
zero``, ``--duplicates first``); in the app the way out is the contract dialog
(key ``c`` on the audit and scores screens) and its policies, and grading the
documents. Other errors are shown as they are.

`refused_runs_line` says in one line why the scores screen shows runs as
refused under ``unjudged=reject`` (a new workspace's runs all are: they have
holes), with the screen's keys out of it: ``h`` grade the holes (``D``
adjudicate, when the holes are unresolved disagreements), ``z`` or ``x``
score this session under ``unjudged=zero`` or ``condense``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from judgepool.core.terms.errors import DuplicatesRejected, UnjudgedRejected

if TYPE_CHECKING:
    from judgepool.services.review import Scoreboard

UNJUDGED_WAY_OUT = (
    "Press c to change the contract's unjudged policy: zero (gain 0 at its position, "
    "as trec_eval) or condense (remove it, as trec_eval -J); or grade these documents "
    "(the audit screen, key a, sends them to grading)."
)
DISPUTED_WAY_OUT = (
    "Adjudicate the disagreements (an adjudicator's grade settles each), or press c "
    "to change the contract's unjudged policy to zero or condense."
)
DUPLICATES_WAY_OUT = (
    "Press c to change the contract's duplicates policy to first: the first copy (in "
    "the ties order) is kept and the rest counted."
)


def app_refusal(error: BaseException) -> str:
    """The message of ``error`` with the app's way out instead of the command line's."""
    if isinstance(error, UnjudgedRejected):
        return f"{error.body}\n{DISPUTED_WAY_OUT if error.disputed else UNJUDGED_WAY_OUT}"
    if isinstance(error, DuplicatesRejected):
        return f"{error.body}\n{DUPLICATES_WAY_OUT}"
    return str(error)


def unjudged_refusals(board: Scoreboard) -> list[tuple[str, UnjudgedRejected]]:
    """(run, refusal) of every run ``unjudged=reject`` refused, in the board's order."""
    return [
        (score.run, score.error)
        for score in board.runs
        if isinstance(score.error, UnjudgedRejected)
    ]


def refused_runs_line(board: Scoreboard) -> Text | None:
    """Why runs are refused and the keys out of it, in one line (at most 78
    columns: it fits an 80-column terminal); None when no run has holes
    refused under ``unjudged=reject``."""
    refused = unjudged_refusals(board)
    if not refused:
        return None
    only_disputed = all(error.disputed == len(error.entries) for _, error in refused)
    line = Text(f"{len(refused)} refused: holes under unjudged=reject", style="bold red")
    keys = (
        ("D" if only_disputed else "h", "adjudicate" if only_disputed else "grade them"),
        ("z", "zero"),
        ("x", "condense"),
    )
    for key, what in keys:
        line.append(" · ", style="dim")
        line.append(key, style="bold reverse")
        line.append(f" {what}")
    return line
