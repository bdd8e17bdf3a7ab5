"""One SQLite connection to a workspace file, configured, or read-only when it must be.

`connect` opens the file read-write (SQLite itself falls back to reading a
file it may not write). When the folder cannot hold the ``-wal`` and ``-shm``
files SQLite reads a WAL database through, `readable_connection` opens it
immutable instead, only when that is exact (see `judgepool.store.read_only`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

from judgepool.core.terms.errors import InputError
from judgepool.store.read_only import (
    FileSnapshot,
    cannot_share_error,
    folder_writable,
    has_unread_log,
    immutable_uri,
    read_only_error,
    write_ahead_log,
)

BUSY_TIMEOUT_MS: Final = 10_000

# SQLite's primary result codes for a lock held by another connection.
SQLITE_BUSY: Final = 5
SQLITE_LOCKED: Final = 6


def busy_error(exc: BaseException) -> bool:
    """Whether SQLite gave up waiting for a lock another connection holds."""
    code = getattr(exc, "sqlite_errorcode", None)
    return (
        isinstance(exc, sqlite3.Error)
        and code is not None
        and code & 0xFF
        in (
            SQLITE_BUSY,
            SQLITE_LOCKED,
        )
    )


def connect(
    path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS, *, uri: str | None = None
) -> sqlite3.Connection:
    """A connection with no implicit transactions (isolation_level=None:
    `Workspace.write` opens them explicitly with BEGIN IMMEDIATE), usable from
    the thread that is given it (check_same_thread=False)."""
    conn = sqlite3.connect(
        uri or str(path),
        timeout=busy_timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
        uri=uri is not None,
    )
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    return conn


def configure(conn: sqlite3.Connection, *, immutable: bool) -> None:
    if not immutable:
        # An immutable connection has no journal of its own to choose.
        conn.execute("PRAGMA journal_mode = WAL")
        # FULL: a commit is on disk (the WAL is synced) before it is acknowledged.
        conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: bulk imports spill less


def readable_connection(
    path: Path, conn: sqlite3.Connection, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> tuple[sqlite3.Connection, FileSnapshot | None]:
    """``conn`` (just opened by `connect`) once it has read the file, or, when
    SQLite cannot read it so (a folder it cannot write), an immutable one in
    its place with what the file looked like then. ``conn`` is closed on failure."""
    try:
        # The first read opens (or creates) the -wal and -shm.
        conn.execute("PRAGMA schema_version").fetchone()
        return conn, None
    except sqlite3.DatabaseError as exc:
        conn.close()
        if not cannot_share_error(exc) or folder_writable(path):
            raise InputError(f"not a usable judgepool workspace: {exc}", str(path)) from None
    if has_unread_log(path):
        raise InputError(
            f"cannot be read here: its write-ahead log {write_ahead_log(path).name} holds "
            "changes not yet in the file, and SQLite cannot create the shared-memory file it "
            "needs to read them, because you may not write the folder. Ask someone who can "
            "write the folder to open the workspace once (which folds the log into the file), "
            "or copy the workspace with its -wal file to a folder you can write to",
            str(path),
        )
    snapshot = FileSnapshot.of(path)
    conn = connect(path, busy_timeout_ms, uri=immutable_uri(path))
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise InputError(f"not a usable judgepool workspace: {exc}", str(path)) from None
    return conn, snapshot


def probe_read_only(conn: sqlite3.Connection, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> bool:
    """Whether SQLite refuses writes on ``conn``, asked without changing anything.

    BEGIN IMMEDIATE succeeds on a read-only connection (measured), so the probe
    is a statement that writes no row: it takes the write lock for an instant,
    or fails at once with SQLITE_READONLY. Another process holding the write
    lock (SQLITE_BUSY after no wait) shows the file is writable. Call outside
    a transaction.
    """
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("DELETE FROM meta WHERE 0")
    except sqlite3.OperationalError as exc:
        if read_only_error(exc):
            return True
        if busy_error(exc):
            return False
        raise
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    return False
