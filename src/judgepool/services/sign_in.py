"""Sign-in for served sessions (`judgepool serve`): tokens issued, revoked and checked.

`add_annotator` issues a token (shown once; only its salted hash is kept),
`revoke` ends it, `sign_in` checks a name and token typed in a browser.
Failed sign-ins are logged in the workspace and limited: at most
`MAX_FAILURES_PER_NAME` for one name and `MAX_FAILURES_ALL` for all names
together in any `WINDOW_SECONDS`; past that every sign-in of that name (or
every sign-in) is refused, even with the right token, until the window has
moved on. The log is in the workspace because each browser session is a
process of its own: a limit kept in memory would reset with every new tab.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from judgepool.core import sign_in_tokens
from judgepool.core.errors import PolicyError
from judgepool.core.roles import DEFAULT_ROLE
from judgepool.display import quoted
from judgepool.services.entry_checks import check_annotator_name, storable
from judgepool.services.roles import parse_role
from judgepool.store import ledger
from judgepool.store import sign_in as stored
from judgepool.store.sign_in import SignInFailure
from judgepool.store.workspace import Workspace

WINDOW_SECONDS: Final = 300.0
MAX_FAILURES_PER_NAME: Final = 5
MAX_FAILURES_ALL: Final = 30
# The log lines of refused sign-ins (also kept in the workspace).
log = logging.getLogger("judgepool.sign_in")
# A salt for the hash computed when a name has no token, so an unknown name
# takes as long to refuse as a wrong token.
_NO_SALT: Final = bytes(sign_in_tokens.SALT_BYTES)


@dataclass(frozen=True)
class SignInResult:
    """The outcome of one sign-in: ``name`` when it succeeded, else why not."""

    name: str | None
    refusal: str | None = None
    retry_after: float | None = None

    @property
    def signed_in(self) -> bool:
        return self.name is not None


def add_annotator(ws: Workspace, name: str, *, role: str = DEFAULT_ROLE) -> str:
    """Add ``name`` as an annotator in ``role`` who may sign in, and return
    their token.

    The token is returned once and never stored (its salted hash is). A name
    with an active token is refused (revoke it first), so a token is never
    replaced by mistake; a revoked one gets a new token."""
    check_annotator_name(name)
    chosen = parse_role(role)
    token = sign_in_tokens.new_token()
    salt = sign_in_tokens.new_salt()
    hashed = sign_in_tokens.token_hash(token, salt)
    with ws.write() as conn:
        current = stored.stored_token(conn, name)
        if current is not None and current.revoked_at is None:
            raise PolicyError(
                f"{quoted(name)} already has a sign-in token (since {current.created_at}); "
                f"to give them a new one: judgepool annotators WS revoke {quoted(name)}, "
                "then add them again"
            )
        ledger.set_role(conn, name, chosen)
        stored.put_token(conn, name, salt, hashed)
    return token


def revoke(ws: Workspace, name: str) -> None:
    """End ``name``'s sign-in token: sessions can no longer sign in as them."""
    with ws.write() as conn:
        if not stored.revoke_token(conn, name):
            raise PolicyError(
                f"{quoted(name)} has no active sign-in token; "
                "add one with: judgepool annotators WS add NAME"
            )


def who_can_sign_in(ws: Workspace) -> list[str]:
    """The annotators with an active sign-in token, sorted."""
    return stored.active_token_names(ws.conn)


def recent_failures(ws: Workspace, limit: int = 50) -> list[SignInFailure]:
    """The latest failed sign-ins, newest first."""
    return stored.recent_failures(ws.conn, limit)


def sign_in(
    ws: Workspace, name: str, token: str, *, clock: Callable[[], float] = time.time
) -> SignInResult:
    """Check ``name`` and ``token``; log and count a failure. Never raises for
    a wrong name or token: the result says why it was refused."""
    at = clock()
    since = at - WINDOW_SECONDS
    conn = ws.conn
    limited = _rate_limited(ws, name if storable(name) else "", since, at)
    if limited is not None:
        _log(ws, name, at, "rate limited")
        return limited
    found = stored.stored_token(conn, name) if storable(name) else None
    if found is None or found.revoked_at is not None:
        # the same work as a wrong token, so the time taken does not tell names apart
        sign_in_tokens.token_matches(token, _NO_SALT, bytes(32))
        reason = "revoked token" if found is not None else "no such annotator with a token"
    elif sign_in_tokens.token_matches(token, found.salt, found.hash):
        return SignInResult(name)
    else:
        reason = "wrong token"
    _log(ws, name, at, reason)
    # the person signing in is not told which of name or token was wrong
    return SignInResult(None, "that name and token do not match; check both and try again")


def _rate_limited(ws: Workspace, name: str, since: float, at: float) -> SignInResult | None:
    conn = ws.conn
    for who, limit in ((name, MAX_FAILURES_PER_NAME), (None, MAX_FAILURES_ALL)):
        if stored.failures_since(conn, since, who) < limit:
            continue
        oldest = stored.oldest_failure_since(conn, since, who) or at
        wait = max(1.0, oldest + WINDOW_SECONDS - at)
        whom = f"for {quoted(name)}" if who is not None else "on this workspace"
        return SignInResult(
            None,
            f"too many failed sign-ins {whom}; try again in {wait:.0f} s",
            retry_after=wait,
        )
    return None


def _log(ws: Workspace, name: str, at: float, reason: str) -> None:
    shown = name if storable(name) else name.encode("utf-8", "backslashreplace").decode()
    log.warning("failed sign-in for %r: %s", shown, reason)
    with ws.write() as conn:
        stored.log_failure(conn, shown, at, reason)
