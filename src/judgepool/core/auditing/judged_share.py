"""The judged share by rank: how much of what a run puts at each rank is judged.

Coverage (``judged@k``) says how much of a run's top k is judged on average;
this says *where* the holes are. A run whose unjudged documents sit at rank 9
is read differently from one whose rank 1 is often unjudged, though both may
have the same judged@10.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence


def judged_share_by_rank(
    rankings: Mapping[str, Sequence[str]],
    judged: Mapping[str, Container[str]],
    k: int,
) -> list[float | None]:
    """The share of judged documents at each rank 1..k, over queries.

    `rankings` holds, for each query to count (the scored queries, say), its
    ranked list of document IDs, best first, as the contract forms it (ties
    ordered, duplicates handled); `judged` holds, per query, the document IDs
    that have a judgment (a query absent from it has none judged).

    Element ``r - 1`` of the result is, for rank r,

        (queries whose document at rank r is judged)
        / (queries whose list has a document at rank r)

    A query whose list is shorter than r has no document at rank r: it counts
    in neither the numerator nor the denominator at that rank (a missing
    document is not an unjudged one; it adds nothing to any score). A rank
    that no query's list reaches has no share: None.

    The result has exactly k elements; k must be positive (ValueError).
    """
    if k < 1:
        raise ValueError(f"k must be positive, not {k}")
    present = [0] * k
    judged_here = [0] * k
    nothing: frozenset[str] = frozenset()
    for query_id, ranking in rankings.items():
        known = judged.get(query_id, nothing)
        for index, doc_id in enumerate(ranking[:k]):
            present[index] += 1
            if doc_id in known:
                judged_here[index] += 1
    return [
        None if total == 0 else hits / total
        for hits, total in zip(judged_here, present, strict=True)
    ]
