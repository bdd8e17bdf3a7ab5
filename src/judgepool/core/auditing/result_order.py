"""Per-query records in the order a reader asks for: by any of their values,
undefined values last, the query ID breaking ties so the order is stable."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from judgepool.core.terms.types import QueryResult


def inflation(result: QueryResult) -> float | None:
    """How much the candidate-only nDCG overstates the nDCG (None when either is
    undefined): what grading only a run's own documents would hide."""
    if result.candidate_ndcg is None or result.ndcg is None:
        return None
    return result.candidate_ndcg - result.ndcg


# The per-query values the scores screen can sort by, by key.
SORT_KEYS: Final[dict[str, Callable[[QueryResult], float | str | None]]] = {
    "query": lambda r: r.query_id,
    "ndcg": lambda r: r.ndcg,
    "dcg": lambda r: r.dcg,
    "idcg": lambda r: r.idcg,
    "candidate_ndcg": lambda r: r.candidate_ndcg,
    "inflation": inflation,
    "judged_at_k": lambda r: r.judged_at_k,
    "zero_idcg": lambda r: float(r.zero_idcg),
}


def sort_results(
    results: Iterable[QueryResult], key: str, *, descending: bool = False
) -> list[QueryResult]:
    """Per-query records ordered by one of `SORT_KEYS`; undefined values always
    last, and the query ID breaks ties so the order is stable across recomputes."""
    if key not in SORT_KEYS:
        raise ValueError(f"cannot sort by {key!r}; choose one of {', '.join(SORT_KEYS)}")
    value_of = SORT_KEYS[key]
    by_id = sorted(results, key=lambda r: r.query_id, reverse=descending and key == "query")
    defined = [r for r in by_id if value_of(r) is not None]
    undefined = [r for r in by_id if value_of(r) is None]
    if key != "query":
        defined.sort(key=lambda r: value_of(r), reverse=descending)  # type: ignore[arg-type,return-value]
    return defined + undefined
