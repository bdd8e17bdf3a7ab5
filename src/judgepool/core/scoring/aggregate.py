"""Scoring a whole run: the population of queries, the policies that decide who is
in the mean, and the summary (macro mean, pooled ratio, every count).

The two engines (`evaluate` here, the reference over `RunEntry` lines, and
`core.fast.engine.evaluate_columns`) differ only in how they score the judged queries
a run returned (a `ReturnedQueries`); `evaluate_returned` does the rest for
both: the refusals, the judged queries the run lacks, the unknown ones, and
the summary. So both report the population the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, assert_never

from judgepool.core.scoring.metrics import score_missing_query, score_query
from judgepool.core.scoring.ranking import FormedList, form_list
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import (
    ContractError,
    DuplicateEntry,
    DuplicatesRejected,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.core.terms.types import Evaluation, Judgments, QueryResult, RunEntry, Summary


def group_by_query(entries: Iterable[RunEntry]) -> dict[str, list[RunEntry]]:
    """The run's lines per query, each query's lines in source order."""
    grouped: dict[str, list[RunEntry]] = {}
    for entry in entries:
        grouped.setdefault(entry.query_id, []).append(entry)
    return grouped


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def summarise(per_query: Sequence[QueryResult], unknown_queries: Sequence[str]) -> Summary:
    """The summary over the judged queries' records (unknown queries are only counted)."""
    scored = [r for r in per_query if not r.excluded]
    idcg_total = sum(r.idcg for r in scored)
    dcg_total = sum(r.dcg for r in scored)
    if not (math.isfinite(idcg_total) and math.isfinite(dcg_total)):
        # each query's DCG is finite (the contract bounds gain × k); their sum
        # over many queries may not be, and would print as nan or inf
        raise ContractError(
            f"the sum of DCG over the {len(scored)} scored queries overflows: the gains are "
            "too large for this many queries; choose smaller gains"
        )
    return Summary(
        queries=len(per_query) + len(unknown_queries),
        scored=len(scored),
        zero_idcg=sum(1 for r in per_query if r.zero_idcg),
        excluded=sum(1 for r in per_query if r.excluded),
        missing=sum(1 for r in per_query if r.missing),
        unknown=len(unknown_queries),
        duplicates=sum(r.duplicates for r in per_query),
        unjudged_at_k=sum(r.unjudged_at_k for r in per_query),
        ndcg=_mean(r.ndcg for r in scored),
        # ΣDCG / ΣIDCG over the same population: a ratio that weighs queries
        # by their IDCG, reported beside the mean and never as "the mean".
        ndcg_pooled=dcg_total / idcg_total if idcg_total > 0 else None,
        candidate_ndcg=_mean(r.candidate_ndcg for r in scored),
        judged_at_k=_mean(r.judged_at_k for r in scored),
        recall=_mean(r.recall for r in scored),
        precision=_mean(r.precision for r in scored),
        rr=_mean(r.rr for r in scored),
    )


@dataclass(frozen=True)
class ReturnedScores:
    """An engine's scores of the judged queries a run returned."""

    results: Mapping[str, QueryResult]  # by query ID
    # the unjudged documents in the top k, by query ID then rank: required
    # under unjudged=reject (which refuses the run if there is one)
    unjudged: Sequence[UnjudgedEntry]


class ReturnedQueries(Protocol):
    """What an engine computes: the judged queries a run returned. Everything
    else about an evaluation is `evaluate_returned`'s, shared by both engines."""

    def query_ids(self) -> Iterable[str]:
        """Every query ID of the run, judged or not."""
        ...

    def duplicates(self) -> Sequence[DuplicateEntry]:
        """Every (query, entity) a judged query repeats, by query ID then the
        kept copy's rank: required under duplicates=reject."""
        ...

    def score(self) -> ReturnedScores:
        """Score every judged query the run returned."""
        ...


def evaluate_returned(
    returned: ReturnedQueries,
    judgments: Judgments,
    contract: Contract,
    source: str | None = None,
) -> Evaluation:
    """The `Evaluation` of a run whose returned judged queries an engine scores.

    Raises `DuplicatesRejected` / `UnjudgedRejected` when a ``reject`` policy
    refuses the run, listing every offending entry across all judged queries.
    """
    match contract.duplicates:
        case "reject":
            duplicates = returned.duplicates()
            if duplicates:
                raise DuplicatesRejected(duplicates, source)
        case "first":
            pass  # the engines dropped the later copies
        case _:
            assert_never(contract.duplicates)
    scores = returned.score()
    match contract.unjudged:
        case "reject":
            if scores.unjudged:
                raise UnjudgedRejected(scores.unjudged, source)
        case "zero" | "condense":
            pass  # the engines scored the unjudged documents as the policy says
        case _:
            assert_never(contract.unjudged)
    per_query: list[QueryResult] = []
    for query_id in sorted(judgments):
        result = scores.results.get(query_id)
        if result is None:  # a judged query the run did not return
            result = score_missing_query(query_id, judgments[query_id], contract)
        per_query.append(result)
    unknown = sorted(q for q in returned.query_ids() if q not in judgments)
    return assemble(contract, per_query, unknown)


class _ReferenceQueries:
    """The reference engine's part: every judged query's list formed
    (`ranking.form_list`), then scored (`metrics.score_query`)."""

    def __init__(
        self, run: Mapping[str, Sequence[RunEntry]], judgments: Judgments, contract: Contract
    ) -> None:
        self._run = run
        self._judgments = judgments
        self._contract = contract
        self._formed: dict[str, FormedList] = {
            query_id: form_list(query_id, run[query_id], judgments[query_id], contract)
            for query_id in sorted(judgments)
            if run.get(query_id)
        }

    def query_ids(self) -> Iterable[str]:
        return self._run.keys()

    def duplicates(self) -> Sequence[DuplicateEntry]:
        return [entry for formed in self._formed.values() for entry in formed.duplicates]

    def score(self) -> ReturnedScores:
        results = {
            query_id: score_query(query_id, formed, self._judgments[query_id], self._contract)
            for query_id, formed in self._formed.items()
        }
        unjudged = [entry for formed in self._formed.values() for entry in formed.unjudged_in_top_k]
        return ReturnedScores(results, unjudged)


def evaluate(
    run: Mapping[str, Sequence[RunEntry]],
    judgments: Judgments,
    contract: Contract,
    source: str | None = None,
) -> Evaluation:
    """Score a run (lines grouped by query) against the judgments.

    Raises `DuplicatesRejected` / `UnjudgedRejected` when a ``reject`` policy
    refuses the run, listing every offending entry across all queries.
    """
    return evaluate_returned(
        _ReferenceQueries(run, judgments, contract), judgments, contract, source
    )


def assemble(
    contract: Contract, per_query: Sequence[QueryResult], unknown_queries: Sequence[str]
) -> Evaluation:
    """The `Evaluation` of the judged queries' records: shared by both engines so
    that they report the population (summary, missing, unknown) the same way."""
    return Evaluation(
        contract=contract,
        summary=summarise(per_query, unknown_queries),
        per_query=tuple(per_query),
        unknown_queries=tuple(unknown_queries),
        missing_queries=tuple(r.query_id for r in per_query if r.missing),
    )
