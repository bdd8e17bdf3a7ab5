"""Migration 3: an index of pooled items (``pool_members_item``), because the
app reads every pooled (query, doc) at start, whatever the pool, and without
it SQLite sorts the whole table to drop repeats. The last migration written
before sqlite-utils ran them; files of versions 1 to 3 may predate the
migration log.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v3_pool_item_index(db: Database) -> None:
    # The app reads every pooled (query, doc) at start, whatever the pool:
    # without this index SQLite sorts the whole table to drop repeats.
    db.executescript("CREATE INDEX pool_members_item ON pool_members (query_id, doc_id);")
