"""Two scored runs compared query by query, on literal runs."""

from __future__ import annotations

from judgepool.core.comparing.comparison import compare_runs
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry

JUDGED = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1}, "q4": {"e": 0}}


def _scored(run: str, ranked: dict[str, list[str]], contract: Contract) -> ScoredRun:
    entries = [
        RunEntry(query_id, doc, rank, float(-rank), rank)
        for query_id, docs in ranked.items()
        for rank, doc in enumerate(docs, start=1)
    ]
    evaluation = evaluate(group_by_query(entries), JUDGED, contract)
    return ScoredRun(run, evaluation, "qrels-digest", f"{run}-digest")


def test_wins_ties_losses_and_incomparable_from_a_side() -> None:
    contract = Contract(k=2, unjudged="zero", zero_idcg="exclude")
    # q1: A perfect, B reversed (A wins); q2: both find c (tie); q3: only B finds d
    # (A loses); q4 has no positive grade: excluded, so incomparable.
    a = _scored("A", {"q1": ["a", "b"], "q2": ["c"], "q3": ["x"], "q4": ["e"]}, contract)
    b = _scored("B", {"q1": ["b", "a"], "q2": ["c"], "q3": ["d"], "q4": ["e"]}, contract)
    comparison = compare_runs(a, b)
    outcomes = {row.query_id: row.outcome for row in comparison.rows}
    assert outcomes == {"q1": "win", "q2": "tie", "q3": "loss", "q4": "n/a"}
    assert (comparison.wins, comparison.ties, comparison.losses) == (1, 1, 1)
    assert comparison.incomparable == 1
    # largest difference first, the undefined one last
    assert [row.query_id for row in comparison.rows] == ["q1", "q2", "q3", "q4"]
    assert comparison.rows[2].difference == -1.0
    differences = [row.difference for row in comparison.rows[:3]]
    assert comparison.mean_difference == sum(d for d in differences if d is not None) / 3
    assert comparison.same_universe and comparison.same_contract


def test_a_difference_within_the_tolerance_is_a_tie_and_provenance_is_compared() -> None:
    contract = Contract(k=2, unjudged="zero")
    a = _scored("A", {"q1": ["a", "b"]}, contract)
    other = _scored("B", {"q1": ["a", "b"]}, contract.with_changes(k=3))
    moved = ScoredRun("B", other.evaluation, "another-digest", "B-digest")
    comparison = compare_runs(a, moved)
    assert comparison.rows[0].outcome == "tie"
    assert not comparison.same_universe
    assert not comparison.same_contract
