"""The audit of a run seen query by query: one `QueryAudit` per query, worst first.

The audit report (`judgepool.core.auditing.audit`) lists findings by kind; the audit
screen lists queries, each with its coverage of the top k, its holes (the
unjudged documents in its top k) and the kinds of findings it takes part in,
the query whose score means least first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judgepool.core.auditing.audit import AuditReport, audit_contract
from judgepool.core.scoring.ranking import form_list
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import UnjudgedEntry
from judgepool.core.terms.types import Evaluation, RunEntry


@dataclass(frozen=True)
class QueryAudit:
    """One query of a run as the audit sees it.

    ``status`` is ``judged`` (the judgments know it and the run returned it),
    ``unknown`` (the run returned it, the judgments do not know it: every
    document is a hole) or ``missing`` (judged, absent from the run).
    ``holes`` are the unjudged documents in the top k, best rank first.
    """

    query_id: str
    status: str
    returned: int
    judged_at_k: float | None
    holes: tuple[UnjudgedEntry, ...]
    duplicates: int
    ties: int
    ties_crossing: int
    rank_disagreements: int
    short: bool
    zero_idcg: bool
    ndcg: float | None

    @property
    def finding_kinds(self) -> tuple[str, ...]:
        """The finding kinds this query takes part in, by their JSON names."""
        kinds: list[str] = []
        if self.status == "unknown":
            kinds.append("unknown_queries")
        if self.status == "missing":
            kinds.append("missing_queries")
        if self.holes and self.status == "judged":
            kinds.append("unjudged")
        if self.duplicates:
            kinds.append("duplicates")
        if self.ties:
            kinds.append("ties")
        if self.rank_disagreements:
            kinds.append("rank_disagreements")
        if self.short:
            kinds.append("short_lists")
        if self.zero_idcg:
            kinds.append("zero_idcg_queries")
        return tuple(kinds)


def _worst_first(query: QueryAudit) -> tuple[float, int, int, str]:
    # Coverage first: a query whose top k is least judged is the one whose
    # score means least, and the one judging can fix (an unknown query has
    # judged@k 0). A query the run skipped has no top k to judge: it comes
    # after every query with holes, among the fully judged ones. Then the
    # query with the most kinds of findings.
    coverage = query.judged_at_k if query.judged_at_k is not None else 1.0
    return (coverage, -len(query.finding_kinds), -len(query.holes), query.query_id)


def unknown_query_holes(
    report: AuditReport, entries: Mapping[str, Sequence[RunEntry]], contract: Contract
) -> dict[str, tuple[UnjudgedEntry, ...]]:
    """The holes of each unknown query of ``report`` (its top k: every document
    unjudged), from ``entries``, the run's lines by query (what the reference
    audit gives; the columnar audit finds them on its way:
    `judgepool.core.fast.audit.AuditPart.unknown_holes`)."""
    effective = audit_contract(report.k, contract)
    unknown = set(report.findings.unknown_queries)
    return {
        query_id: tuple(form_list(query_id, lines, {}, effective).unjudged_in_top_k)
        for query_id, lines in entries.items()
        if query_id in unknown
    }


def audit_queries(
    report: AuditReport,
    judgments: Mapping[str, Mapping[str, int]],
    contract: Contract,
    *,
    evaluation: Evaluation | None = None,
    unknown_entries: Mapping[str, Sequence[RunEntry]] | None = None,
    unknown_holes: Mapping[str, Sequence[UnjudgedEntry]] | None = None,
) -> list[QueryAudit]:
    """One `QueryAudit` per query of the run and per judged query it skipped,
    worst first (see `_worst_first`).

    ``report`` must be the audit of the run against ``judgments`` at the
    contract's k; ``evaluation``, when given, supplies each query's nDCG;
    ``unknown_entries`` (the run's lines of its unknown queries, by query)
    supplies their holes: the audit lists an unknown query once rather than
    each of its documents, but to judge it, its top k is what matters.
    ``unknown_holes`` gives those holes directly instead (the columnar audit
    finds them: `judgepool.core.fast.audit.AuditPart.unknown_holes`).
    """
    k = report.k
    findings = report.findings
    holes: dict[str, list[UnjudgedEntry]] = {}
    for hole in findings.unjudged:
        holes.setdefault(hole.query_id, []).append(hole)
    from_lines = unknown_query_holes(report, unknown_entries or {}, contract)
    for query_id, formed in from_lines.items():
        holes[query_id] = list(formed)
    for query_id, found in (unknown_holes or {}).items():
        if query_id in findings.unknown_queries:
            holes[query_id] = list(found)
    duplicates: dict[str, int] = {}
    for duplicate in findings.duplicates:
        duplicates[duplicate.query_id] = duplicates.get(duplicate.query_id, 0) + 1
    ties: dict[str, int] = {}
    crossing: dict[str, int] = {}
    for tie in findings.ties:
        ties[tie.query_id] = ties.get(tie.query_id, 0) + 1
        if tie.crosses_cutoff:
            crossing[tie.query_id] = crossing.get(tie.query_id, 0) + 1
    disagreements = {d.query_id: d.involved or len(d.lines) for d in findings.rank_disagreements}
    short = {s.query_id: s.returned for s in findings.short_lists}
    zero = set(findings.zero_idcg_queries)
    unknown = set(findings.unknown_queries)
    ndcg: dict[str, float | None] = {}
    if evaluation is not None:
        ndcg = {r.query_id: r.ndcg for r in evaluation.per_query}

    rows: list[QueryAudit] = []
    missing = set(findings.missing_queries)
    in_run = (set(judgments) - missing) | set(findings.unknown_queries)
    for query_id in sorted(in_run | missing):
        if query_id in in_run:
            status = "unknown" if query_id in unknown else "judged"
            # The audit names every list shorter than k with its length after
            # duplicate handling; any other list fills the top k.
            returned = short.get(query_id, k)
            query_holes = tuple(sorted(holes.get(query_id, ()), key=lambda h: h.rank))
            top = min(k, returned)
            coverage: float | None = (top - len(query_holes)) / top if top else None
        else:
            status, returned, query_holes, coverage = "missing", 0, (), None
        rows.append(
            QueryAudit(
                query_id=query_id,
                status=status,
                returned=returned,
                judged_at_k=coverage,
                holes=query_holes,
                duplicates=duplicates.get(query_id, 0),
                ties=ties.get(query_id, 0),
                ties_crossing=crossing.get(query_id, 0),
                rank_disagreements=disagreements.get(query_id, 0),
                short=query_id in short,
                zero_idcg=query_id in zero,
                ndcg=ndcg.get(query_id),
            )
        )
    rows.sort(key=_worst_first)
    return rows
