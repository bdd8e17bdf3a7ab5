"""The drill-down of one query, on the teaching example of the README."""

from __future__ import annotations

from judgepool.core.auditing.drilldown import drill_down_lists
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry


def _entries(query_id: str, docs: list[str]) -> list[RunEntry]:
    return [
        RunEntry(query_id, doc, rank, float(len(docs) - rank), rank)
        for rank, doc in enumerate(docs, start=1)
    ]


def test_drill_down_lists_reproduce_the_teaching_example() -> None:
    judged = {"A": 3, "B": 2, "C": 1, "D": 0}
    contract = Contract(k=2)
    drill = drill_down_lists("run", "q", _entries("q", ["B", "C"]), judged, contract)
    assert round(drill.result.ndcg or 0, 6) == 0.617320
    assert round(drill.result.dcg, 6) == 2.630930
    assert [(r.doc_id, r.grade) for r in drill.ranked] == [("B", 2), ("C", 1)]
    assert [(r.doc_id, r.grade) for r in drill.ideal] == [("A", 3), ("B", 2), ("C", 1), ("D", 0)]
    assert round(sum(r.contribution for r in drill.ideal), 6) == 4.261860
    candidates = drill_down_lists(
        "run", "q", _entries("q", ["B", "C"]), judged, contract.with_changes(universe="candidates")
    )
    assert candidates.result.ndcg == 1.0
    assert [r.doc_id for r in candidates.ideal] == ["B", "C"]
    missing = drill_down_lists("run", "q", [], judged, contract)
    assert missing.result.missing and missing.ranked == ()


def test_positions_past_k_contribute_nothing_and_removed_and_duplicates_are_listed() -> None:
    judged = {"A": 3, "B": 2}
    contract = Contract(k=1, unjudged="condense", duplicates="first")
    entries = _entries("q", ["X", "A", "A", "B"])
    drill = drill_down_lists("run", "q", entries, judged, contract)
    # X is unjudged and condensed away; A's second copy is a duplicate
    assert drill.removed == ("X",)
    assert drill.duplicates == (("A", 1),)
    assert [r.doc_id for r in drill.ranked] == ["A", "B"]
    assert drill.ranked[0].contribution == 3.0
    assert drill.ranked[1].contribution == 0.0  # past k=1
