"""What each screen and dialog of the app needs of a role (`judgepool.core.team.roles`),
and the app's guard that holds every screen to it (`RoleGuard`).

Every screen or dialog class of the app states what it needs as a class
attribute ``REACH``; the app checks it for every screen it is asked to show
(`JudgepoolApp.push_screen` and ``switch_screen``), whatever key, action or
palette command asked. A screen class that states nothing needs a lead's
reach: a new screen is closed to annotators until it says otherwise, so a
forgotten declaration can never open a view of runs or other people's grades.
Textual's own command palette is the one screen from outside the app that an
annotator opens (its commands are the app's, filtered by the same rule).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

from textual.await_complete import AwaitComplete
from textual.command import CommandPalette
from textual.screen import Screen

from judgepool.core.team.roles import WHO_REACHES, Reach, Role, can_reach
from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.roles import role_of
from judgepool.services.workspace import StorageError, Workspace

# What a screen that states nothing needs.
UNDECLARED: Final[Reach] = "review"
# The app's named screens (`JudgepoolApp.SCREENS` and "grade"), checked
# before one is created: a refused screen is never even built.
NAMED: Final[dict[str, Reach]] = {
    "grade": "grade",
    "help": "grade",
    "audit": "review",
    "scores": "review",
    "adjudicate": "adjudicate",
    "agreement": "team",
}


def reach_of(screen: Screen[Any] | type[Screen[Any]] | str) -> Reach:
    """What showing ``screen`` (an instance, its class or an app screen's name) needs."""
    if isinstance(screen, str):
        return NAMED.get(screen, UNDECLARED)
    kind = screen if isinstance(screen, type) else type(screen)
    if issubclass(kind, CommandPalette):
        return "grade"
    declared: Reach | None = getattr(kind, "REACH", None)
    return declared if declared is not None else UNDECLARED


def refused_reach(reach: Reach, role: str) -> str:
    """Why a person in ``role`` is not shown what needs ``reach``."""
    return (
        f"Only {WHO_REACHES[reach]} open this; your role in this workspace is {role} "
        "(a lead changes roles with: judgepool annotators WS role NAME ROLE)."
    )


class RoleGuard:
    """Who the app's user is in the workspace, and what they may open.

    ``role`` is read when the app opens (or a served session signs in) and
    again by `reaches` before every screen is shown, so a role changed by a
    lead meanwhile takes effect at the next screen. Until ``signed_in``, a
    served session reaches nothing.
    """

    def __init__(self, ws: Workspace, annotator: str, *, served: bool) -> None:
        self._ws = ws
        self.served = served
        self.annotator = annotator
        self.signed_in = not served
        self.role: Role = role_of(ws, annotator) if not served else "annotator"

    def sign_in(self, name: str) -> None:
        """A served session signed in as ``name``: its role from now on."""
        self.annotator = name
        self.role = role_of(self._ws, name, served=True)
        self.signed_in = True

    def allows(self, reach: Reach) -> bool:
        """Whether the role, as last read, may open what needs ``reach``."""
        return self.signed_in and can_reach(self.role, reach)

    def reaches(self, reach: Reach) -> bool:
        """Whether the role, read again now, may open what needs ``reach``."""
        if not self.signed_in:
            return False
        # a file that cannot be read now leaves the role as last read
        with contextlib.suppress(JudgepoolError, StorageError):
            self.role = role_of(self._ws, self.annotator, served=self.served)
        return can_reach(self.role, reach)

    def refusal(self, reach: Reach) -> str:
        return refused_reach(reach, self.role)


def nothing_shown(wait_for_dismiss: bool) -> Any:
    """What a refused ``push_screen`` returns: an awaitable that does nothing (or,
    when the caller waits for the screen's result, a future already holding None)."""
    if wait_for_dismiss:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done
    return AwaitComplete.nothing()  # type: ignore[no-untyped-call]
