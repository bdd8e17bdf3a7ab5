"""The review use cases behind the app's audit and scores screens.

Everything here works on a workspace (or on values already computed from one)
and returns plain frozen values that a screen can show as they are:

- `score_workspace_runs`: every run (or the named ones) scored against the
  workspace's judgments under one contract, as a `Scoreboard`. A run that a
  ``reject`` policy refuses is kept in the board with the refusal's message, so
  one refused run never hides the others. Each run is scored by
  `judgepool.services.scoring.score_stored_run` (fast engine), the function
  ``judgepool score --workspace`` calls, on the same judgments
  (`workspace_judgments` under the workspace's consensus rule).
- `audit_workspace_run`: a run's audit report (`audit_stored_run`, as
  ``judgepool audit --workspace``), its score under the contract, and one
  `QueryAudit` per query, worst first.
- `drill_down`: one query of one run, its ranked list with grades beside the
  ideal list, and its per-query record.
- `compare_runs`, `ndcg_histogram`, `sort_results`, `inflation`: pure
  helpers over evaluations that the screens show.

Nothing here imports Textual or Rich: the screens call these functions from
thread workers, so each function opens nothing itself but takes a `Workspace`
the worker opened for its own thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from judgepool.core.aggregate import group_by_query
from judgepool.core.audit import AuditReport, audit_contract
from judgepool.core.contract import Contract
from judgepool.core.errors import (
    DuplicatesRejected,
    PolicyError,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.core.metrics import discount, score_missing_query, score_query
from judgepool.core.ranking import form_list
from judgepool.core.types import Evaluation, QueryResult, RunEntry
from judgepool.services.scoring import ScoredRun, audit_stored_run, score_stored_run
from judgepool.services.workspace import (
    Workspace,
    list_runs,
    load_run_entries,
    workspace_judgments,
)

# Called with a short description of the stage being worked on.
StageCallback = Callable[[str], None]

# Two per-query nDCG values closer than this are a tie in a comparison: the
# same ranking scored twice can differ in the last bits of a float sum.
TIE_TOLERANCE: Final = 1e-9


def _quiet(_: str) -> None:
    pass


# -- scoring -------------------------------------------------------------------------


@dataclass(frozen=True)
class RunScore:
    """One run under the contract: its `ScoredRun`, or why the contract refused it
    (``refusal`` the full message, listing every entry; ``reason`` one line)."""

    run: str
    scored: ScoredRun | None
    refusal: str | None = None
    reason: str | None = None

    @classmethod
    def refused(cls, run: str, error: PolicyError) -> RunScore:
        if isinstance(error, UnjudgedRejected):
            reason = f"unjudged=reject and {len(error.entries)} unjudged document(s) in the top k"
        elif isinstance(error, DuplicatesRejected):
            reason = f"duplicates=reject and {len(error.entries)} duplicate document(s)"
        else:
            reason = str(error).splitlines()[0]
        return cls(run, None, str(error), reason)

    @property
    def evaluation(self) -> Evaluation | None:
        return self.scored.evaluation if self.scored is not None else None


@dataclass(frozen=True)
class Scoreboard:
    """Every run scored against one judged universe under one contract."""

    contract: Contract
    rule: str | None
    qrels_digest: str
    judged_queries: int
    judgments: int
    runs: tuple[RunScore, ...]

    def run(self, name: str) -> RunScore:
        for score in self.runs:
            if score.run == name:
                return score
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(score.run for score in self.runs)


def score_workspace_runs(
    ws: Workspace,
    contract: Contract,
    *,
    runs: Sequence[str] | None = None,
    rule: str | None = None,
    on_progress: StageCallback = _quiet,
) -> Scoreboard:
    """Score the named runs (every stored run when None) against the workspace's
    judgments under ``rule`` (None: the workspace's default consensus)."""
    on_progress("reading judgments")
    judgments, digest = workspace_judgments(ws, rule)
    names = list(runs) if runs is not None else [run.name for run in list_runs(ws)]
    scores: list[RunScore] = []
    for number, name in enumerate(names, start=1):
        on_progress(f"scoring {name} ({number}/{len(names)})")
        try:
            scored = score_stored_run(ws, name, judgments, digest, contract)
        except PolicyError as exc:
            scores.append(RunScore.refused(name, exc))
        else:
            scores.append(RunScore(name, scored))
    return Scoreboard(
        contract=contract,
        rule=rule,
        qrels_digest=digest,
        judged_queries=len(judgments),
        judgments=sum(len(docs) for docs in judgments.values()),
        runs=tuple(scores),
    )


def run_names(ws: Workspace) -> list[str]:
    """The workspace's runs by name, in name order."""
    return [run.name for run in list_runs(ws)]


# -- audit ---------------------------------------------------------------------------


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


@dataclass(frozen=True)
class RunAudit:
    """A run's audit report, its score under the contract, and its queries worst first."""

    run: str
    report: AuditReport
    score: RunScore
    queries: tuple[QueryAudit, ...]
    qrels_digest: str

    def query(self, query_id: str) -> QueryAudit:
        for query in self.queries:
            if query.query_id == query_id:
                return query
        raise KeyError(query_id)


def audit_queries(
    report: AuditReport,
    judgments: Mapping[str, Mapping[str, int]],
    contract: Contract,
    *,
    evaluation: Evaluation | None = None,
    unknown_entries: Mapping[str, Sequence[RunEntry]] | None = None,
) -> list[QueryAudit]:
    """One `QueryAudit` per query of the run and per judged query it skipped,
    worst first (see `_worst_first`).

    ``report`` must be the audit of the run against ``judgments`` at the
    contract's k; ``evaluation``, when given, supplies each query's nDCG;
    ``unknown_entries`` (the run's lines of its unknown queries, by query)
    supplies their holes: the audit lists an unknown query once rather than
    each of its documents, but to judge it, its top k is what matters.
    """
    k = report.k
    findings = report.findings
    holes: dict[str, list[UnjudgedEntry]] = {}
    for hole in findings.unjudged:
        holes.setdefault(hole.query_id, []).append(hole)
    effective = audit_contract(k, contract)
    for query_id, lines in (unknown_entries or {}).items():
        if query_id in findings.unknown_queries:
            holes[query_id] = list(form_list(query_id, lines, {}, effective).unjudged_in_top_k)
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


def audit_workspace_run(
    ws: Workspace,
    name: str,
    contract: Contract,
    *,
    rule: str | None = None,
    on_progress: StageCallback = _quiet,
) -> RunAudit:
    """Audit a stored run against the workspace's judgments at the contract's k,
    and score it under the contract (a refusal is kept as its message)."""
    on_progress("reading judgments")
    judgments, digest = workspace_judgments(ws, rule)
    report = audit_stored_run(ws, name, judgments, contract, on_progress=on_progress)
    unknown_entries: dict[str, list[RunEntry]] = {}
    if report.findings.unknown_queries:
        unknown = set(report.findings.unknown_queries)
        entries, _ = load_run_entries(ws, name)
        unknown_entries = group_by_query(e for e in entries if e.query_id in unknown)
    on_progress(f"scoring {name}")
    try:
        score = RunScore(name, score_stored_run(ws, name, judgments, digest, contract))
    except PolicyError as exc:
        score = RunScore.refused(name, exc)
    queries = audit_queries(
        report,
        judgments,
        contract,
        evaluation=score.evaluation,
        unknown_entries=unknown_entries,
    )
    return RunAudit(name, report, score, tuple(queries), digest)


# -- drill-down ----------------------------------------------------------------------


@dataclass(frozen=True)
class RankedRow:
    """A document at its 1-based position in the list the measures see.

    ``contribution`` is its gain times the discount inside the top k, else 0.
    """

    position: int
    doc_id: str
    grade: int | None
    gain: float
    contribution: float
    score: float | None


@dataclass(frozen=True)
class Drilldown:
    """One query of one run: the ranked list with grades, the ideal list, and the
    query's record under the contract (the same numbers as the per-query table)."""

    run: str
    query_id: str
    contract: Contract
    result: QueryResult
    ranked: tuple[RankedRow, ...]
    ideal: tuple[RankedRow, ...]
    # unjudged documents the contract removed (unjudged=condense)
    removed: tuple[str, ...]
    # entities the run returned more than once, with how many extra copies
    duplicates: tuple[tuple[str, int], ...]


def _rows(
    docs: Iterable[tuple[str, int | None, float | None]], contract: Contract
) -> tuple[RankedRow, ...]:
    rows: list[RankedRow] = []
    for position, (doc_id, grade, score) in enumerate(docs, start=1):
        gain = contract.gain_of(grade)
        contribution = gain * discount(position) if position <= contract.k else 0.0
        rows.append(RankedRow(position, doc_id, grade, gain, contribution, score))
    return tuple(rows)


def drill_down_lists(
    run: str,
    query_id: str,
    entries: Sequence[RunEntry],
    judged: Mapping[str, int],
    contract: Contract,
) -> Drilldown:
    """The drill-down of one query from its run lines and its judgments.

    The ideal list orders the universe by gain, then grade, both descending,
    then document ID: the judged documents under ``universe=judged``, the
    run's own (formed) list under ``candidates``.
    """
    if not entries:
        result = score_missing_query(query_id, judged, contract)
        ranked: tuple[RankedRow, ...] = ()
        removed: tuple[str, ...] = ()
        duplicates: tuple[tuple[str, int], ...] = ()
        universe: list[tuple[str, int | None]] = (
            list(judged.items()) if contract.universe == "judged" else []
        )
    else:
        formed = form_list(query_id, entries, judged, contract)
        result = score_query(query_id, formed, judged, contract)
        ranked = _rows(((d.doc_id, d.grade, d.score) for d in formed.final), contract)
        kept = {d.doc_id for d in formed.final}
        removed = tuple(d.doc_id for d in formed.deduplicated if d.doc_id not in kept)
        duplicates = tuple((d.doc_id, len(d.lines) - 1) for d in formed.duplicates)
        if contract.universe == "judged":
            universe = list(judged.items())
        else:
            universe = [(d.entity, d.grade) for d in formed.final]
    ideal_order = sorted(
        universe,
        key=lambda item: (
            -contract.gain_of(item[1]),
            -(item[1] if item[1] is not None else -math.inf),
            item[0],
        ),
    )
    ideal = _rows(((doc, grade, None) for doc, grade in ideal_order), contract)
    return Drilldown(run, query_id, contract, result, ranked, ideal, removed, duplicates)


def drill_down(
    ws: Workspace, run: str, query_id: str, contract: Contract, *, rule: str | None = None
) -> Drilldown:
    """The drill-down of ``query_id`` in the stored run ``run``."""
    judgments, _ = workspace_judgments(ws, rule)
    entries, _ = load_run_entries(ws, run)
    mine = [entry for entry in entries if entry.query_id == query_id]
    return drill_down_lists(run, query_id, mine, judgments.get(query_id, {}), contract)


# -- helpers over evaluations --------------------------------------------------------


def inflation(result: QueryResult) -> float | None:
    """How much the candidate-only nDCG overstates the nDCG (None when either is
    undefined): what grading only a run's own documents would hide."""
    if result.candidate_ndcg is None or result.ndcg is None:
        return None
    return result.candidate_ndcg - result.ndcg


# The per-query values the scores screen can sort by, by key.
SORT_KEYS: Final[dict[str, Callable[[QueryResult], float | str | None]]] = {
    "query": lambda r: r.query_id,
    "ndcg": lambda r: r.ndcg,
    "dcg": lambda r: r.dcg,
    "idcg": lambda r: r.idcg,
    "candidate_ndcg": lambda r: r.candidate_ndcg,
    "inflation": inflation,
    "judged_at_k": lambda r: r.judged_at_k,
    "zero_idcg": lambda r: float(r.zero_idcg),
}


def sort_results(
    results: Iterable[QueryResult], key: str, *, descending: bool = False
) -> list[QueryResult]:
    """Per-query records ordered by one of `SORT_KEYS`; undefined values always
    last, and the query ID breaks ties so the order is stable across recomputes."""
    if key not in SORT_KEYS:
        raise ValueError(f"cannot sort by {key!r}; choose one of {', '.join(SORT_KEYS)}")
    value_of = SORT_KEYS[key]
    by_id = sorted(results, key=lambda r: r.query_id, reverse=descending and key == "query")
    defined = [r for r in by_id if value_of(r) is not None]
    undefined = [r for r in by_id if value_of(r) is None]
    if key != "query":
        defined.sort(key=lambda r: value_of(r), reverse=descending)  # type: ignore[arg-type,return-value]
    return defined + undefined


@dataclass(frozen=True)
class Histogram:
    """Counts of per-query nDCG in equal bins over [0, 1] (the last bin holds 1.0),
    and how many queries had no value (left out of the mean)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]
    undefined: int


def ndcg_histogram(values: Iterable[float | None], bins: int = 10) -> Histogram:
    """Bin per-query nDCG values; None (an excluded query) is counted apart."""
    if bins <= 0:
        raise ValueError(f"bins must be positive, got {bins}")
    counts = [0] * bins
    undefined = 0
    for value in values:
        if value is None:
            undefined += 1
            continue
        index = min(int(value * bins), bins - 1) if value > 0 else 0
        counts[index] += 1
    edges = tuple(i / bins for i in range(bins + 1))
    return Histogram(edges, tuple(counts), undefined)


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
