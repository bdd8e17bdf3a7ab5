"""Which version of the grading guidelines each annotator was last shown.

The guidelines themselves are a setting (`judgepool.services.guidelines`);
each annotator's row keeps the digest of the text they were last shown
(``annotators.guidelines_seen``, schema version 8), so a changed text is
shown to each of them once.
"""

from __future__ import annotations

import sqlite3

from judgepool.store.ledger import register_annotator


def seen_digest(conn: sqlite3.Connection, name: str) -> str | None:
    """The digest of the guidelines ``name`` was last shown (None: none yet,
    or not an annotator of the workspace)."""
    row = conn.execute("SELECT guidelines_seen FROM annotators WHERE name = ?", (name,)).fetchone()
    return None if row is None else row[0]


def record_seen(conn: sqlite3.Connection, name: str, digest: str) -> None:
    """Record that ``name`` was shown the guidelines of ``digest`` (adding them as
    an annotator if new), inside the caller's write transaction."""
    register_annotator(conn, name)
    conn.execute("UPDATE annotators SET guidelines_seen = ? WHERE name = ?", (digest, name))


def seen_by(conn: sqlite3.Connection, digest: str) -> list[str]:
    """The annotators who were shown the guidelines of ``digest``, by name."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT name FROM annotators WHERE guidelines_seen = ? ORDER BY name", (digest,)
        )
    ]
