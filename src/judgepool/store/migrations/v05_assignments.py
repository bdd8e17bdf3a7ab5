"""Migration 5: who is to grade what (``judgepool assign``): ``assignments``,
each kept (the latest is the current queues, so re-assigning loses nothing)
and ``assigned_items``; and the indexes that let agreement find a model's
grades and progress count each annotator's work without reading the whole
ledger.
"""

from __future__ import annotations

from judgepool.store.database import Database


def v5_assignments(db: Database) -> None:
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
