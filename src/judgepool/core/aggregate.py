"""Scoring a whole run: the population of queries, the policies that decide who is
in the mean, and the summary (macro mean, pooled ratio, every count).

`evaluate` is the reference path over `RunEntry` lines; `summarise` is shared
with the fast path so both report the population the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from judgepool.core.contract import Contract
from judgepool.core.errors import (
    ContractError,
    DuplicateEntry,
    DuplicatesRejected,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.core.metrics import score_missing_query, score_query
from judgepool.core.ranking import form_list
from judgepool.core.types import Evaluation, Judgments, QueryResult, RunEntry, Summary


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
    duplicates: list[DuplicateEntry] = []
    unjudged: list[UnjudgedEntry] = []
    per_query: list[QueryResult] = []
    for query_id in sorted(judgments):
        judged = judgments[query_id]
        entries = run.get(query_id)
        if not entries:
            per_query.append(score_missing_query(query_id, judged, contract))
            continue
        formed = form_list(query_id, entries, judged, contract)
        duplicates.extend(formed.duplicates)
        unjudged.extend(formed.unjudged_in_top_k)
        per_query.append(score_query(query_id, formed, judged, contract))
    unknown = sorted(q for q in run if q not in judgments)
    if contract.duplicates == "reject" and duplicates:
        raise DuplicatesRejected(duplicates, source)
    if contract.unjudged == "reject" and unjudged:
        raise UnjudgedRejected(unjudged, source)
    return assemble(contract, per_query, unknown)


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
