"""The audit screen's widgets: the run's summary and finding counts, the
per-query table (worst first), the holes of the highlighted query, and the
details of its findings.

- `AuditSummary`: the run, its lines and queries, coverage (mean judged@k and
  the unjudged count in the top k), its nDCG@k under the active contract (or
  why the contract refuses it), and the count of every finding kind.
- `AuditQueryTable`: one row per query, the order `judgepool.core.auditing.query_audit`
  gives (lowest judged@k first, then the most findings).
- `HoleTable`: the highlighted query's unjudged documents in the top k, by
  rank; the screen sends the highlighted one to grading.
- `AuditDetails`: every finding entry of the highlighted query (tie groups,
  duplicate lines, rank disagreements) and the run-wide lists (bad lines,
  unknown and missing queries).

IDs are data: every cell and line here is a `Text` made through `literal`.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from judgepool.core.auditing.audit import FINDING_KINDS, AuditReport
from judgepool.core.auditing.query_audit import QueryAudit
from judgepool.core.terms.measures import (
    CANDIDATE_NDCG,
    JUDGED_AT_K,
    NDCG,
    POOLED_NDCG,
    UNJUDGED_AT_K,
)
from judgepool.display import literal
from judgepool.services.review import RunAudit
from judgepool.tui.widgets.audit_status import status_cell
from judgepool.tui.widgets.score_format import count, data, fill_table, flag, number

# Entries of one list shown in the details before "… and N more".
SHOWN: Final = 8


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def summary_text(audit: RunAudit) -> Text:
    """The run's audit in a few lines."""
    report = audit.report
    k = report.k
    text = Text()
    text.append("run ", style="dim")
    text.append(literal(audit.run), style="bold")
    text.append(f"   {report.lines} lines, {report.queries} queries", style="dim")
    text.append("\ncoverage ", style="dim")
    text.append(f"{JUDGED_AT_K.label(k)} {_fmt(report.coverage.judged_at_k)}", style="bold cyan")
    text.append(f"   unjudged in top {k}: ", style="dim")
    unjudged = report.coverage.unjudged_at_k
    text.append(str(unjudged), style="bold red" if unjudged else "bold green")
    text.append("   score ", style="dim")
    evaluation = audit.score.evaluation
    if evaluation is None:
        text.append("refused by the contract: ", style="bold red")
        text.append(literal(audit.score.reason or "refused"), style="red")
    else:
        s = evaluation.summary
        text.append(f"{NDCG.label(k)} {_fmt(s.ndcg)}", style="bold cyan")
        text.append(
            f"  {POOLED_NDCG.name} {_fmt(s.ndcg_pooled)}  "
            f"{CANDIDATE_NDCG.name} {_fmt(s.candidate_ndcg)}"
        )
    text.append("\nfindings ", style="dim")
    findings = report.findings
    for index, kind in enumerate(FINDING_KINDS):
        if index:
            text.append("  ")
        number_of = len(findings.of_kind(kind))
        text.append(f"{kind} ", style="dim")
        text.append(str(number_of), style="bold yellow" if number_of else "green")
    return text


class AuditSummary(Static):
    """The audited run at a glance."""

    DEFAULT_CSS = """
    AuditSummary {
        height: auto;
        padding: 0 1;
        border: round $primary-darken-2;
    }
    """

    def show(self, audit: RunAudit) -> None:
        self.update(summary_text(audit))


def query_cells(query: QueryAudit) -> list[Text]:
    ties = str(query.ties) if not query.ties_crossing else f"{query.ties} ({query.ties_crossing}×k)"
    return [
        data(query.query_id),
        status_cell(query),
        number(query.judged_at_k, style="bold"),
        count(len(query.holes)),
        count(query.duplicates),
        Text(ties, style="yellow" if query.ties else "", justify="right"),
        count(query.rank_disagreements),
        flag(query.short, f"{query.returned}"),
        flag(query.zero_idcg, "zero-IDCG"),
        number(query.ndcg),
    ]


class AuditQueryTable(DataTable[Text]):
    """The run's queries, worst first."""

    DEFAULT_CSS = """
    AuditQueryTable {
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def show(self, audit: RunAudit, keep: str | None = None) -> None:
        k = audit.report.k
        columns = [
            (key, Text(label, style="bold"))
            for key, label in (
                ("query", "query"),
                ("status", "status"),
                ("judged", JUDGED_AT_K.label(k)),
                ("holes", UNJUDGED_AT_K.label(k)),
                ("duplicates", "duplicates"),
                ("ties", "ties"),
                ("rank", "rank≠score"),
                ("short", f"short (<{k})"),
                ("zero", "zero-IDCG"),
                ("ndcg", NDCG.label(k)),
            )
        ]
        fill_table(self, columns, [(q.query_id, query_cells(q)) for q in audit.queries])
        ids = [q.query_id for q in audit.queries]
        if keep is not None and keep in ids:
            self.move_cursor(row=ids.index(keep), scroll=True)

    @property
    def current_query(self) -> str | None:
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return None if key.value is None else str(key.value)


class HoleTable(DataTable[Text]):
    """The unjudged documents in the top k of one query; enter selects one
    (the screen sends it to grading)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "select_cursor",
            "judge hole",
            show=True,
            tooltip="Send this unjudged document to grading",
        ),
    ]

    DEFAULT_CSS = """
    HoleTable {
        width: 1fr;
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row")
        self.query_id: str | None = None
        self._docs: list[str] = []

    def show(self, query: QueryAudit | None) -> None:
        self.query_id = query.query_id if query is not None else None
        holes = query.holes if query is not None else ()
        self._docs = [hole.doc_id for hole in holes]
        fill_table(
            self,
            [
                ("rank", Text("rank", style="bold")),
                ("doc", Text("unjudged document", style="bold")),
            ],
            [
                (str(hole.rank), [Text(str(hole.rank), justify="right"), data(hole.doc_id)])
                for hole in holes
            ],
        )

    @property
    def current_hole(self) -> tuple[str, str] | None:
        """(query ID, document ID) of the highlighted hole."""
        if self.query_id is None or not self._docs:
            return None
        row = min(self.cursor_row, len(self._docs) - 1)
        return self.query_id, self._docs[row]


def _more(shown: int, total: int) -> str:
    return f"  … and {total - shown} more\n" if total > shown else ""


def _query_lines(report: AuditReport, query: QueryAudit) -> Text:
    """Every finding entry of one query, a line each."""
    findings = report.findings
    k = report.k
    text = Text()
    text.append("query ", style="dim")
    text.append(literal(query.query_id), style="bold")
    text.append("\n")
    if query.status == "unknown":
        text.append("  unknown: the judgments know nothing of this query\n", style="bold red")
    if query.status == "missing":
        text.append("  missing: judged, but the run did not return it\n", style="bold yellow")
    if query.holes:
        text.append(f"  {len(query.holes)} unjudged in the top {k}\n", style="yellow")
    if query.short:
        text.append(f"  short list: {query.returned} returned (fewer than k={k})\n", style="yellow")
    if query.zero_idcg:
        text.append("  zero IDCG: no judged document has a positive grade\n", style="yellow")
    ties = [t for t in findings.ties if t.query_id == query.query_id]
    for tie in ties[:SHOWN]:
        text.append(f"  tie at score {tie.score:g}: ", style="yellow")
        text.append(literal(", ".join(tie.doc_ids)))
        if tie.crosses_cutoff:
            text.append(f"  (crosses the cutoff {k})", style="bold yellow")
        text.append("\n")
    text.append(_more(SHOWN, len(ties)))
    duplicates = [d for d in findings.duplicates if d.query_id == query.query_id]
    for duplicate in duplicates[:SHOWN]:
        text.append("  duplicate ", style="yellow")
        text.append(literal(duplicate.doc_id))
        text.append(f" at lines {', '.join(map(str, duplicate.lines))}\n")
    text.append(_more(SHOWN, len(duplicates)))
    for disagreement in findings.rank_disagreements:
        if disagreement.query_id == query.query_id:
            text.append("  rank column disagrees with the scores", style="yellow")
            text.append(f" on {disagreement.involved} line(s), e.g. lines ")
            text.append(", ".join(map(str, disagreement.lines[:SHOWN])) + "\n")
    if not query.finding_kinds:
        text.append("  nothing to report\n", style="green")
    return text


def details_text(report: AuditReport, query: QueryAudit | None) -> Text:
    """The findings of one query, then the run-wide lists."""
    findings = report.findings
    text = _query_lines(report, query) if query is not None else Text()
    text.append("run ", style="dim")
    text.append(f"bad lines {len(findings.bad_lines)}", style="bold" if findings.bad_lines else "")
    for bad in findings.bad_lines[:SHOWN]:
        text.append(f"\n  line {bad.line}: ")
        text.append(literal(bad.message))
    if len(findings.bad_lines) > SHOWN:
        text.append(f"\n  … and {len(findings.bad_lines) - SHOWN} more")
    for label, ids in (
        ("unknown queries", findings.unknown_queries),
        ("missing queries", findings.missing_queries),
        ("zero-IDCG queries", findings.zero_idcg_queries),
    ):
        text.append(f"\n{label} {len(ids)}", style="bold" if ids else "")
        if ids:
            text.append(": ")
            text.append(literal(", ".join(ids[:SHOWN])))
            if len(ids) > SHOWN:
                text.append(f" … and {len(ids) - SHOWN} more")
    return text


class AuditDetails(Static):
    """Every finding of the highlighted query and the run-wide lists."""

    DEFAULT_CSS = """
    AuditDetails {
        width: 2fr;
        height: 1fr;
        padding: 0 1;
        overflow-y: auto;
    }
    """

    def show(self, report: AuditReport, query: QueryAudit | None) -> None:
        self.update(details_text(report, query))
