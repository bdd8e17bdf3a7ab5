"""Migration 1: the workspace's first schema. ``meta`` (where
``schema_version`` is kept) and ``settings``; the corpus (``queries``,
``documents``); runs as imported (``runs``, and ``run_lines`` one row per
data line, a run's lines the rowid range of its ``runs`` row so reading one
is a range scan with no index to keep up); the append-only judgment ledger
(``judgment_events``, whose triggers refuse any change or deletion) with each
annotator's latest state per item (``current_judgments``, kept by triggers in
the event's own transaction); and ``pools`` with their members. Written as
SQL because sqlite-utils' table creation cannot say it: CHECK constraints,
WITHOUT ROWID tables, AUTOINCREMENT, the ledger's triggers.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v1_corpus_runs_ledger(db: Database) -> None:
    db.executescript(
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
