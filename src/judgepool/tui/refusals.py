"""A refusal as the app words it: what is refused, then the app's way out.

The policy refusals' messages end with the command line's way out (``--unjudged
zero``, ``--duplicates first``); in the app the way out is the contract dialog
(key ``c`` on the audit and scores screens) and its policies, and grading the
documents. Other errors are shown as they are.
"""

from __future__ import annotations

from judgepool.core.errors import DuplicatesRejected, UnjudgedRejected

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
