"""Sign-in tokens and failed sign-ins as stored: the rows, nothing more.

What a token is and how it is hashed is `judgepool.core.team.sign_in_tokens`;
when a sign-in is refused and how often one may try is
`judgepool.services.sign_in`. Writes take the caller's write transaction.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Final

from judgepool.store.workspace import now


@dataclass(frozen=True)
class StoredToken:
    """One annotator's token hash, and whether it was revoked."""

    name: str
    salt: bytes
    hash: bytes
    created_at: str
    revoked_at: str | None


@dataclass(frozen=True)
class SignInFailure:
    """One failed sign-in, as logged."""

    name: str
    at_text: str
    reason: str


def stored_token(conn: sqlite3.Connection, name: str) -> StoredToken | None:
    """The token row of ``name``, revoked or not; None when it never had one."""
    row = conn.execute(
        "SELECT name, salt, hash, created_at, revoked_at FROM sign_in_tokens WHERE name = ?",
        (name,),
    ).fetchone()
    return None if row is None else StoredToken(*row)


def put_token(conn: sqlite3.Connection, name: str, salt: bytes, hashed: bytes) -> None:
    """Store ``name``'s token hash, replacing a revoked one."""
    conn.execute(
        "INSERT INTO sign_in_tokens (name, salt, hash, created_at, revoked_at) "
        "VALUES (?, ?, ?, ?, NULL) ON CONFLICT(name) DO UPDATE SET salt = excluded.salt, "
        "hash = excluded.hash, created_at = excluded.created_at, revoked_at = NULL",
        (name, salt, hashed, now()),
    )


def revoke_token(conn: sqlite3.Connection, name: str) -> bool:
    """Mark ``name``'s token revoked; False when it had no active token."""
    done = conn.execute(
        "UPDATE sign_in_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
        (now(), name),
    )
    return done.rowcount > 0


# What a sign-in refused while the limit held is logged as: listed, never
# counted, so a lock-out ends when the window moves past the failures that
# caused it (as the refusal says), however often someone tries meanwhile.
RATE_LIMITED: Final = "rate limited"


def log_failure(conn: sqlite3.Connection, name: str, at: float, reason: str) -> None:
    """Log one failed sign-in for ``name`` at ``at`` (seconds since the epoch)."""
    conn.execute(
        "INSERT INTO sign_in_failures (name, at, at_text, reason) VALUES (?, ?, ?, ?)",
        (name, at, now(), reason),
    )


@dataclass(frozen=True)
class WindowFailures:
    """The failed sign-ins the limit counts since some time: for one name, and
    for all names, each with the time of the oldest (None when there is none)."""

    of_name: int
    oldest_of_name: float | None
    of_all: int
    oldest_of_all: float | None


def window_failures(conn: sqlite3.Connection, since: float, name: str) -> WindowFailures:
    """What the limit counts since ``since`` (a refusal while limited is not counted)."""
    row = conn.execute(
        "SELECT COUNT(CASE WHEN name = ? THEN 1 END), MIN(CASE WHEN name = ? THEN at END), "
        "COUNT(*), MIN(at) FROM sign_in_failures WHERE at >= ? AND reason != ?",
        (name, name, since, RATE_LIMITED),
    ).fetchone()
    return WindowFailures(int(row[0]), row[1], int(row[2]), row[3])


def prune_failures(conn: sqlite3.Connection, keep_latest: int, counted_since: float) -> int:
    """Delete the log's older rows: kept are the latest ``keep_latest`` (what
    ``annotators WS sign-ins`` lists) and every failure the limit still counts
    (since ``counted_since``). How many rows went."""
    done = conn.execute(
        "DELETE FROM sign_in_failures WHERE id <= "
        "(SELECT id FROM sign_in_failures ORDER BY id DESC LIMIT 1 OFFSET ?) "
        "AND NOT (at >= ? AND reason != ?)",
        (keep_latest, counted_since, RATE_LIMITED),
    )
    return done.rowcount


def recent_failures(conn: sqlite3.Connection, limit: int) -> list[SignInFailure]:
    """The latest ``limit`` failed sign-ins, newest first."""
    rows = conn.execute(
        "SELECT name, at_text, reason FROM sign_in_failures ORDER BY id DESC LIMIT ?", (limit,)
    )
    return [SignInFailure(*row) for row in rows]


def active_token_names(conn: sqlite3.Connection) -> list[str]:
    """The names whose token is not revoked, sorted."""
    rows = conn.execute(
        "SELECT name FROM sign_in_tokens WHERE revoked_at IS NULL ORDER BY name"
    ).fetchall()
    return [row[0] for row in rows]
