"""Migration 7: sign-in for served sessions (``judgepool serve``):
``sign_in_tokens`` keeps each name's token as a salted hash only (revoking
one keeps the row, dated), and ``sign_in_failures`` every failed sign-in, on
disk because each browser session is a process of its own and the rate
limit must be shared between them.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v7_sign_in(db: Database) -> None:
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
