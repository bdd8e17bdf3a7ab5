"""Which documents of a run enter a pool."""

from __future__ import annotations

from judgepool.core.scoring.pooling import pool_contributions
from judgepool.core.terms.types import RunEntry


def test_first_distinct_documents_in_trec_eval_order() -> None:
    entries = [
        RunEntry("q1", "d1", 1, 1.0, 1),
        RunEntry("q1", "d3", 2, 3.0, 2),  # the highest score leads, whatever its rank
        RunEntry("q1", "d3", 3, 2.5, 3),  # a duplicate takes no place
        RunEntry("q1", "d2", 4, 3.0, 4),  # ties on score: doc ID descending (d3 first)
        RunEntry("q2", "e1", 1, 5.0, 5),
    ]
    assert pool_contributions(entries, "bm25", 2) == [
        ("q1", "d3", "bm25", 1),
        ("q1", "d2", "bm25", 2),
        ("q2", "e1", "bm25", 1),
    ]
    assert len(pool_contributions(entries, "bm25", 10)) == 4
