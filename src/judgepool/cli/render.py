"""Text renderings of results for the command line: aligned tables for people,
trec_eval-style lines for tools. Data text passes through `literal` first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from judgepool.core.auditing.audit import FINDING_KINDS, AuditReport
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.team.consensus import Provenance
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.measures import (
    CANDIDATE_NDCG,
    DCG,
    DUPLICATES,
    EXCLUDED,
    IDCG,
    JUDGED_AT_K,
    MISSING,
    NDCG,
    POOLED_NDCG,
    PRECISION,
    QUERIES,
    RECALL,
    RETURNED,
    RR,
    SCORED,
    TREC_EVAL_MEASURES,
    UNJUDGED_AT_K,
    UNKNOWN,
    ZERO_IDCG,
    Measure,
)
from judgepool.core.terms.types import QueryResult, Summary
from judgepool.display import literal

DETAILS_SHOWN = 20

# the columns of the score table: the means, then the counts
SCORE_COLUMNS: Final = (NDCG, POOLED_NDCG, CANDIDATE_NDCG, JUDGED_AT_K, PRECISION, RECALL, RR)
COUNT_COLUMNS: Final = (
    QUERIES, SCORED, ZERO_IDCG, EXCLUDED, MISSING, UNKNOWN, DUPLICATES, UNJUDGED_AT_K,
)  # fmt: skip


def fmt(value: float | None, places: int = 4) -> str:
    """A number for a table; a value that is not defined shows as ``-``."""
    return "-" if value is None else f"{value:.{places}f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int = 1) -> str:
    """Aligned columns: the first ``numeric_from`` columns left-aligned, the rest right."""
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.ljust(width) if i < numeric_from else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def contract_lines(contract: Contract) -> list[str]:
    """Every parameter of the contract, on two lines (an entity pattern is data)."""
    shown = [f"{name}={literal(value)}" for name, value in contract.shown()]
    half = (len(shown) + 1) // 2
    return [f"contract   {'  '.join(shown[:half])}", f"           {'  '.join(shown[half:])}"]


def rests_on_lines(provenance: Provenance | None) -> list[str]:
    """The line under ``judgments`` that says what they rest on (whose grades)."""
    return [] if provenance is None else [f"rests on   {literal(provenance.line())}"]


def render_score_table(
    results: Sequence[ScoredRun],
    qrels_label: str,
    per_query: bool = False,
    provenance: Provenance | None = None,
) -> str:
    """The summary of every run under one contract, with counts and provenance
    (``provenance``: whose grades the judgments are)."""
    if not results:
        return ""
    contract = results[0].contract
    k = contract.k
    out = [
        f"judgments  {literal(qrels_label)}  (qrels digest {results[0].qrels_digest[:12]})",
        *rests_on_lines(provenance),
        *contract_lines(contract),
        "",
    ]
    score_header = ["run", *(measure.label(k, short=True) for measure in SCORE_COLUMNS)]
    count_header = ["run", *(measure.label(k) for measure in COUNT_COLUMNS)]
    score_rows = []
    count_rows = []
    for result in results:
        s = result.evaluation.summary
        name = literal(result.run)
        score_rows.append([name, *(_cell(measure, s) for measure in SCORE_COLUMNS)])
        count_rows.append([name, *(_cell(measure, s) for measure in COUNT_COLUMNS)])
    out.append(table(score_header, score_rows))
    out.append("")
    out.append(table(count_header, count_rows))
    out.append("")
    out.append(
        f"{NDCG.label(k)}: macro mean over scored queries. {POOLED_NDCG.name}: ΣDCG/ΣIDCG, "
        "weighs queries by IDCG (not a mean)."
    )
    out.append(
        f"{CANDIDATE_NDCG.label(k, short=True)}: CANDIDATE-ONLY nDCG, ideal built from the run's "
        "own results; it rates the ordering of what was found, not retrieval quality."
    )
    for result in results:
        out.append(
            f"{literal(result.run)}: run digest {result.run_digest[:12]}  "
            f"fingerprint {result.fingerprint[:16]}"
        )
        unknown = result.evaluation.unknown_queries
        if unknown:
            shown = ", ".join(literal(q) for q in unknown[:DETAILS_SHOWN])
            more = (
                f" … and {len(unknown) - DETAILS_SHOWN} more"
                if len(unknown) > DETAILS_SHOWN
                else ""
            )
            out.append(f"  unknown queries (not scored): {shown}{more}")
    if per_query:
        for result in results:
            out.append("")
            out.append(f"per query: {literal(result.run)}")
            out.append(render_per_query(result.evaluation.per_query, k))
    return "\n".join(out)


def _cell(measure: Measure, values: Summary | QueryResult) -> str:
    """``measure``'s value in a record or summary, as the tables write it."""
    value: float | None = getattr(values, measure.field)
    return measure.shown(value)


def _flags(result: QueryResult) -> str:
    flags = [
        name
        for name, on in (
            (ZERO_IDCG.name, result.zero_idcg),
            (EXCLUDED.name, result.excluded),
            (MISSING.name, result.missing),
        )
        if on
    ]
    return ",".join(flags)


def render_per_query(per_query: Sequence[QueryResult], k: int) -> str:
    header = [
        "query",
        NDCG.label(k),
        DCG.name,
        IDCG.name,
        CANDIDATE_NDCG.short,
        "inflation",
        JUDGED_AT_K.label(k),
        UNJUDGED_AT_K.label(k),
        RETURNED.name,
        "flags",
    ]
    rows = []
    for r in per_query:
        inflation = (
            r.candidate_ndcg - r.ndcg
            if r.candidate_ndcg is not None and r.ndcg is not None
            else None
        )
        rows.append([
            literal(r.query_id),
            *(_cell(measure, r) for measure in (NDCG, DCG, IDCG, CANDIDATE_NDCG)),
            fmt(inflation),
            *(_cell(measure, r) for measure in (JUDGED_AT_K, UNJUDGED_AT_K, RETURNED)),
            _flags(r),
        ])  # fmt: skip
    return table(header, rows)


def render_trec(result: ScoredRun, per_query: bool = False) -> str:
    """trec_eval's ``measure<TAB>qid<TAB>value`` lines (values to 4 decimals, as
    trec_eval prints them), per query when asked, then ``all``."""
    k = result.contract.k
    names = [(measure.trec_name(k), measure) for measure in TREC_EVAL_MEASURES]
    lines: list[str] = []
    if per_query:
        for record in result.evaluation.per_query:
            for name, measure in names:
                value = getattr(record, measure.field)
                if value is not None:
                    lines.append(f"{name:<22}\t{literal(record.query_id)}\t{measure.shown(value)}")
    summary = result.evaluation.summary
    lines.append(f"{SCORED.trec_name(k):<22}\tall\t{SCORED.shown(summary.scored)}")
    for name, measure in names:
        value = getattr(summary, measure.field)
        if value is not None:
            lines.append(f"{name:<22}\tall\t{measure.shown(value)}")
    return "\n".join(lines) + "\n"


def render_audit_table(report: AuditReport) -> str:
    """Counts of every finding, then the first entries of each non-empty one."""
    data: dict[str, Any] = report.to_dict()
    findings: dict[str, list[Any]] = data["findings"]
    coverage = data["coverage"]
    out = [
        f"audit      {literal(str(data['run']))}  "
        f"({data['lines']} lines, {data['queries']} queries, k={data['k']})",
        f"coverage   judged@{data['k']} {fmt(coverage['judged_at_k'])}   "
        f"unjudged in top {data['k']}: {coverage['unjudged_at_k']}",
        "",
        table(["finding", "count"], [[kind, str(len(findings[kind]))] for kind in FINDING_KINDS]),
    ]
    for kind in FINDING_KINDS:
        entries = findings[kind]
        if not entries:
            continue
        out.append("")
        out.append(f"{kind}:")
        for entry in entries[:DETAILS_SHOWN]:
            out.append("  " + _describe(entry))
        if len(entries) > DETAILS_SHOWN:
            out.append(f"  … and {len(entries) - DETAILS_SHOWN} more (--format json lists all)")
    return "\n".join(out)


def _describe(entry: Any) -> str:
    if isinstance(entry, dict):
        return "  ".join(f"{key}={literal(_short(value))}" for key, value in entry.items())
    return literal(str(entry))


def _short(value: Any) -> str:
    if isinstance(value, list):
        text = ",".join(str(v) for v in value[:10])
        return text + (f",…(+{len(value) - 10})" if len(value) > 10 else "")
    return str(value)
