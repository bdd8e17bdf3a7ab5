"""The workspace's migrations, oldest first: migration *n* turns a version
*n − 1* workspace into version *n*.

Migrations are history: once released, a migration is never edited (its SQL
is what the files made by that release hold, down to the spacing SQLite
keeps in ``sqlite_master``); a change to the schema is a new function
appended to `MIGRATIONS` (those of a model's labels, 9 on, are in
`judgepool.store.migrations_models`). Each takes the sqlite-utils `Database` of the
connection being upgraded, inside the caller's transaction
(`judgepool.store.schema.apply_migrations`). The first three are SQL that
sqlite-utils' table creation cannot express (CHECK constraints, WITHOUT ROWID
tables, AUTOINCREMENT, composite foreign keys, the ledger's triggers); later
ones use sqlite-utils where it can say the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from judgepool.store.database import Database
from judgepool.store.migrations_models import v9_model_replies, v10_model_claims


def _v1_corpus_runs_ledger(db: Database) -> None:
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


def _v2_annotators_sources_evaluations(db: Database) -> None:
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


def _v3_pool_item_index(db: Database) -> None:
    # The app reads every pooled (query, doc) at start, whatever the pool:
    # without this index SQLite sorts the whole table to drop repeats.
    db.executescript("CREATE INDEX pool_members_item ON pool_members (query_id, doc_id);")


def _v4_document_search(db: Database) -> None:
    # Full-text search over documents' title and text: an FTS5 index that
    # reads the text from `documents` itself (no second copy of the corpus),
    # kept in step by triggers on every insert, update and delete of a
    # document, in the same transaction as the change.
    db.table("documents").enable_fts(["title", "text"], create_triggers=True)


def _v5_assignments(db: Database) -> None:
    # Who is to grade what (`judgepool assign`). Each assignment is kept; the
    # latest one is the workspace's current queues, so re-assigning replaces
    # the queues without losing what was assigned before.
    db.table("assignments").create(
        {
            "id": int,
            "created_at": str,
            "unit": str,  # 'item' or 'query': what was balanced
            "overlap": int,
            "seed": int,
            "annotators": str,  # JSON list, in the order given
            "per_annotator": int,
            "queries_file": str,
            "items": int,  # distinct items assigned, kept so progress need not count them
        },
        pk="id",
        not_null={"created_at", "unit", "overlap", "seed", "annotators", "items"},
    )
    db.table("assigned_items").create(
        {"assignment_id": int, "annotator": str, "query_id": str, "doc_id": str},
        pk=("assignment_id", "annotator", "query_id", "doc_id"),
        not_null={"assignment_id", "annotator", "query_id", "doc_id"},
        foreign_keys=[("assignment_id", "assignments", "id")],
    )
    # The few events that carry a model's grade, found without reading the
    # ledger: agreement counts them as the rater model:NAME.
    db.execute(
        "CREATE INDEX judgment_events_model ON judgment_events (source) "
        "WHERE source LIKE 'model:_%'"
    )
    # Progress per annotator (judgepool progress) reads these instead of the
    # whole ledger and every current judgment, sorted by annotator.
    db.execute(
        "CREATE INDEX judgment_events_timed ON judgment_events (annotator, seconds, grade) "
        "WHERE seconds IS NOT NULL"
    )
    db.execute(
        "CREATE INDEX current_judgments_annotator ON current_judgments (annotator, grade, unsure)"
    )


def _v6_pool_finds(db: Database) -> None:
    # Documents a person added to a pool rather than a run's ranking (source
    # 'search': found by full-text search from the grade screen), with who
    # added it and the words that found it. pool_sources holds what runs
    # brought in; a run may be named anything, so 'search' is not a run there.
    db.table("pool_finds").create(
        {
            "pool": str,
            "query_id": str,
            "doc_id": str,
            "source": str,
            "words": str,
            "annotator": str,
            "added_at": str,
        },
        pk=("pool", "query_id", "doc_id", "source"),
        not_null={"pool", "query_id", "doc_id", "source", "words", "annotator", "added_at"},
    )


def _v7_sign_in(db: Database) -> None:
    # Served sessions (judgepool serve) sign in with a name and a token; only
    # the token's salted hash is kept, and revoking it keeps the row, dated.
    db.table("sign_in_tokens").create(
        {"name": str, "salt": bytes, "hash": bytes, "created_at": str, "revoked_at": str},
        pk="name",
        not_null={"name", "salt", "hash", "created_at"},
    )
    # Every failed sign-in, for the log and the rate limit (each browser
    # session is a process of its own: the limit must be shared, so on disk).
    db.table("sign_in_failures").create(
        {"id": int, "name": str, "at": float, "at_text": str, "reason": str},
        pk="id",
        not_null={"name", "at", "at_text", "reason"},
    )
    db.execute("CREATE INDEX sign_in_failures_at ON sign_in_failures (at)")


def _v8_roles_adjudications(db: Database) -> None:
    # Roles (`judgepool.core.roles`) replace the adjudicator flag: NULL is "no
    # role set", which in a workspace where nobody has one leaves its single
    # local user the lead (solo use stays one command).
    db.executescript(
        """
        ALTER TABLE annotators ADD COLUMN role TEXT
            CHECK (role IS NULL OR role IN ('annotator', 'adjudicator', 'lead'));
        UPDATE annotators SET role = 'adjudicator' WHERE adjudicator = 1;
        ALTER TABLE annotators DROP COLUMN adjudicator;
        -- The digest of the grading guidelines this annotator was last shown.
        ALTER TABLE annotators ADD COLUMN guidelines_seen TEXT;

        -- An adjudication (settling a disagreement) is not an annotation: its
        -- events are flagged and kept out of current_judgments, in
        -- current_adjudications, which the 'adjudicated' rule reads.
        ALTER TABLE judgment_events ADD COLUMN adjudicates INTEGER NOT NULL DEFAULT 0
            CHECK (adjudicates IN (0, 1));
        -- An undo brings back an earlier state; restored_from names the event
        -- that state dates from, so the 'latest' rule orders it by when it was
        -- first given, not by when it was brought back.
        ALTER TABLE judgment_events ADD COLUMN restored_from INTEGER
            REFERENCES judgment_events(id);
        ALTER TABLE current_judgments ADD COLUMN since_event INTEGER;
        UPDATE current_judgments SET since_event = event_id;

        DROP TRIGGER judgment_events_set_current;
        DROP TRIGGER judgment_events_withdraw_current;
        CREATE TRIGGER judgment_events_set_current AFTER INSERT ON judgment_events
        WHEN NEW.adjudicates = 0 AND (NEW.grade IS NOT NULL OR NEW.unsure = 1)
        BEGIN
            INSERT OR REPLACE INTO current_judgments
                (query_id, doc_id, annotator, grade, unsure, event_id, updated_at, since_event)
            VALUES
                (NEW.query_id, NEW.doc_id, NEW.annotator, NEW.grade, NEW.unsure, NEW.id,
                 NEW.created_at, COALESCE(NEW.restored_from, NEW.id));
        END;
        CREATE TRIGGER judgment_events_withdraw_current AFTER INSERT ON judgment_events
        WHEN NEW.adjudicates = 0 AND NEW.grade IS NULL AND NEW.unsure = 0
        BEGIN
            DELETE FROM current_judgments
            WHERE query_id = NEW.query_id AND doc_id = NEW.doc_id
              AND annotator = NEW.annotator;
        END;

        CREATE TABLE current_adjudications (
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            adjudicator TEXT NOT NULL,
            grade INTEGER NOT NULL,
            event_id INTEGER NOT NULL REFERENCES judgment_events(id),
            since_event INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (query_id, doc_id, adjudicator)
        ) WITHOUT ROWID;
        CREATE TRIGGER judgment_events_set_adjudication AFTER INSERT ON judgment_events
        WHEN NEW.adjudicates = 1 AND NEW.grade IS NOT NULL
        BEGIN
            INSERT OR REPLACE INTO current_adjudications
                (query_id, doc_id, adjudicator, grade, event_id, since_event, updated_at)
            VALUES
                (NEW.query_id, NEW.doc_id, NEW.annotator, NEW.grade, NEW.id,
                 COALESCE(NEW.restored_from, NEW.id), NEW.created_at);
        END;
        CREATE TRIGGER judgment_events_withdraw_adjudication AFTER INSERT ON judgment_events
        WHEN NEW.adjudicates = 1 AND NEW.grade IS NULL
        BEGIN
            DELETE FROM current_adjudications
            WHERE query_id = NEW.query_id AND doc_id = NEW.doc_id
              AND adjudicator = NEW.annotator;
        END;
        """
    )
    # An undo made before this version stands in current_judgments under its
    # own ID: date it from the grade it brought back (following undos of undos).
    restored: dict[int, int] = {}

    def since(event_id: int) -> int:
        if event_id in restored:
            return restored[event_id]
        row = db.execute(
            "SELECT e.undoes, t.previous_event FROM judgment_events e "
            "LEFT JOIN judgment_events t ON t.id = e.undoes WHERE e.id = ?",
            [event_id],
        ).fetchone()
        undoes, before = row if row is not None else (None, None)
        found = event_id if undoes is None or before is None else since(int(before))
        restored[event_id] = found
        return found

    undos = db.execute(
        "SELECT c.query_id, c.doc_id, c.annotator, c.event_id FROM current_judgments c "
        "JOIN judgment_events e ON e.id = c.event_id WHERE e.undoes IS NOT NULL"
    ).fetchall()
    for query_id, doc_id, annotator, event_id in undos:
        db.execute(
            "UPDATE current_judgments SET since_event = ? "
            "WHERE query_id = ? AND doc_id = ? AND annotator = ?",
            [since(int(event_id)), query_id, doc_id, annotator],
        )
    # Before this version an adjudicator's every grade settled its item under
    # 'adjudicated': those grades stay adjudications too, so no workspace's
    # judged universe changes under that rule by the upgrade. (They stay
    # annotations as well: the ledger cannot tell which they were.)
    db.execute(
        "INSERT INTO current_adjudications "
        "(query_id, doc_id, adjudicator, grade, event_id, since_event, updated_at) "
        "SELECT c.query_id, c.doc_id, c.annotator, c.grade, c.event_id, c.since_event, "
        "c.updated_at FROM current_judgments c JOIN annotators a ON a.name = c.annotator "
        "WHERE a.role = 'adjudicator' AND c.grade IS NOT NULL"
    )


@dataclass(frozen=True)
class Migration:
    """One step of the schema: the version it makes, a name (the one recorded
    in the workspace's migration log) and what it adds."""

    version: int
    name: str
    description: str
    apply: Callable[[Database], None]


MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(
        1,
        "0001_corpus_runs_ledger",
        "queries, documents, runs, the judgment ledger, pools",
        _v1_corpus_runs_ledger,
    ),
    Migration(
        2,
        "0002_annotators_sources_evaluations",
        "annotator roles, pool sources, run column snapshots, stored evaluations",
        _v2_annotators_sources_evaluations,
    ),
    Migration(
        3,
        "0003_pool_item_index",
        "an index of pooled items, for the app's start",
        _v3_pool_item_index,
    ),
    Migration(
        4,
        "0004_document_search",
        "full-text search over documents' title and text",
        _v4_document_search,
    ),
    Migration(
        5,
        "0005_assignments",
        "assignments of pooled items to annotators",
        _v5_assignments,
    ),
    Migration(
        6,
        "0006_pool_finds",
        "documents added to a pool by a person (found by search), with who and the words",
        _v6_pool_finds,
    ),
    Migration(
        7,
        "0007_sign_in",
        "sign-in tokens (salted hashes) and failed sign-ins, for served sessions",
        _v7_sign_in,
    ),
    Migration(
        8,
        "0008_roles_adjudications",
        "roles (annotator, adjudicator, lead), adjudications kept apart from annotations, "
        "undos dated from the grade they restore, the guidelines each annotator has seen",
        _v8_roles_adjudications,
    ),
    Migration(
        9,
        "0009_model_replies",
        "the prompt digest and reply behind each grade a model gave through prelabel",
        v9_model_replies,
    ),
    Migration(
        10,
        "0010_model_claims",
        "claims on the items a prelabel run is asking a model about, and the length of a "
        "model's reply where the text kept is cut",
        v10_model_claims,
    ),
)
