"""Per-query records ordered by a value, undefined values last."""

from __future__ import annotations

from dataclasses import replace

import pytest

from judgepool.core.auditing.result_order import inflation, sort_results
from judgepool.core.scoring.metrics import score_missing_query
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import QueryResult


def _result(query_id: str, ndcg: float | None, candidate: float | None) -> QueryResult:
    base = score_missing_query(query_id, {"d": 1}, Contract())
    return replace(base, ndcg=ndcg, candidate_ndcg=candidate)


def test_inflation_is_candidate_minus_fixed_universe() -> None:
    assert inflation(_result("q", 0.5, 0.75)) == 0.25
    assert inflation(_result("q", None, 0.75)) is None
    assert inflation(_result("q", 0.5, None)) is None


def test_sorting_keeps_undefined_last_and_breaks_ties_by_query() -> None:
    results = [
        _result("q3", 0.5, 1.0),
        _result("q1", None, 1.0),
        _result("q2", 0.5, 0.6),
        _result("q4", 0.9, 0.9),
    ]
    ascending = [r.query_id for r in sort_results(results, "ndcg")]
    assert ascending == ["q2", "q3", "q4", "q1"]
    descending = [r.query_id for r in sort_results(results, "ndcg", descending=True)]
    assert descending == ["q4", "q2", "q3", "q1"]
    by_query = [r.query_id for r in sort_results(results, "query", descending=True)]
    assert by_query == ["q4", "q3", "q2", "q1"]
    by_inflation = [r.query_id for r in sort_results(results, "inflation", descending=True)]
    assert by_inflation == ["q3", "q2", "q4", "q1"]


def test_an_unknown_key_is_refused_naming_the_keys() -> None:
    with pytest.raises(ValueError, match="cannot sort by 'speed'; choose one of query, ndcg"):
        sort_results([], "speed")
