"""Migration 9: ``model_replies``, what a model was asked and answered for
each grade ``judgepool prelabel`` recorded, one row beside each event (in
its transaction) rather than in the event's note, which people read: the
prompt's digest lets a rerun see an item is labelled already with the same
prompt, and the reply lets a lead see why. The first of the migrations of
the tables behind a model's labels (`judgepool.store.model_replies`).
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
