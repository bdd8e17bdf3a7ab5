"""What each figure of ``judgepool report`` plots, as plain values: computed
from a comparison (and a workspace's agreement and progress), drawn by
`judgepool.cli.figure_draw`, tabulated by `judgepool.cli.report_html`.

Kept apart from the drawing so that a test can hold these numbers to
``compare --format json`` and, separately, the drawn artists to these numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judgepool.core.auditing.judged_share import judged_share_by_rank
from judgepool.core.comparing.verdicts import verdict_of
from judgepool.core.team.agreement import Agreement
from judgepool.services.verdicts import ComparedRuns


@dataclass(frozen=True)
class QueryDifference:
    """One query's difference of nDCG (A − B), its bounds under the unjudged
    documents (None without bounds), and whether those could reverse its sign."""

    query_id: str
    diff: float
    low: float | None
    high: float | None
    could_flip: bool


@dataclass(frozen=True)
class PairDifferences:
    """One pair's per-query differences, largest first (ties by query ID)."""

    a: str
    b: str
    queries: tuple[QueryDifference, ...]


@dataclass(frozen=True)
class PerQueryDifferences:
    k: int
    pairs: tuple[PairDifferences, ...]


@dataclass(frozen=True)
class ForestRow:
    """One pair: its mean difference, 95% bootstrap interval, bounds, verdict."""

    a: str
    b: str
    mean_diff: float | None
    interval: tuple[float, float] | None
    bounds: tuple[float, float] | None
    verdict: str | None


@dataclass(frozen=True)
class Forest:
    k: int
    rows: tuple[ForestRow, ...]


@dataclass(frozen=True)
class RunShare:
    """One run's judged share at ranks 1..k (None: no query reaches the rank)."""

    run: str
    shares: tuple[float | None, ...]


@dataclass(frozen=True)
class JudgedShare:
    k: int
    runs: tuple[RunShare, ...]
    # the run every pair is compared with, if one is (drawn apart among many)
    baseline: str | None = None


@dataclass(frozen=True)
class AgreementMatrix:
    """Cohen's κ of every pair of annotators (symmetric; None on the diagonal
    and where undefined); ``reason``: why there is none (fewer than two)."""

    annotators: tuple[str, ...]
    kappa: tuple[tuple[float | None, ...], ...]
    reason: str | None = None


@dataclass(frozen=True)
class ProgressRow:
    annotator: str
    graded: int
    unsure: int
    remaining: int


@dataclass(frozen=True)
class ProgressBars:
    rows: tuple[ProgressRow, ...]


FigureData = PerQueryDifferences | Forest | JudgedShare | AgreementMatrix | ProgressBars


def per_query_differences(compared: ComparedRuns) -> PerQueryDifferences:
    """Each pair's differences per query of the population, sorted; a query
    could flip when its own bounds leave its sign open (`verdict_of`)."""
    report = compared.report
    pairs = []
    for pair in report.pairs:
        diffs = report.per_query_diffs.get((pair.a, pair.b), ())
        bounds = report.per_query_bounds.get((pair.a, pair.b))
        queries = []
        for index, (query_id, diff) in enumerate(zip(report.population, diffs, strict=True)):
            if bounds is None:
                queries.append(QueryDifference(query_id, diff, None, None, False))
                continue
            low, high = bounds[index]
            flips = verdict_of(low, high) == "could flip"
            queries.append(QueryDifference(query_id, diff, low, high, flips))
        queries.sort(key=lambda query: (-query.diff, query.query_id))
        pairs.append(PairDifferences(pair.a, pair.b, tuple(queries)))
    return PerQueryDifferences(report.contract.k, tuple(pairs))


def forest(compared: ComparedRuns) -> Forest:
    """Every pair compared, in the comparison's order."""
    report = compared.report
    rows = tuple(
        ForestRow(p.a, p.b, p.mean_diff, p.bootstrap_ci, p.diff_bounds, p.verdict)
        for p in report.pairs
    )
    return Forest(report.contract.k, rows)


def judged_share(compared: ComparedRuns) -> JudgedShare:
    """Each run's judged share by rank over the population (the queries
    compared), from its top k: an entry with a grade is judged."""
    report = compared.report
    k = report.contract.k
    runs = []
    for run, top in zip(report.runs, compared.tops, strict=True):
        rankings = {q: [entity for entity, _ in top[q]] for q in report.population if q in top}
        judged = {
            q: {entity for entity, grade in top[q] if grade is not None}
            for q in report.population
            if q in top
        }
        runs.append(RunShare(run.run, tuple(judged_share_by_rank(rankings, judged, k))))
    baselines = {pair.b for pair in report.pairs}
    baseline = next(iter(baselines)) if len(baselines) == 1 else None
    return JudgedShare(k, tuple(runs), baseline)


def agreement_matrix(found: Agreement | None, reason: str | None = None) -> AgreementMatrix:
    """The κ matrix of ``found``, or an empty one saying ``reason``."""
    if found is None:
        return AgreementMatrix((), (), reason or "no agreement computed")
    names = tuple(found.overall.annotators)
    index = {name: i for i, name in enumerate(names)}
    cells: list[list[float | None]] = [[None] * len(names) for _ in names]
    for pair in found.pairs:
        i, j = index[pair.a], index[pair.b]
        cells[i][j] = cells[j][i] = pair.cohen_kappa.value
    return AgreementMatrix(names, tuple(tuple(row) for row in cells))


def progress_bars(rows: Sequence[ProgressRow]) -> ProgressBars:
    return ProgressBars(tuple(rows))
