"""The figures of ``judgepool report``, one table: each figure's file stem,
title and caption.

The HTML report, the files ``--figures DIR`` writes and the LaTeX ``figure``
environments of ``compare --format latex --figures DIR`` all read it, so a
figure has one name and one caption wherever it appears. Captions are plain
text; each output escapes them its own way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from judgepool.services.verdicts import ComparedRuns


@dataclass(frozen=True)
class CaptionFacts:
    """What a caption names: the cutoff, the baseline, the number of queries
    compared, and the confidence a probable verdict asks for."""

    k: int
    baseline: str
    queries: int
    confidence: float


@dataclass(frozen=True)
class FigureSpec:
    """One figure: ``stem`` names its files (``DIR/<stem>.svg``, ``.pdf``,
    ``.png``) and its section of the report; ``workspace_only``: drawn only
    when the judgments come from a workspace (annotators, assignments)."""

    stem: str
    title: str
    caption: Callable[[CaptionFacts], str]
    workspace_only: bool = False


def _per_query(facts: CaptionFacts) -> str:
    return (
        f"Per-query differences of nDCG@{facts.k} between each run and the baseline "
        f"{facts.baseline}, over the {facts.queries} queries compared, sorted (above 0: the run "
        "scores higher). Hatched orange bars: queries whose unjudged documents could still "
        "reverse the sign of the difference once judged (their bounds reach across 0)."
    )


def _forest(facts: CaptionFacts) -> str:
    return (
        f"Mean difference of nDCG@{facts.k} of each pair (A minus B, over {facts.queries} "
        "queries): the point, with its 95% bootstrap interval (thick line) and its bounds once "
        "every unjudged document is judged (thin line above it), coloured by verdict: settled "
        "(the sign cannot change), probable (one run ahead in at least "
        f"{facts.confidence:g} of the draws of the holes' grades), could flip, or tied."
    )


def _judged_share(facts: CaptionFacts) -> str:
    return (
        f"Judged share by rank: at each rank 1..{facts.k}, the share of the compared queries "
        "whose document at that rank is judged, per run (a query whose list is shorter than the "
        "rank does not count there)."
    )


def _agreement(facts: CaptionFacts) -> str:
    return (
        "Agreement between annotators: Cohen's kappa of each pair over the items both graded "
        "(latest grade of each; unsure is not a grade)."
    )


def _progress(facts: CaptionFacts) -> str:
    return (
        "Grading progress per annotator against the current assignment: items graded, marked "
        "unsure, and remaining."
    )


FIGURES: Final = (
    FigureSpec("per-query-differences", "Per-query differences with the baseline", _per_query),
    FigureSpec("forest", "Every pair's difference, its interval and its verdict", _forest),
    FigureSpec("judged-share", "Judged share by rank", _judged_share),
    FigureSpec("agreement", "Agreement between annotators", _agreement, workspace_only=True),
    FigureSpec("progress", "Grading progress", _progress, workspace_only=True),
)


def figures_for(workspace: bool) -> tuple[FigureSpec, ...]:
    """The figures a report draws: every figure, or without a workspace those
    that need none."""
    return tuple(spec for spec in FIGURES if workspace or not spec.workspace_only)


def figure_spec(stem: str) -> FigureSpec:
    """The figure named ``stem`` (KeyError when there is none)."""
    for spec in FIGURES:
        if spec.stem == stem:
            return spec
    raise KeyError(stem)


def caption_facts(
    compared: ComparedRuns, labels: Mapping[str, str], baseline: str | None = None
) -> CaptionFacts:
    """What the captions name, for this comparison: ``baseline`` (a run's
    name), or the B of every pair (the first run when the pairs share none),
    by its label."""
    report = compared.report
    if baseline is None:
        baselines = {pair.b for pair in report.pairs}
        baseline = next(iter(baselines)) if len(baselines) == 1 else report.runs[0].run
    return CaptionFacts(
        report.contract.k,
        labels.get(baseline, baseline),
        len(report.population),
        report.confidence,
    )
