"""Sign-in for served sessions (`judgepool serve`): tokens issued, revoked and checked.

`add_annotator` issues a token (shown once; only its salted hash is kept),
`revoke` ends it, `sign_in` checks a name and token typed in a browser.
Failed sign-ins are logged in the workspace and limited: at most
`MAX_FAILURES_PER_NAME` for one name and `MAX_FAILURES_ALL` for all names
together in any `WINDOW_SECONDS`; past that every sign-in of that name (or
every sign-in) is refused, even with the right token, until the window has
moved on. The log is in the workspace because each browser session is a
process of its own: a limit kept in memory would reset with every new tab.

Counting and recording are one write transaction (`Workspace.write`, BEGIN
IMMEDIATE): eight sessions failing at the same instant are decided one after
another, so at most `MAX_FAILURES_PER_NAME` of them are checked and the rest
refused as rate limited. The token is checked (scrypt, tens of milliseconds)
before the transaction, so the write lock is not held meanwhile; inside it
the limit decides, and a token revoked in between does not sign in. A
refusal while limited is logged but not counted, and the log is pruned as it
is written: kept are the latest `KEPT_FAILURES` rows (what ``annotators WS
sign-ins`` lists) and every failure of the window (what the limit counts; at
most `MAX_FAILURES_ALL`, since the next is refused before it is checked).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from judgepool.core.team import sign_in_tokens
from judgepool.core.team.roles import DEFAULT_ROLE
from judgepool.core.terms.errors import PolicyError
from judgepool.display import quoted
from judgepool.services.entry_checks import annotator_name, known_annotator_name, storable
from judgepool.services.roles import parse_role
from judgepool.store import ledger
from judgepool.store import sign_in as stored
from judgepool.store.sign_in import SignInFailure, WindowFailures
from judgepool.store.workspace import Workspace

WINDOW_SECONDS: Final = 300.0
MAX_FAILURES_PER_NAME: Final = 5
MAX_FAILURES_ALL: Final = 30
# How many of the latest failed sign-ins the log keeps (older ones outside
# the window are pruned): `annotators WS sign-ins --limit` lists up to this.
KEPT_FAILURES: Final = 1000
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
    name = annotator_name(ws, name)
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
    if storable(name):
        # the name as the workspace holds it (typed in another normal form, too)
        name = known_annotator_name(ws, name) or unicodedata.normalize("NFC", name)
    key = name if storable(name) else ""  # what the limit counts under
    found = stored.stored_token(ws.conn, key) if key else None
    matched = False
    if found is None or found.revoked_at is not None:
        # the same work as a wrong token, so the time taken does not tell names apart
        sign_in_tokens.token_matches(token, _NO_SALT, bytes(32))
        reason = "revoked token" if found is not None else "no such annotator with a token"
    else:
        matched = sign_in_tokens.token_matches(token, found.salt, found.hash)
        reason = "wrong token"
    shown = name if key else name.encode("utf-8", "backslashreplace").decode()
    with ws.write() as conn:
        at = clock()
        limited = _rate_limited(stored.window_failures(conn, at - WINDOW_SECONDS, key), key, at)
        if limited is None and matched and stored.stored_token(conn, key) == found:
            return SignInResult(name)
        if limited is None and matched:
            reason = "revoked token"  # revoked or replaced while it was checked
        logged = stored.RATE_LIMITED if limited is not None else reason
        stored.log_failure(conn, shown, at, logged)
        stored.prune_failures(conn, KEPT_FAILURES, at - WINDOW_SECONDS)
    log.warning("failed sign-in for %r: %s", shown, logged)
    if limited is not None:
        return limited
    # the person signing in is not told which of name or token was wrong
    return SignInResult(None, "that name and token do not match; check both and try again")


def _rate_limited(failures: WindowFailures, name: str, at: float) -> SignInResult | None:
    """The refusal when ``name`` (or the whole workspace) has failed too often
    in the window before ``at``, or None."""
    for count, oldest, limit, whom in (
        (failures.of_name, failures.oldest_of_name, MAX_FAILURES_PER_NAME, f"for {quoted(name)}"),
        (failures.of_all, failures.oldest_of_all, MAX_FAILURES_ALL, "on this workspace"),
    ):
        if count < limit:
            continue
        wait = max(1.0, (oldest or at) + WINDOW_SECONDS - at)
        return SignInResult(
            None,
            f"too many failed sign-ins {whom}; try again in {wait:.0f} s",
            retry_after=wait,
        )
    return None
