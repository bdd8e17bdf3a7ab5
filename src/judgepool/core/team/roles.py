"""Roles in a grading team, and what each may reach.

- ``annotator`` (the default): grades their own queue, sees their own
  progress, notes and unsure items, and the guidelines; never another
  person's or a model's grade or note, a run, a rank or a score.
- ``adjudicator``: an annotator who also settles disagreements, on a screen
  that shows every grade of the item with its annotator.
- ``lead``: everything: audit, scores, pairs, side by side, agreement,
  assignments, settings and the workspace's default contract.

A workspace where no role was ever set is one person's: its local user is
the lead, as before roles existed, so solo use and the demo stay one command.
Once any role is set, anyone without one is an annotator; a served session
(``judgepool serve``) without a role is always an annotator.

This module is the rule alone (plain values, no storage), so the app, the
command line and the tests ask the same question the same way.
"""

from __future__ import annotations

from typing import Final, Literal

Role = Literal["annotator", "adjudicator", "lead"]
ROLES: Final[tuple[Role, ...]] = ("annotator", "adjudicator", "lead")
DEFAULT_ROLE: Final[Role] = "annotator"

# What a screen, dialog or act needs. "grade": the grade screen and what it
# opens (notes, going to a query, search, the settle order); "own": one's own
# review list and the guidelines; "adjudicate": the adjudication screen;
# "review": audit, scores, pairs, side by side, drill-down, every run's holes;
# "team": agreement and assignments; "settings": the workspace's default
# contract and settings.
Reach = Literal["grade", "own", "adjudicate", "review", "team", "settings"]
REACHES: Final[tuple[Reach, ...]] = ("grade", "own", "adjudicate", "review", "team", "settings")

_ANNOTATOR: Final[frozenset[Reach]] = frozenset({"grade", "own"})
CAN_REACH: Final[dict[Role, frozenset[Reach]]] = {
    "annotator": _ANNOTATOR,
    "adjudicator": _ANNOTATOR | {"adjudicate"},
    "lead": frozenset(REACHES),
}

# Who the role names, in the words of the refusal an app shows.
WHO_REACHES: Final[dict[Reach, str]] = {
    "grade": "every role",
    "own": "every role",
    "adjudicate": "adjudicators and leads",
    "review": "leads",
    "team": "leads",
    "settings": "leads",
}


def check_role(value: str) -> Role:
    """``value`` as a role; ValueError naming the roles otherwise."""
    for role in ROLES:
        if value == role:
            return role
    raise ValueError(f"unknown role {value!r}; choose one of {', '.join(ROLES)}")


def effective_role(stored: str | None, *, any_role_set: bool, served: bool) -> Role:
    """The role a person acts in: the one stored for them; else the lead in a
    workspace where no role was ever set, used from a local terminal; else an
    annotator (always, for a served session)."""
    if stored is not None:
        return check_role(stored)
    if not any_role_set and not served:
        return "lead"
    return DEFAULT_ROLE


def can_reach(role: Role, reach: Reach) -> bool:
    """Whether ``role`` may open what needs ``reach``."""
    return reach in CAN_REACH[role]
