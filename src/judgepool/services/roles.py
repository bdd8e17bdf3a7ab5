"""Roles as the workspace records them (`judgepool.core.team.roles` says what each
may reach): who acts in which role, and changing a role.

``judgepool annotators WS add NAME --role R`` and ``annotators WS role NAME
R`` set them; the app asks `role_of` when it opens, and again whenever a
screen is opened, so a changed role takes effect at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgepool.core.team.roles import ROLES, Role, check_role, effective_role
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.entry_checks import annotator_name
from judgepool.store import ledger
from judgepool.store.workspace import Workspace


def parse_role(value: str) -> Role:
    """``value`` as a role, or the refusal naming the roles."""
    try:
        return check_role(value)
    except ValueError:
        raise InputError(
            f"unknown role {quoted(value)}; choose one of {', '.join(ROLES)}"
        ) from None


def role_of(ws: Workspace, name: str, *, served: bool = False) -> Role:
    """The role ``name`` acts in on ``ws`` (``served``: in a session of
    ``judgepool serve``, where no role set means annotator)."""
    conn = ws.conn
    return effective_role(
        ledger.stored_role(conn, name), any_role_set=ledger.any_role_set(conn), served=served
    )


@dataclass(frozen=True)
class RoleChange:
    """What `set_role` did: ``before`` None when no role was set."""

    name: str
    before: str | None
    after: Role


def set_role(ws: Workspace, name: str, role: str) -> RoleChange:
    """Record ``role`` for ``name`` (added as an annotator if new), in one
    transaction."""
    name = annotator_name(ws, name)
    chosen = parse_role(role)
    with ws.write() as conn:
        before = ledger.stored_role(conn, name)
        ledger.set_role(conn, name, chosen)
    return RoleChange(name, before, chosen)


def roles_in_use(ws: Workspace) -> bool:
    """Whether any role was set in the workspace (else its local user is the lead)."""
    return ledger.any_role_set(ws.conn)
