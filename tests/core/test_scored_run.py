"""A scored run's provenance and its JSON shape."""

from __future__ import annotations

from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry


def test_fingerprint_and_json_shape() -> None:
    contract = Contract(k=1, unjudged="zero")
    entries = [RunEntry("q1", "a", 1, 1.0, 1), RunEntry("qx", "b", 1, 1.0, 2)]
    evaluation = evaluate(group_by_query(entries), {"q1": {"a": 1}, "q2": {"c": 1}}, contract)
    scored = ScoredRun("bm25", evaluation, "qd", "rd", engine="reference")
    assert scored.contract == contract
    assert scored.fingerprint == contract.fingerprint("qd", "rd")
    data = scored.to_dict()
    assert list(data) == [
        "run", "contract", "qrels_digest", "run_digest", "fingerprint", "summary",
        "unknown_queries", "missing_queries",
    ]  # fmt: skip
    assert data["unknown_queries"] == ["qx"] and data["missing_queries"] == ["q2"]
    assert "per_query" not in data
    assert [r["query_id"] for r in scored.to_dict(per_query=True)["per_query"]] == ["q1", "q2"]
