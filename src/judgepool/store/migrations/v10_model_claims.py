"""Migration 10: ``model_claims``, the items a prelabel run is asking a model
about, claimed in a transaction of their own (`judgepool.store.model_claims`)
so two runs of one model at once never ask about the same item; a table, not
a lock, so that every process opening the file sees the claims. And
``model_replies.reply_chars``: a reply's whole length where the text kept is
cut (`judgepool.store.model_replies`).
"""

from __future__ import annotations

from judgepool.store.database import Database


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
