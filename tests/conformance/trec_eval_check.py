"""The comparison of one trec_eval conformance case with its oracle: every
cutoff the oracle holds evaluated once, every per-query and mean line compared
within trec_eval's printed precision (`Outcome` keeps the counts and every
mismatch), with the allowances `test_trec_eval`'s docstring explains.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from judgepool.core.scoring.ranking import order_entries
from judgepool.core.terms.contract import preset
from judgepool.core.terms.types import Evaluation, QueryResult
from tests.conformance.trec_eval_cases import (
    Case,
    Oracle,
    grouped_run,
    judgments_of,
    load_oracle,
    run_queries,
)
from tests.conformance.trec_eval_paths import Evaluator

# trec_eval prints %.4f: a correct value is within half a unit of the last digit.
TOLERANCE = 5e-5 + 1e-12

CUTOFF = re.compile(r"^(ndcg_cut|P|recall|unj)_(\d+)$")


@dataclass
class Outcome:
    """What one case compared: counts, the largest difference, every mismatch."""

    values: int = 0
    seen: set[tuple[str, str]] = field(default_factory=set)
    max_diff: float = 0.0
    recall_undefined: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)

    def compare(self, measure: str, query: str, ours: float | None, printed: str) -> None:
        self.values += 1
        self.seen.add((measure, query))
        if ours is None:
            self.mismatches.append(f"{measure} {query}: ours None, trec_eval {printed}")
            return
        diff = abs(ours - float(printed))
        self.max_diff = max(self.max_diff, diff)
        if diff > TOLERANCE:
            self.mismatches.append(f"{measure} {query}: ours {ours:.6f}, trec_eval {printed}")


def cutoffs(oracle: Oracle) -> list[int]:
    return sorted({int(m.group(2)) for name in oracle if (m := CUTOFF.match(name))})


@cache
def judged_negative_in_top(case: Case, k: int) -> dict[str, int]:
    """Per query, the documents judged below 0 among the top k in trec_eval's
    order: what trec_eval's unj_k counts beyond our unjudged_at_k."""
    if case.scale.minimum >= 0:
        return {}
    judgments = judgments_of(case.qrels, case.scale)
    counts: dict[str, int] = {}
    for query, entries in grouped_run(case.run_file).items():
        grades = judgments.get(query, {})
        top = order_entries(entries, "trec_eval")[:k]
        counts[query] = sum(1 for e in top if grades.get(e.doc_id, 0) < 0)
    return counts


def check_case(case: Case, evaluator: Evaluator, preset_name: str = "trec_eval") -> Outcome:
    oracle = load_oracle(case)
    outcome = Outcome()
    judged: set[str] | None = None
    for k in cutoffs(oracle):
        contract = preset(preset_name, k=k, scale=case.scale, relevant_from=case.level)
        evaluation = evaluator(contract)
        results = {r.query_id: r for r in evaluation.per_query}
        if judged is None:
            judged = set(results)
            expected = judged if case.complete else judged & run_queries(case)
            # Without -c trec_eval averages over judged ∩ run; our mean (missing
            # = zero) is over every judged query. Same population only if equal.
            assert expected == judged, f"{case.id}: judged queries absent from the run"
            for measure in ("ndcg_cut", "P", "recall", "unj", "recip_rank", "num_ret"):
                for name, values in oracle.items():
                    if name == measure or name.startswith(measure + "_"):
                        listed = set(values) - {"all"}
                        assert listed == expected, f"{case.id} {name}: query sets differ"
            _check_list_measures(case, oracle, results, outcome)
            if "num_q" in oracle:
                assert int(oracle["num_q"]["all"]) == evaluation.summary.scored
        _check_cut_measures(case, oracle, k, evaluation, results, outcome)
    return outcome


def _check_list_measures(
    case: Case, oracle: Oracle, results: dict[str, QueryResult], outcome: Outcome
) -> None:
    """Measures over the whole formed list, whatever k: recip_rank and num_ret."""
    for query, printed in oracle.get("recip_rank", {}).items():
        if query != "all":
            outcome.compare("recip_rank", query, results[query].rr, printed)
    for query, printed in oracle.get("num_ret", {}).items():
        # -M1000 would show here: trec_eval's num_ret counts what it kept
        ours = (
            sum(r.returned for r in results.values()) if query == "all" else results[query].returned
        )
        outcome.compare("num_ret", query, float(ours), printed)


def _check_cut_measures(
    case: Case,
    oracle: Oracle,
    k: int,
    evaluation: Evaluation,
    results: dict[str, QueryResult],
    outcome: Outcome,
) -> None:
    summary = evaluation.summary
    negative = judged_negative_in_top(case, k)
    per_query: dict[str, Callable[[QueryResult], float | None]] = {
        "ndcg_cut": lambda r: r.ndcg,
        "P": lambda r: r.precision,
        "recall": lambda r: r.recall,
        # trec_eval's unj_k divides by k (ours is a count) and counts grades < 0 in
        "unj": lambda r: (r.unjudged_at_k + negative.get(r.query_id, 0)) / k,
    }
    means: dict[str, float | None] = {
        "ndcg_cut": summary.ndcg,
        "P": summary.precision,
        "unj": (summary.unjudged_at_k + sum(negative.get(q, 0) for q in results))
        / k
        / summary.scored,
    }
    for measure, ours_of in per_query.items():
        name = f"{measure}_{k}"
        for query, printed in oracle.get(name, {}).items():
            if query == "all":
                if measure in means:
                    outcome.compare(name, query, means[measure], printed)
                continue
            ours = ours_of(results[query])
            # undefined for us, 0 for trec_eval: allowed only when nothing is relevant
            if (
                measure == "recall"
                and ours is None
                and float(printed) == 0.0
                and oracle["num_rel"][query] == "0"
            ):
                outcome.recall_undefined.append(query)
                outcome.seen.add((name, query))
                continue
            outcome.compare(name, query, ours, printed)
    if k == cutoffs(oracle)[0] and "recip_rank" in oracle and "all" in oracle["recip_rank"]:
        outcome.compare("recip_rank", "all", summary.rr, oracle["recip_rank"]["all"])
