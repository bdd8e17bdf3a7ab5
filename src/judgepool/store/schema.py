"""The workspace schema as an ordered list of migrations, and how a file is recognised.

A workspace is an SQLite file whose header carries judgepool's application
ID and whose ``meta`` table records ``schema_version``. Migration *n* turns
a version *n − 1* workspace into version *n*; a new workspace runs them all,
an older one runs the ones it lacks, all inside one transaction, so an
upgrade either happens completely or not at all and never drops a row.

Migrations are history: once released, a migration is never edited; a
change to the schema is a new function appended to `MIGRATIONS`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from judgepool.core.errors import InputError
from judgepool.store import open_files

# "JPOL" in ASCII: stored in the database header (offset 68) by PRAGMA
# application_id, so a workspace can be told from any other SQLite file
# without opening it through SQLite (which could write to it).
APPLICATION_ID: Final = 0x4A504F4C
SQLITE_MAGIC: Final = b"SQLite format 3\x00"
HEADER_SIZE: Final = 100


def _v1_corpus_runs_ledger(conn: sqlite3.Connection) -> None:
    execute_script(
        conn,
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL  -- JSON
        );
        CREATE TABLE queries (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            narrative TEXT
        );
        CREATE TABLE documents (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            title TEXT
        );
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE,
            source TEXT NOT NULL,
            digest TEXT NOT NULL,
            imported_at TEXT NOT NULL,
            lines INTEGER NOT NULL,
            first_row INTEGER NOT NULL,
            last_row INTEGER NOT NULL
        );
        -- Kept as imported, one row per data line, so duplicates stay visible.
        -- A run's lines are the rowids first_row..last_row of its `runs` row
        -- (one import is one transaction, so they are consecutive): reading
        -- a run is a range scan with no index to maintain, which keeps the
        -- bulk insert of millions of lines as cheap as SQLite can make it.
        CREATE TABLE run_lines (
            run_id INTEGER NOT NULL REFERENCES runs(id),
            line INTEGER NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            rank INTEGER NOT NULL,
            score REAL NOT NULL,
            tag TEXT
        );

        -- The ledger: one row per act of judging, never changed or removed.
        -- grade NULL and unsure 1: deferred; grade NULL and unsure 0: the
        -- annotator's judgment withdrawn (what undoing a first grade appends).
        CREATE TABLE judgment_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER,
            unsure INTEGER NOT NULL DEFAULT 0 CHECK (unsure IN (0, 1)),
            annotator TEXT NOT NULL,
            created_at TEXT NOT NULL,
            previous_grade INTEGER,
            previous_event INTEGER REFERENCES judgment_events(id),
            note TEXT,
            source TEXT NOT NULL CHECK (
                source = 'human' OR source LIKE 'import:_%' OR source LIKE 'model:_%'
            ),
            CHECK (grade IS NULL OR unsure = 0)
        );
        CREATE INDEX judgment_events_item ON judgment_events(query_id, doc_id);

        CREATE TRIGGER judgment_events_no_update BEFORE UPDATE ON judgment_events
        BEGIN
            SELECT RAISE(ABORT, 'the judgment ledger is append-only: events cannot be changed');
        END;
        CREATE TRIGGER judgment_events_no_delete BEFORE DELETE ON judgment_events
        BEGIN
            SELECT RAISE(ABORT, 'the judgment ledger is append-only: events cannot be deleted');
        END;

        -- Each annotator's latest state per item, maintained by triggers in the
        -- same transaction as the event, so it can never disagree with the ledger.
        CREATE TABLE current_judgments (
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            annotator TEXT NOT NULL,
            grade INTEGER,
            unsure INTEGER NOT NULL,
            event_id INTEGER NOT NULL REFERENCES judgment_events(id),
            updated_at TEXT NOT NULL,
            PRIMARY KEY (query_id, doc_id, annotator)
        ) WITHOUT ROWID;
        CREATE TRIGGER judgment_events_set_current AFTER INSERT ON judgment_events
        WHEN NEW.grade IS NOT NULL OR NEW.unsure = 1
        BEGIN
            INSERT OR REPLACE INTO current_judgments
                (query_id, doc_id, annotator, grade, unsure, event_id, updated_at)
            VALUES
                (NEW.query_id, NEW.doc_id, NEW.annotator, NEW.grade, NEW.unsure, NEW.id,
                 NEW.created_at);
        END;
        CREATE TRIGGER judgment_events_withdraw_current AFTER INSERT ON judgment_events
        WHEN NEW.grade IS NULL AND NEW.unsure = 0
        BEGIN
            DELETE FROM current_judgments
            WHERE query_id = NEW.query_id AND doc_id = NEW.doc_id
              AND annotator = NEW.annotator;
        END;

        CREATE TABLE pools (
            name TEXT PRIMARY KEY,
            created_at TEXT NOT NULL
        );
        CREATE TABLE pool_members (
            pool TEXT NOT NULL REFERENCES pools(name),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY (pool, query_id, doc_id)
        ) WITHOUT ROWID;
        """,
    )


def _v2_annotators_sources_evaluations(conn: sqlite3.Connection) -> None:
    execute_script(
        conn,
        """
        ALTER TABLE judgment_events ADD COLUMN seconds REAL;
        ALTER TABLE judgment_events ADD COLUMN undoes INTEGER REFERENCES judgment_events(id);

        -- An adjudicator's grade settles a disagreement under the
        -- 'adjudicated' consensus rule.
        CREATE TABLE annotators (
            name TEXT PRIMARY KEY,
            adjudicator INTEGER NOT NULL DEFAULT 0 CHECK (adjudicator IN (0, 1)),
            added_at TEXT NOT NULL
        );
        INSERT INTO annotators (name, adjudicator, added_at)
            SELECT annotator, 0, MIN(created_at) FROM judgment_events GROUP BY annotator;

        -- Every run and rank that brought a document into a pool.
        CREATE TABLE pool_sources (
            pool TEXT NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            run TEXT NOT NULL,
            rank INTEGER NOT NULL,
            depth INTEGER NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY (pool, query_id, doc_id, run),
            FOREIGN KEY (pool, query_id, doc_id) REFERENCES pool_members(pool, query_id, doc_id)
        ) WITHOUT ROWID;

        -- A derived copy of a run's lines as compressed Arrow columns, written in
        -- the same transaction as run_lines: scoring a stored run reads this in
        -- a fraction of the time a million rows take. run_lines stays the record.
        CREATE TABLE run_columns (
            run_id INTEGER PRIMARY KEY REFERENCES runs(id),
            format TEXT NOT NULL,
            data BLOB NOT NULL
        );

        CREATE TABLE evaluations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            run_name TEXT,
            source TEXT,
            contract TEXT NOT NULL,       -- JSON, Contract.to_dict()
            consensus TEXT NOT NULL,
            qrels_digest TEXT NOT NULL,
            run_digest TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            implementation TEXT NOT NULL,
            summary TEXT NOT NULL,        -- JSON, Summary.to_dict()
            unknown_queries TEXT NOT NULL -- JSON list
        );
        CREATE TABLE evaluation_queries (
            evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),
            query_id TEXT NOT NULL,
            ndcg REAL,
            record TEXT NOT NULL,         -- JSON, QueryResult.to_dict()
            PRIMARY KEY (evaluation_id, query_id)
        ) WITHOUT ROWID;
        """,
    )


def _v3_pool_item_index(conn: sqlite3.Connection) -> None:
    # The app reads every pooled (query, doc) at start, whatever the pool:
    # without this index SQLite sorts the whole table to drop repeats.
    execute_script(conn, "CREATE INDEX pool_members_item ON pool_members (query_id, doc_id);")


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    apply: Callable[[sqlite3.Connection], None]


MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(1, "queries, documents, runs, the judgment ledger, pools", _v1_corpus_runs_ledger),
    Migration(
        2,
        "annotator roles, pool sources, run column snapshots, stored evaluations",
        _v2_annotators_sources_evaluations,
    ),
    Migration(3, "an index of pooled items, for the app's start", _v3_pool_item_index),
)
SCHEMA_VERSION: Final = MIGRATIONS[-1].version


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
    whole upgrade commits or rolls back as one.
    """
    if not conn.in_transaction:
        raise RuntimeError("apply_migrations needs an open transaction")
    for migration in MIGRATIONS:
        if start < migration.version <= until:
            migration.apply(conn)
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (str(until),),
    )


def execute_script(conn: sqlite3.Connection, script: str) -> None:
    """Run each statement of a script with execute().

    sqlite3's executescript() commits an open transaction first, which would
    split an upgrade in two; statement by statement, they join the caller's.
    """
    for statement in split_statements(script):
        conn.execute(statement)


def split_statements(script: str) -> list[str]:
    """The complete statements of an SQL script (triggers kept whole)."""
    statements: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            text = pending.strip()
            if text.strip(";").strip() and not _only_comments(text):
                statements.append(text)
            pending = ""
    if pending.strip(";").strip() and not _only_comments(pending):
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:80]!r}")
    return statements


def _only_comments(text: str) -> bool:
    lines = [line.strip() for line in text.strip().rstrip(";").splitlines()]
    return all(not line or line.startswith("--") for line in lines)
