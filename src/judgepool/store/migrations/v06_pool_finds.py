"""Migration 6: ``pool_finds``, the documents a person added to a pool rather
than a run's ranking (found by full-text search from the grade screen), with
who added each and the words that found it; kept apart from
``pool_sources``, which holds what runs brought in (a run may be named
anything, so 'search' cannot be one there).
"""

from __future__ import annotations

from judgepool.store.database import Database


def v6_pool_finds(db: Database) -> None:
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
