"""Migration 4: full-text search over documents' title and text, so that a
document a run missed can be found from the grade screen and added to a
pool: an FTS5 index that reads the text from ``documents`` itself (no second
copy of the corpus), kept in step by triggers on every change to a document,
in that change's transaction.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v4_document_search(db: Database) -> None:
    # Full-text search over documents' title and text: an FTS5 index that
    # reads the text from `documents` itself (no second copy of the corpus),
    # kept in step by triggers on every insert, update and delete of a
    # document, in the same transaction as the change.
    db.table("documents").enable_fts(["title", "text"], create_triggers=True)
