"""How a workspace file is recognised, and how its schema is brought up to date.

A workspace is an SQLite file whose header carries judgepool's application
ID and whose ``meta`` table records ``schema_version``: the number of
migrations (`judgepool.store.migrations`) it has had. A new workspace runs
them all, an older one runs the ones it lacks, all inside one transaction,
so an upgrade either happens completely or not at all and never drops a row.
sqlite-utils runs them (`sqlite_utils.Migrations`) and logs each in the
file's ``_sqlite_migrations`` table; ``schema_version`` stays the mark an
older judgepool reads to refuse a file newer than itself.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

from judgepool.core.terms.errors import InputError
from judgepool.store import open_files
from judgepool.store.database import Database, Migrations
from judgepool.store.migrations import MIGRATIONS

# "JPOL" in ASCII: stored in the database header (offset 68) by PRAGMA
# application_id, so a workspace can be told from any other SQLite file
# without opening it through SQLite (which could write to it).
APPLICATION_ID: Final = 0x4A504F4C
SQLITE_MAGIC: Final = b"SQLite format 3\x00"
HEADER_SIZE: Final = 100


SCHEMA_VERSION: Final = MIGRATIONS[-1].version

# The migrations as a sqlite-utils migration set; the log of which ran when is
# its ``_sqlite_migrations`` table.
_RUNNER: Final = Migrations("judgepool")
for _migration in MIGRATIONS:
    _RUNNER(name=_migration.name)(_migration.apply)
# What the log says of when a migration ran that predates the log.
_BEFORE_THE_LOG: Final = "before the workspace kept this log"


def check_header(path: Path) -> open_files.FileKey:
    """Refuse, without writing anything, a file that is not a judgepool workspace;
    the file's key in `judgepool.store.open_files`.

    Reads the 100-byte SQLite header directly: opening an arbitrary file
    through SQLite could create journal files beside it. While a connection
    of this process has the file open, the header is not read again (closing
    the descriptor would drop that connection's locks): it was checked when
    the file was first opened. Call inside `open_files.opening()`.
    """
    if not path.exists():
        raise InputError(f"no such workspace; create it with: judgepool init {path}", str(path))
    if path.is_dir():
        raise InputError("is a directory, not a workspace file", str(path))
    try:
        key, header = open_files.read_header(path, HEADER_SIZE)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    if header is None:
        return key
    if len(header) < HEADER_SIZE or not header.startswith(SQLITE_MAGIC):
        raise InputError("not a judgepool workspace (not an SQLite database)", str(path))
    application_id = int.from_bytes(header[68:72], "big")
    if application_id != APPLICATION_ID:
        raise InputError(
            "an SQLite database, but not a judgepool workspace (left untouched)", str(path)
        )
    return key


def stored_version(conn: sqlite3.Connection, path: str) -> int:
    """The schema version recorded in the workspace."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"not a usable judgepool workspace: {exc}", path) from None
    if row is None:
        raise InputError("not a usable judgepool workspace: no schema version recorded", path)
    try:
        return int(row[0])
    except ValueError:
        raise InputError(f"unreadable schema version {row[0]!r}", path) from None


def apply_migrations(conn: sqlite3.Connection, start: int, until: int = SCHEMA_VERSION) -> None:
    """Run migrations ``start + 1 .. until`` on an open transaction and record the version.

    The caller owns the transaction (BEGIN IMMEDIATE ... COMMIT), so the
    whole upgrade commits or rolls back as one: sqlite-utils runs each
    migration in a savepoint of it, and logs it in ``_sqlite_migrations``.
    A workspace made before that log was kept (versions 1 to 3) first gets
    its ``start`` migrations logged as applied, then the rest run.
    """
    if not conn.in_transaction:
        raise RuntimeError("apply_migrations needs an open transaction")
    db = Database(conn)
    _log_history(db, start)
    stop = MIGRATIONS[until].name if until < len(MIGRATIONS) else None
    _RUNNER.apply(db, stop_before=stop)
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (str(until),),
    )


def _log_history(db: Database, start: int) -> None:
    """Log the first ``start`` migrations as applied, if the log has none of them."""
    if start == 0 or _RUNNER.applied(db):
        return
    _RUNNER.ensure_migrations_table(db)
    db.table(_RUNNER.migrations_table).insert_all(
        {"migration_set": _RUNNER.name, "name": migration.name, "applied_at": _BEFORE_THE_LOG}
        for migration in MIGRATIONS[:start]
    )
