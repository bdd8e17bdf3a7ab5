"""Migration 8: roles (annotator, adjudicator, lead; `judgepool.core.team.roles`)
replace the adjudicator flag, and each annotator's last-seen guidelines are
kept; an adjudication is no longer an annotation (its events are flagged and
kept in ``current_adjudications``, which the 'adjudicated' rule reads); and
an undo is dated from the grade it restores (``restored_from``,
``since_event``), so the 'latest' rule orders it by when it was first given.
The ledger's triggers are remade to match, and what older files hold is
carried over so no workspace's judged universe changes by the upgrade.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v8_roles_adjudications(db: Database) -> None:
    # Roles (`judgepool.core.team.roles`) replace the adjudicator flag: NULL is "no
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
