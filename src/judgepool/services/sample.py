"""A probability sample of the holes, and the estimates it gives: the use cases
behind ``holes --sample N`` and ``compare --sample FILE``.

``holes --sample`` reads and scores the runs as ``compare`` does (the same
population, the same holes: `judgepool.core.holes.sample_design`) and draws the
sample; the file it writes (`judgepool.formats.sample_file`) lists every
sampled hole with its inclusion probability, the seed, the design and the
frame's digest. Once every listed hole is judged, ``compare --sample``
checks the file against the comparison and estimates every run's nDCG and
every pair's difference with every hole judged, by HT and prior-powered
(`judgepool.core.holes.sample_estimate`), each with a 95 % interval.

What is checked, and why. The estimates are unbiased only for the frame the
sample was drawn from and only with every sampled hole's grade: so the
comparison's holes now, with the sampled ones (judged since) counted as
holes again, must be that frame (same holes, same digest); every listed hole
must be in it and must be one the seed draws at its probability; and every
one must have a grade. A sample judged in part is refused, not estimated
from: which holes were judged first is people's choice, not the design's,
and a part chosen so has no known inclusion probabilities.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from judgepool.core.comparing.bounds import TopK
from judgepool.core.comparing.verdicts import RunInput, population
from judgepool.core.holes.priors import ModelLabels, Prior, model_prior, rank_prior
from judgepool.core.holes.sample_design import DESIGN, Frame, build_frame, draw_sample
from judgepool.core.holes.sample_estimate import Estimate, Predictor, SampleEstimates, estimate
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.engines import Engine
from judgepool.core.terms.errors import ContractError, InputError
from judgepool.core.terms.types import Judgments
from judgepool.formats.sample_file import SampledHole, SampleFile
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.sources import RunSource
from judgepool.services.verdicts import (
    ComparedRuns,
    check_names,
    read_runs,
    verdict_contract,
)

Item = tuple[str, str]
# the smallest comparison and sample the replays measured the interval's
# coverage on (tests/benchmarks/bench_sample.py: DL19, 43 queries; 40 holes);
# the interval is a normal approximation over the queries, and on fewer it
# held less often (the 6-query demo: 70-90 %)
MEASURED_QUERIES: Final = 43
MEASURED_SAMPLE: Final = 40


@dataclass(frozen=True)
class DrawnSample:
    """A sample drawn: the file's content, and on how many queries the frame's holes were."""

    sample: SampleFile
    queries: int
    contract: Contract


def draw_hole_sample(
    sources: Sequence[RunSource],
    judged: JudgmentsSource,
    contract: Contract,
    *,
    size: float,
    seed: int,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> DrawnSample:
    """A Poisson sample of expected ``size`` of the holes of the runs'
    comparison (the queries scored for every run, as ``compare`` pairs them),
    drawn with ``seed``."""
    names = [source.name for source in sources]
    check_names(names, 1, "holes --sample")
    contract, _ = verdict_contract(contract)
    scored = read_runs(sources, judged, contract, engine, on_progress)
    on_progress("drawing the sample")
    inputs = [RunInput(run.run, run.evaluation, top) for run, top in scored]
    queries, _ = population(inputs)
    frame = build_frame([run.top for run in inputs], queries, judged.judgments, contract)
    if frame.holes == 0:
        raise ContractError(
            f"the runs' top {contract.k} hold no hole on the {len(queries)} queries scored for "
            "every run: nothing to sample (every document there is judged)"
        )
    sample = draw_sample(frame, size, seed)
    holes = tuple(
        SampledHole(0, frame.items[h][0], frame.items[h][1], float(sample.probabilities[h]))
        for h in sample.indices
    )
    drawn = SampleFile("", DESIGN, seed, size, frame.holes, frame.digest(), holes)
    return DrawnSample(drawn, len(queries), contract)


@dataclass(frozen=True)
class SampleReport:
    """The estimates of one comparison from one sample: HT's and the
    prior-powered ones (under ``prior``: ``rank`` or ``model:NAME``), per run
    and per pair in the comparison's order."""

    sample: SampleFile
    contract: Contract
    prior: str
    runs: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    ht: SampleEstimates
    prior_powered: SampleEstimates
    queries: int = 0
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``sample`` of ``compare --format json`` (docs/evaluation-contract.md)."""

        def one(found: Estimate) -> dict[str, Any]:
            low, high = found.interval
            return {"estimate": found.value, "se": found.se, "interval": [low, high]}

        return {
            "file": self.sample.path,
            "design": self.sample.design,
            "seed": self.sample.seed,
            "size": self.sample.size,
            "sampled": len(self.sample.holes),
            "frame_holes": self.sample.frame_holes,
            "estimand": f"nDCG@{self.contract.k} with every hole of the comparison judged",
            "prior": self.prior,
            "note": self.note,
            "runs": [
                {"run": name, "ht": one(ht), "prior_powered": one(powered)}
                for name, ht, powered in zip(
                    self.runs, self.ht.runs, self.prior_powered.runs, strict=True
                )
            ],
            "pairs": [
                {"a": a, "b": b, "ht": one(ht), "prior_powered": one(powered)}
                for (a, b), ht, powered in zip(
                    self.pairs, self.ht.pairs, self.prior_powered.pairs, strict=True
                )
            ],
        }


def sample_estimates(
    compared: ComparedRuns,
    judgments: Judgments,
    sample: SampleFile,
    model: ModelLabels | None = None,
) -> SampleReport:
    """Every run's and pair's estimates from ``sample``, every hole of which
    must be judged in ``judgments`` (the comparison's); the prior-powered one
    under the rank prior, or ``model``'s labels calibrated on the judgments.
    Refused, naming the file (and line), when the sample is not one of this
    comparison's holes (the module docstring)."""
    report = compared.report
    contract = report.contract
    if sample.design != DESIGN:
        raise InputError(
            f"the design {sample.design!r} is not one this judgepool draws ({DESIGN})",
            sample.path,
            sample.holes[0].line,
        )
    queries = report.population
    tops = compared.tops
    _check_holes(sample, tops, queries, contract.k)
    grades = _sampled_grades(sample, judgments)
    withheld = {(hole.query_id, hole.doc_id) for hole in sample.holes}
    frame = build_frame(tops, queries, judgments, contract, withheld)
    _check_frame(sample, frame)
    index = {item: h for h, item in enumerate(frame.items)}
    drawn = np.zeros(frame.holes, dtype=bool)
    probabilities = np.ones(frame.holes, dtype=np.float64)
    gains = np.zeros(frame.holes, dtype=np.float64)
    for hole in sample.holes:
        h = index[(hole.query_id, hole.doc_id)]
        drawn[h] = True
        probabilities[h] = hole.inclusion
        gains[h] = contract.gain_of(grades[(hole.query_id, hole.doc_id)])
    _check_drawn(sample, frame, index)
    names = tuple(run.run for run in report.runs)
    position = {name: r for r, name in enumerate(names)}
    pairs = [(position[pair.a], position[pair.b]) for pair in report.pairs]
    prior = _prior(tops, queries, judgments, contract, withheld, model)
    predictor = _predictor(frame, prior, contract)
    return SampleReport(
        sample=sample,
        contract=contract,
        prior=prior.kind,
        runs=names,
        pairs=tuple((pair.a, pair.b) for pair in report.pairs),
        ht=estimate(frame, probabilities, drawn, gains, pairs),
        prior_powered=estimate(frame, probabilities, drawn, gains, pairs, predictor),
        queries=len(queries),
        note=small_note(len(queries), len(sample.holes)),
    )


def small_note(queries: int, sampled: int) -> str | None:
    """What to make of the intervals of a comparison or sample smaller than
    the replays measured them on; None when it is not."""
    if queries >= MEASURED_QUERIES and sampled >= MEASURED_SAMPLE:
        return None
    return (
        f"the intervals' 95 % was measured on {MEASURED_QUERIES} queries or more and "
        f"{MEASURED_SAMPLE} sampled holes or more; with {queries} queries and {sampled} "
        "sampled holes they are likely too narrow: read them as rough"
    )


def _check_holes(
    sample: SampleFile, tops: Sequence[Mapping[str, TopK]], queries: Sequence[str], k: int
) -> None:
    """Every listed hole is a document of some compared run's top k on a query
    of the comparison."""
    population_set = set(queries)
    returned: dict[str, set[str]] = {}
    for top in tops:
        for query_id, listed in top.items():
            returned.setdefault(query_id, set()).update(doc for doc, _ in listed[:k])
    for hole in sample.holes:
        if hole.query_id not in population_set:
            raise InputError(
                f"query {hole.query_id!r} is not among the {len(queries)} queries this "
                "comparison pairs the runs on: the sample is of another comparison (other "
                "runs, judgments or contract); compare the runs it was drawn for",
                sample.path,
                hole.line,
            )
        if hole.doc_id not in returned.get(hole.query_id, set()):
            raise InputError(
                f"{hole.query_id!r} {hole.doc_id!r} is in no compared run's top {k}: not a "
                "hole of this comparison; compare the runs the sample was drawn for",
                sample.path,
                hole.line,
            )


def _sampled_grades(sample: SampleFile, judgments: Judgments) -> dict[Item, int]:
    """Every sampled hole's grade; refused, with how many and the first, when
    some have none yet."""
    grades: dict[Item, int] = {}
    missing: list[SampledHole] = []
    for hole in sample.holes:
        grade = judgments.get(hole.query_id, {}).get(hole.doc_id)
        if grade is None:
            missing.append(hole)
        else:
            grades[(hole.query_id, hole.doc_id)] = grade
    if missing:
        first = missing[0]
        raise InputError(
            f"{len(missing)} of the {len(sample.holes)} sampled holes have no grade yet "
            f"(the first: {first.query_id!r} {first.doc_id!r}). The estimate needs every "
            "one: the holes judged first were chosen by people, not by the design, so "
            "they are no probability sample; judge the rest (judgepool assign WS "
            "--sample FILE hands them out), then compare again",
            sample.path,
            first.line,
        )
    return grades


def _check_frame(sample: SampleFile, frame: Frame) -> None:
    if frame.holes == sample.frame_holes and frame.digest() == sample.frame_digest:
        return
    raise InputError(
        f"the sample was drawn from {sample.frame_holes} holes; this comparison's holes, "
        f"with the sampled ones counted as holes again, are {frame.holes}"
        + (" (the same number, but other holes)" if frame.holes == sample.frame_holes else "")
        + ": the runs, their top k, or the judgments outside the sample changed since. "
        "A sample estimates only the holes it was drawn from: compare the same runs "
        "under the same contract, or draw a new sample (judgepool holes --sample N)",
        sample.path,
    )


def _check_drawn(sample: SampleFile, frame: Frame, index: Mapping[Item, int]) -> None:
    """Every listed hole is one the seed draws at its probability (the design's
    meaning of the seed: `judgepool.core.holes.sample_design`)."""
    uniforms = np.random.default_rng(sample.seed).random(frame.holes)
    for hole in sample.holes:
        if uniforms[index[(hole.query_id, hole.doc_id)]] >= hole.inclusion:
            raise InputError(
                f"seed {sample.seed} does not draw {hole.query_id!r} {hole.doc_id!r} at "
                f"inclusion {hole.inclusion!r}: the file was edited; use it as "
                "'judgepool holes --sample' wrote it",
                sample.path,
                hole.line,
            )


def _prior(
    tops: Sequence[Mapping[str, TopK]],
    queries: Sequence[str],
    judgments: Judgments,
    contract: Contract,
    withheld: set[Item],
    model: ModelLabels | None,
) -> Prior:
    """The comparison's prior learnt without the sampled holes' grades: a prior
    that saw them would make the prior-powered estimate depend on the sample
    twice, and it would no longer be unbiased."""
    blind_tops = [
        {
            query_id: tuple(
                (doc, None if (query_id, doc) in withheld else grade) for doc, grade in listed
            )
            for query_id, listed in top.items()
        }
        for top in tops
    ]
    rank = rank_prior(blind_tops, queries, contract)
    if model is None:
        return Prior(rank)
    blind = {
        query_id: {doc: g for doc, g in docs.items() if (query_id, doc) not in withheld}
        for query_id, docs in judgments.items()
    }
    return Prior(rank, model_prior(model.name, model.labels, blind, contract))


def _predictor(frame: Frame, prior: Prior, contract: Contract) -> Predictor:
    probabilities = [
        prior.of(query_id, doc_id, int(rank))
        for (query_id, doc_id), rank in zip(frame.items, frame.best_rank, strict=True)
    ]
    gains = [contract.gain_of(grade) for grade in contract.scale.grades]
    return Predictor.of_probabilities(probabilities, gains, frame)
