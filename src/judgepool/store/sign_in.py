"""Sign-in tokens and failed sign-ins as stored: the rows, nothing more.

What a token is and how it is hashed is `judgepool.core.sign_in_tokens`;
when a sign-in is refused and how often one may try is
`judgepool.services.sign_in`. Writes take the caller's write transaction.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

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


def log_failure(conn: sqlite3.Connection, name: str, at: float, reason: str) -> None:
    """Log one failed sign-in for ``name`` at ``at`` (seconds since the epoch)."""
    conn.execute(
        "INSERT INTO sign_in_failures (name, at, at_text, reason) VALUES (?, ?, ?, ?)",
        (name, at, now(), reason),
    )


def failures_since(conn: sqlite3.Connection, since: float, name: str | None = None) -> int:
    """How many sign-ins failed since ``since``, for ``name`` or for any name."""
    if name is None:
        row = conn.execute("SELECT COUNT(*) FROM sign_in_failures WHERE at >= ?", (since,))
    else:
        row = conn.execute(
            "SELECT COUNT(*) FROM sign_in_failures WHERE at >= ? AND name = ?", (since, name)
        )
    return int(row.fetchone()[0])


def oldest_failure_since(
    conn: sqlite3.Connection, since: float, name: str | None = None
) -> float | None:
    """The time of the oldest failure since ``since`` (for ``name``, or any)."""
    if name is None:
        row = conn.execute("SELECT MIN(at) FROM sign_in_failures WHERE at >= ?", (since,))
    else:
        row = conn.execute(
            "SELECT MIN(at) FROM sign_in_failures WHERE at >= ? AND name = ?", (since, name)
        )
    value = row.fetchone()[0]
    return None if value is None else float(value)


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
