"""The audit seen query by query: statuses, holes and the worst-first order."""

from __future__ import annotations

from judgepool.core.auditing.audit import audit_run
from judgepool.core.auditing.query_audit import audit_queries
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry

JUDGED = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1}}


def _run(ranked: dict[str, list[str]]) -> list[RunEntry]:
    line = 0
    entries: list[RunEntry] = []
    for query_id, docs in ranked.items():
        for rank, doc in enumerate(docs, start=1):
            line += 1
            entries.append(RunEntry(query_id, doc, rank, float(-rank), line))
    return entries


def test_each_query_once_worst_first_with_its_holes() -> None:
    contract = Contract(k=2, unjudged="zero")
    # q1 fully judged; q2 half judged (a hole at rank 1); q3 skipped by the run;
    # qx unknown to the judgments, every document a hole.
    entries = _run({"q1": ["a", "b"], "q2": ["x", "c"], "qx": ["y", "z", "w"]})
    report = audit_run(entries, JUDGED, 2, contract)
    evaluation = evaluate(group_by_query(entries), JUDGED, contract)
    unknown = {q: lines for q, lines in group_by_query(entries).items() if q == "qx"}
    queries = audit_queries(
        report, JUDGED, contract, evaluation=evaluation, unknown_entries=unknown
    )
    assert [(q.query_id, q.status) for q in queries] == [
        ("qx", "unknown"),
        ("q2", "judged"),
        ("q3", "missing"),
        ("q1", "judged"),
    ]
    by_id = {q.query_id: q for q in queries}
    assert by_id["qx"].judged_at_k == 0.0
    assert [h.doc_id for h in by_id["qx"].holes] == ["y", "z"]
    assert by_id["q2"].judged_at_k == 0.5
    assert [h.doc_id for h in by_id["q2"].holes] == ["x"]
    assert by_id["q2"].finding_kinds == ("unjudged",)
    assert by_id["q3"].judged_at_k is None and by_id["q3"].finding_kinds == ("missing_queries",)
    assert by_id["q1"].ndcg == 1.0 and by_id["q1"].finding_kinds == ()
    assert by_id["qx"].ndcg is None


def test_without_the_unknown_lines_an_unknown_query_has_no_holes_listed() -> None:
    contract = Contract(k=2, unjudged="zero")
    entries = _run({"qx": ["y"]})
    report = audit_run(entries, JUDGED, 2, contract)
    queries = audit_queries(report, JUDGED, contract)
    unknown = next(q for q in queries if q.query_id == "qx")
    assert unknown.holes == () and unknown.status == "unknown"
    assert {q.query_id for q in queries if q.status == "missing"} == {"q1", "q2", "q3"}
