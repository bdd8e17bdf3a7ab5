"""The migrations of the tables behind a model's labels (``judgepool
prelabel``), 9 on; `judgepool.store.migrations` lists them with the rest, in
order, and its rule holds here too: a released migration is never edited.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v9_model_replies(db: Database) -> None:
    # What a model was asked and answered for each grade `judgepool prelabel`
    # recorded: kept beside the event (one row per event, written in the same
    # transaction) rather than in its note, which people read. The prompt's
    # digest is how a rerun knows an item is labelled already with the same
    # prompt (the index), and the reply is what a lead reads to see why.
    db.executescript(
        """
        CREATE TABLE model_replies (
            event_id INTEGER PRIMARY KEY REFERENCES judgment_events(id),
            rater TEXT NOT NULL,            -- model:NAME, the event's annotator
            prompt_digest TEXT NOT NULL,    -- sha256 of the messages and format
            reply TEXT NOT NULL,            -- the message content, as sent
            prompt_tokens INTEGER,          -- as the endpoint reported them
            completion_tokens INTEGER
        );
        CREATE INDEX model_replies_rater ON model_replies (rater, prompt_digest);
        """
    )


def v10_model_claims(db: Database) -> None:
    # Two prelabel runs of one model at once must not both ask about (and
    # label) an item: a run claims each item before asking, in a transaction
    # of its own (`judgepool.store.model_claims`). A claim holds while its run
    # lives: it names the run (a random token), its host and process, and
    # lasts until expires_at (seconds since the epoch), which the live run
    # keeps moving on; a claim whose process is gone from its host, or whose
    # time is up, is free. A table, not a lock, because it must outlive no
    # process and still be seen by every process that opens the file.
    #
    # A reply is kept cut past a bound (`judgepool.store.model_replies`):
    # reply_chars is then its whole length, NULL where it is kept whole.
    db.executescript(
        """
        CREATE TABLE model_claims (
            rater TEXT NOT NULL,            -- model:NAME
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            run TEXT NOT NULL,              -- the claiming run's random token
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            expires_at REAL NOT NULL,       -- seconds since the epoch
            PRIMARY KEY (rater, query_id, doc_id)
        ) WITHOUT ROWID;
        CREATE INDEX model_claims_run ON model_claims (run);
        ALTER TABLE model_replies ADD COLUMN reply_chars INTEGER;
        """
    )
