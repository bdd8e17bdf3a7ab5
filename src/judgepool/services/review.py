"""The review use cases behind the app's audit and scores screens.

Each works on a workspace and returns plain frozen values that a screen can
show as they are:

- `score_workspace_runs`: every run (or the named ones) scored against the
  workspace's judgments under one contract, as a `Scoreboard`. A run that a
  ``reject`` policy refuses is kept in the board with the refusal's message, so
  one refused run never hides the others. Each run is scored by
  `judgepool.services.runs.scoring.score_run` (fast engine), as ``judgepool score
  --workspace`` does, on the same judgments (`workspace_source` under the
  workspace's consensus rule).
- `audit_workspace_run`: a run's audit report (as ``judgepool audit
  --workspace`` gives it), its score under the contract, and one
  `judgepool.core.auditing.query_audit.QueryAudit` per query, worst first.
- `judged_share_of_run`: a run's judged share at each rank 1..k (the audit
  screen's plot: `judgepool.core.auditing.judged_share`).
- `drill_down`: one query of one run (`judgepool.core.auditing.drilldown`).

The computation itself is in `judgepool.core` (query audit, drill-down,
comparison, the runs' spreads, ordering), free of any storage. Nothing here imports
Textual or Rich: the screens call these functions from thread workers, so
each function opens nothing itself but takes a `Workspace` the worker opened
for its own thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from judgepool.core.auditing.audit import AuditReport
from judgepool.core.auditing.drilldown import Drilldown, drill_down_lists
from judgepool.core.auditing.judged_share import judged_share_by_rank
from judgepool.core.auditing.ndcg_spread import NdcgSpread, ndcg_spread
from judgepool.core.auditing.query_audit import QueryAudit, audit_queries
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.team.consensus import Provenance
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.engines import Engine
from judgepool.core.terms.errors import DuplicatesRejected, PolicyError, UnjudgedRejected
from judgepool.core.terms.types import Evaluation, Summary
from judgepool.services.consensus import workspace_judgments
from judgepool.services.judgments_source import JudgmentsSource, workspace_source
from judgepool.services.runs.passes import Against, Wanted, read
from judgepool.services.runs.scoring import score_run, score_run_with_tops
from judgepool.services.runs.sources import run_names, stored_source
from judgepool.store.runs import run_entries
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class RunScore:
    """One run under the contract: its `ScoredRun`, or why the contract refused it
    (``refusal`` the full message, listing every entry; ``reason`` one line)."""

    run: str
    scored: ScoredRun | None
    refusal: str | None = None
    reason: str | None = None
    # the refusal itself: the app words its way out from it (the contract key)
    error: PolicyError | None = field(default=None, compare=False)

    @classmethod
    def refused(cls, run: str, error: PolicyError) -> RunScore:
        if isinstance(error, UnjudgedRejected):
            reason = f"unjudged=reject and {len(error.entries)} unjudged document(s) in the top k"
        elif isinstance(error, DuplicatesRejected):
            reason = f"duplicates=reject and {len(error.entries)} duplicate document(s)"
        else:
            reason = str(error).splitlines()[0]
        return cls(run, None, str(error), reason, error)

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
    # whose grades the judgments are, and the models' labels left out
    provenance: Provenance = field(default_factory=Provenance)

    def run(self, name: str) -> RunScore:
        for score in self.runs:
            if score.run == name:
                return score
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(score.run for score in self.runs)

    def summaries(self) -> list[tuple[str, Summary | None, str | None]]:
        """Each run's summary, or why it was refused: what a table of the runs shows."""
        return [
            (
                score.run,
                None if score.evaluation is None else score.evaluation.summary,
                score.reason,
            )
            for score in self.runs
        ]

    def evaluation_of(self, name: str | None) -> Evaluation | None:
        """The run's evaluation; None for a refused run or a run not in the board."""
        found = [score.evaluation for score in self.runs if score.run == name]
        return found[0] if found else None

    def spreads(self) -> tuple[NdcgSpread, ...]:
        """Each run's per-query nDCG in five numbers, in the board's order (a
        refused run with none): the scores screen's box plot."""
        return tuple(
            ndcg_spread(
                score.run,
                () if score.evaluation is None else (r.ndcg for r in score.evaluation.per_query),
            )
            for score in self.runs
        )


def _score_stored(
    ws: Workspace, name: str, judged: JudgmentsSource, contract: Contract
) -> RunScore:
    try:
        return RunScore(name, score_run(stored_source(ws, name), judged, contract))
    except PolicyError as exc:
        return RunScore.refused(name, exc)


def score_workspace_runs(
    ws: Workspace,
    contract: Contract,
    *,
    runs: Sequence[str] | None = None,
    rule: str | None = None,
    on_progress: StageCallback = no_stage,
) -> Scoreboard:
    """Score the named runs (every stored run when None) against the workspace's
    judgments under ``rule`` (None: the workspace's default consensus)."""
    on_progress("reading judgments")
    judged = workspace_source(ws, rule)
    judgments = judged.judgments
    names = list(runs) if runs is not None else run_names(ws)
    scores: list[RunScore] = []
    for number, name in enumerate(names, start=1):
        on_progress(f"scoring {name} ({number}/{len(names)})")
        scores.append(_score_stored(ws, name, judged, contract))
    return Scoreboard(
        contract=contract,
        rule=rule,
        qrels_digest=judged.digest,
        judged_queries=len(judgments),
        judgments=sum(len(docs) for docs in judgments.values()),
        runs=tuple(scores),
        provenance=judged.provenance,
    )


@dataclass(frozen=True)
class RunAudit:
    """A run's audit report, its score under the contract, and its queries worst first."""

    run: str
    report: AuditReport
    score: RunScore
    queries: tuple[QueryAudit, ...]
    qrels_digest: str
    # the judged share at each rank 1..k over the judged queries it returned
    # (None: no list reaches the rank), `judged_share_of_run`
    judged_share: tuple[float | None, ...] = ()

    def query(self, query_id: str) -> QueryAudit:
        for query in self.queries:
            if query.query_id == query_id:
                return query
        raise KeyError(query_id)


def audit_workspace_run(
    ws: Workspace,
    name: str,
    contract: Contract,
    *,
    rule: str | None = None,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> RunAudit:
    """Audit a stored run against the workspace's judgments at the contract's k,
    and score it under the contract (a refusal is kept as its message), both
    from one reading (`services.runs.passes.read`)."""
    on_progress("reading judgments")
    judged = workspace_source(ws, rule)
    judgments, digest = judged.judgments, judged.digest
    audited = read(
        Against(judged, contract, engine),
        stored_source(ws, name),
        Wanted(audit=True, refusal_kept=True),
        on_progress=on_progress,
    )
    report = audited.audit_report()
    if audited.refusal is not None:
        score = RunScore.refused(name, audited.refusal)
    else:
        score = RunScore(name, audited.scored)
    queries = audit_queries(
        report,
        judgments,
        contract,
        evaluation=score.evaluation,
        unknown_holes=audited.unknown_holes,
    )
    share = judged_share_of_run(ws, name, judged, contract)
    return RunAudit(name, report, score, tuple(queries), digest, share)


def judged_share_of_run(
    ws: Workspace, name: str, judged: JudgmentsSource, contract: Contract
) -> tuple[float | None, ...]:
    """The stored run's judged share at each rank 1..k, over the judged queries
    it returned, its lists formed as under ``unjudged=zero`` whatever the
    contract says: every hole keeps its rank (``condense`` would remove them,
    and ``reject`` scores nothing), as the audit and the bounds see them."""
    _, tops = score_run_with_tops(
        stored_source(ws, name), judged, contract.with_changes(unjudged="zero")
    )
    rankings = {query: [doc for doc, _ in top] for query, top in tops.items()}
    graded = {
        query: {doc for doc, grade in top if grade is not None} for query, top in tops.items()
    }
    return tuple(judged_share_by_rank(rankings, graded, contract.k))


def drill_down(
    ws: Workspace, run: str, query_id: str, contract: Contract, *, rule: str | None = None
) -> Drilldown:
    """The drill-down of ``query_id`` in the stored run ``run``."""
    judgments, _ = workspace_judgments(ws, rule)
    mine = [entry for entry in run_entries(ws, run) if entry.query_id == query_id]
    return drill_down_lists(run, query_id, mine, judgments.get(query_id, {}), contract)
