"""Two scored runs compared query by query: wins, ties and losses from run A's side."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from judgepool.core.scoring.scored_run import ScoredRun

# Two per-query nDCG values closer than this are a tie in a comparison: the
# same ranking scored twice can differ in the last bits of a float sum.
TIE_TOLERANCE: Final = 1e-9


@dataclass(frozen=True)
class QueryComparison:
    """One query's nDCG in two runs; ``difference`` is A − B."""

    query_id: str
    a: float | None
    b: float | None
    difference: float | None
    outcome: str  # "win" (A better), "tie", "loss" (A worse) or "n/a"


@dataclass(frozen=True)
class Comparison:
    """Two runs query by query: wins, ties and losses are counted from run A's side."""

    run_a: str
    run_b: str
    rows: tuple[QueryComparison, ...]
    wins: int
    ties: int
    losses: int
    incomparable: int
    mean_difference: float | None
    same_universe: bool
    same_contract: bool


def _outcome(difference: float, tolerance: float) -> str:
    if abs(difference) <= tolerance:
        return "tie"
    return "win" if difference > 0 else "loss"


def compare_runs(a: ScoredRun, b: ScoredRun, *, tolerance: float = TIE_TOLERANCE) -> Comparison:
    """Compare two scored runs on every judged query either of them has a record
    for, largest difference (A − B) first. A query whose nDCG is undefined in
    either run (left out of its mean) is counted as incomparable."""
    values_a = {r.query_id: r.ndcg for r in a.evaluation.per_query}
    values_b = {r.query_id: r.ndcg for r in b.evaluation.per_query}
    rows: list[QueryComparison] = []
    for query_id in sorted(set(values_a) | set(values_b)):
        va, vb = values_a.get(query_id), values_b.get(query_id)
        if va is None or vb is None:
            rows.append(QueryComparison(query_id, va, vb, None, "n/a"))
            continue
        difference = va - vb
        rows.append(QueryComparison(query_id, va, vb, difference, _outcome(difference, tolerance)))
    rows.sort(key=lambda r: (r.difference is None, -(r.difference or 0.0), r.query_id))
    differences = [r.difference for r in rows if r.difference is not None]
    return Comparison(
        run_a=a.run,
        run_b=b.run,
        rows=tuple(rows),
        wins=sum(1 for r in rows if r.outcome == "win"),
        ties=sum(1 for r in rows if r.outcome == "tie"),
        losses=sum(1 for r in rows if r.outcome == "loss"),
        incomparable=sum(1 for r in rows if r.outcome == "n/a"),
        mean_difference=math.fsum(differences) / len(differences) if differences else None,
        same_universe=a.qrels_digest == b.qrels_digest,
        same_contract=a.contract == b.contract,
    )
