"""Which documents of a run enter a pool: the first ``depth`` distinct documents
of each query, in trec_eval's order."""

from __future__ import annotations

from collections.abc import Iterable

from judgepool.core.scoring.aggregate import group_by_query
from judgepool.core.scoring.ranking import order_entries
from judgepool.core.terms.types import RunEntry

# (query ID, document ID, run name, rank among the query's distinct documents)
Contribution = tuple[str, str, str, int]


def pool_contributions(entries: Iterable[RunEntry], run: str, depth: int) -> list[Contribution]:
    """(query, doc, run, rank) for the first ``depth`` distinct documents of each
    query under trec_eval's order (score, then doc ID, descending); rank is the
    document's 1-based position among the distinct documents."""
    found: list[Contribution] = []
    for query_id, lines in group_by_query(entries).items():
        seen: set[str] = set()
        for entry in order_entries(lines, "trec_eval"):
            if entry.doc_id in seen:
                continue
            seen.add(entry.doc_id)
            found.append((query_id, entry.doc_id, run, len(seen)))
            if len(seen) == depth:
                break
    return found
