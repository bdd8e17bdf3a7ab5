"""Migration 2: the time spent on each grade and the event an undo takes
back (``judgment_events.seconds``, ``.undoes``); ``annotators``, filled from
those the ledger already names, with the adjudicator flag the 'adjudicated'
consensus rule reads; ``pool_sources`` (every run and rank that brought a
document into a pool); ``run_columns`` (a run's lines again as compressed
Arrow columns, so scoring a stored run need not read a million rows); and
stored scores (``evaluations``, ``evaluation_queries``). SQL for the
composite foreign key and the WITHOUT ROWID tables.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v2_annotators_sources_evaluations(db: Database) -> None:
    db.executescript(
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
