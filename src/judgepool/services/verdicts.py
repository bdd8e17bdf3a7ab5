"""Comparing runs, and the unjudged documents that stand between them and a
verdict: the use cases behind ``judgepool compare`` and ``judgepool holes``.

Each run is read and scored once, by either engine (`scoring.score_run_with_tops`
gives its evaluation and its top k per judged query), and handed to the core:
`judgepool.core.comparing.verdicts.compare` for the statistics, bounds and verdicts,
`judgepool.core.holes.settle` for the holes and their order. The judgments are the
caller's: a qrels file, or a workspace's under its consensus rule.

A comparison's fingerprint is the contract's (`Contract.fingerprint`) over the
qrels digest and one digest of the runs: sha256 over the runs' own digests in
the order given. Equal fingerprints mean the same runs, in the same order,
compared under the same contract on the same judgments.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from judgepool.core.comparing.bounds import TopK
from judgepool.core.comparing.comparison_size import check_comparison_size
from judgepool.core.comparing.significance import Correction
from judgepool.core.comparing.verdict_words import sentence_of
from judgepool.core.comparing.verdicts import (
    CONFIDENCE,
    ComparisonReport,
    RunInput,
    compare,
    population,
)
from judgepool.core.holes.priors import DEFAULT_PRIOR, ModelLabels
from judgepool.core.holes.settle import Hole, SettleState, depth_order
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.team.consensus import Provenance
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.engines import Engine
from judgepool.core.terms.errors import ContractError
from judgepool.core.terms.types import Summary
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.scoring import score_run_with_tops
from judgepool.services.runs.sources import RunSource

HoleOrder = Literal["settle", "depth"]
# runs named in the message of a --baseline that is none of them
BASELINE_NAMES_SHOWN: Final = 20
HOLE_ORDERS: Final = ("settle", "depth")
# the holes of a settle listing without a limit chosen as a team's batch
# (`SettleState.batch`; each choice weighs every hole left against every pair)
BATCH_HEAD: Final = 500

REJECT_NOTE: Final = (
    "unjudged=reject refuses every run with a hole, and the holes are what these "
    "verdicts are about: the runs are compared as under unjudged=zero (the bounds "
    "do not depend on that policy)"
)


def verdict_contract(contract: Contract) -> tuple[Contract, str | None]:
    """The contract verdicts and settle orders are computed under, and why it
    differs from ``contract`` if it does: ``unjudged=reject`` would refuse the
    very runs whose unjudged documents the verdicts weigh, so it becomes ``zero``."""
    if contract.unjudged == "reject":
        return contract.with_changes(unjudged="zero"), REJECT_NOTE
    return contract, None


@dataclass(frozen=True)
class ComparedRuns:
    """A comparison with what traces it: the qrels digest and the runs' digests."""

    report: ComparisonReport
    qrels_digest: str
    run_digests: tuple[str, ...]
    # seconds spent reading and scoring the runs (with their top k), and comparing
    timings: dict[str, float] = field(default_factory=dict)
    # each run's top k per judged query, in the order of the report's runs:
    # what the report's judged share by rank is counted on
    tops: tuple[Mapping[str, TopK], ...] = ()
    # each run's summary over all its scored queries (as ``score`` prints it)
    summaries: tuple[Summary, ...] = ()
    # what the judgments rest on: people's, imports', adjudications' and
    # (only when asked) a model's grades
    provenance: Provenance = field(default_factory=Provenance)
    # every pair of runs too, when a comparison with a baseline asked for it
    # (``report --all-pairs``); its p-values adjusted over all of them
    every_pair: ComparisonReport | None = None

    @property
    def models(self) -> tuple[str, ...]:
        """The models whose labels count among the judgments (``--with-model``)."""
        return tuple(sorted(self.provenance.models))

    @property
    def contract(self) -> Contract:
        return self.report.contract

    @property
    def fingerprint(self) -> str:
        return self.contract.fingerprint(self.qrels_digest, runs_digest(self.run_digests))

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``compare --format json`` (docs/evaluation-contract.md,
        "Comparing runs")."""
        report = self.report
        return {
            "contract": self.contract.to_dict(),
            "qrels_digest": self.qrels_digest,
            "fingerprint": self.fingerprint,
            "judgments": self.provenance.to_dict(),
            "population": {
                "queries": len(report.population),
                "left_out": [
                    {"query_id": query_id, "reason": reason}
                    for query_id, reason in sorted(report.left_out.items())
                ],
            },
            "runs": [
                {
                    "run": run.run,
                    "ndcg": run.ndcg,
                    "ci": _pair_list(run.ci),
                    "bounds": _pair_list(run.bounds),
                    "unjudged_at_k": run.unjudged_at_k,
                    "expected_ndcg": run.expected_ndcg,
                    "expected_interval": _pair_list(run.expected_interval),
                }
                for run in report.runs
            ],
            "pairs": [
                {
                    "a": pair.a,
                    "b": pair.b,
                    "mean_diff": pair.mean_diff,
                    "wins": pair.wins,
                    "ties": pair.ties,
                    "losses": pair.losses,
                    "t_p": pair.t_p,
                    "randomization_p": pair.randomization_p,
                    "bootstrap_ci": _pair_list(pair.bootstrap_ci),
                    "effect_size": pair.effect_size,
                    "t_p_adjusted": pair.t_p_adjusted,
                    "randomization_p_adjusted": pair.randomization_p_adjusted,
                    "diff_bounds": _pair_list(pair.diff_bounds),
                    "verdict": pair.verdict,
                    "p_a_ahead": pair.p_a_ahead,
                    "expected_diff": pair.expected_diff,
                    "expected_diff_interval": _pair_list(pair.expected_diff_interval),
                    "probable_leader": pair.probable_leader,
                    "sentence": sentence_of(
                        pair,
                        models=self.models,
                        queries=len(report.population),
                        confidence=report.confidence,
                        pairs=len(report.pairs),
                    ).full,
                }
                for pair in report.pairs
            ],
            "correction": report.correction,
            "permutations": report.permutations,
            "bootstrap": report.bootstrap,
            "seed": report.seed,
            "prior": None if report.prior is None else report.prior.to_dict(),
            "draws": report.draws,
            "confidence": report.confidence,
            "draws_note": report.draws_note,
        }


def _pair_list(values: tuple[float, float] | None) -> list[float] | None:
    return None if values is None else [values[0], values[1]]


def runs_digest(digests: Sequence[str]) -> str:
    """One digest of several runs, in order."""
    return hashlib.sha256(json.dumps(list(digests)).encode("utf-8")).hexdigest()


def pair_count(names: Sequence[str], baseline: str | None) -> int:
    """How many pairs `comparison_pairs` gives, without listing them."""
    if baseline is None:
        return len(names) * (len(names) - 1) // 2
    _check_baseline(names, baseline)
    return len(names) - 1


def _check_baseline(names: Sequence[str], baseline: str) -> None:
    if baseline not in names:
        shown = ", ".join(repr(n) for n in names[:BASELINE_NAMES_SHOWN])
        more = (
            f", … {len(names) - BASELINE_NAMES_SHOWN} more"
            if len(names) > BASELINE_NAMES_SHOWN
            else ""
        )
        raise ContractError(
            f"--baseline {baseline!r} is not one of the runs compared ({shown}{more}); "
            "name one of them"
        )


def comparison_pairs(names: Sequence[str], baseline: str | None) -> list[tuple[int, int]]:
    """Every pair of runs (in the order given), or with a baseline every
    (run, baseline) pair: the baseline is always B, so a positive difference
    means the run beats it."""
    if baseline is None:
        return list(itertools.combinations(range(len(names)), 2))
    _check_baseline(names, baseline)
    base = names.index(baseline)
    return [(index, base) for index in range(len(names)) if index != base]


def check_names(names: Sequence[str], least: int, command: str) -> None:
    """Refuse fewer runs than ``least``, or a run named twice."""
    if len(names) < least:
        given = f"{len(names)} given" if names else "none given"
        runs = "run" if least == 1 else "runs"
        raise ContractError(f"{command} needs at least {least} {runs}; {given}")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ContractError(f"the run {name!r} is named twice; name each run once")
        seen.add(name)


def read_runs(
    sources: Sequence[RunSource],
    judged: JudgmentsSource,
    contract: Contract,
    engine: Engine,
    on_progress: StageCallback,
) -> list[tuple[ScoredRun, dict[str, TopK]]]:
    """Every run scored, with its top k per judged query."""
    results = []
    for number, source in enumerate(sources, start=1):
        prefix = f"[{number}/{len(sources)}] " if len(sources) > 1 else ""

        def report(stage: str, prefix: str = prefix) -> None:
            on_progress(prefix + stage)

        results.append(
            score_run_with_tops(source, judged, contract, engine=engine, on_progress=report)
        )
    return results


def compare_runs(
    sources: Sequence[RunSource],
    judged: JudgmentsSource,
    contract: Contract,
    *,
    baseline: str | None = None,
    correction: Correction = "holm",
    permutations: int = 10_000,
    bootstrap: int = 10_000,
    seed: int = 0,
    draws: int | None = None,
    confidence: float = CONFIDENCE,
    model: ModelLabels | None = None,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
    all_pairs: bool = False,
    prior_kind: str = DEFAULT_PRIOR,
) -> ComparedRuns:
    """Compare the runs of ``sources`` (two or more, distinct names): every
    pair, or every run with ``baseline`` (and with ``all_pairs`` every pair
    as well, apart: `ComparedRuns.every_pair`); ``draws`` of the holes'
    grades under ``prior_kind`` (``runs`` or ``rank``), with ``model``'s
    labels calibrated on the judgments where it labelled a hole, give the
    probable verdicts at ``confidence``. A comparison
    whose estimate passes the limit is refused before any run is read
    (`judgepool.core.comparing.comparison_size`)."""
    judgments = judged.judgments
    names = [source.name for source in sources]
    check_names(names, 2, "compare")
    every = all_pairs and baseline is not None
    # counted before a run is read or the pairs are listed (50 M pairs are
    # gigabytes themselves): what they would need, refused past the limit
    check_comparison_size(
        len(names), pair_count(names, None if every else baseline), len(judgments), contract.k,
        permutations, bootstrap, baseline=baseline is not None,
    )  # fmt: skip
    pairs = comparison_pairs(names, baseline)
    started = time.perf_counter()
    scored = read_runs(sources, judged, contract, engine, on_progress)
    read_done = time.perf_counter()
    on_progress("comparing")
    inputs = [RunInput(run.run, run.evaluation, top) for run, top in scored]

    def compared(chosen: list[tuple[int, int]]) -> ComparisonReport:
        return compare(
            inputs,
            judgments,
            contract,
            chosen,
            permutations=permutations,
            bootstrap=bootstrap,
            seed=seed,
            correction=correction,
            draws=draws,
            confidence=confidence,
            model=model,
            prior_kind=prior_kind,
            on_draws=lambda done, total: on_progress(
                f"drawing the holes' grades {done:,}/{total:,}"
            ),
        )

    report = compared(pairs)
    # every pair apart from the baseline's: each comparison's p-values are
    # adjusted over its own pairs, so the baseline's stay as without it
    everything = None
    if every:
        on_progress("comparing every pair")
        everything = compared(comparison_pairs(names, None))
    timings = {"scoring": read_done - started, "comparing": time.perf_counter() - read_done}
    digests = tuple(run.run_digest for run, _ in scored)
    tops = tuple(top for _, top in scored)
    summaries = tuple(run.evaluation.summary for run, _ in scored)
    return ComparedRuns(
        report, judged.digest, digests, timings, tops, summaries, judged.provenance, everything
    )


@dataclass(frozen=True)
class RankedHole:
    """One unjudged document in the order asked for, with that order's score."""

    hole: Hole
    priority: float

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``holes --format json`` (docs/product.md)."""
        return {
            "query_id": self.hole.query_id,
            "doc_id": self.hole.doc_id,
            "runs": list(self.hole.runs),
            "best_rank": self.hole.best_rank,
            "priority": self.priority,
        }


@dataclass(frozen=True)
class HoleListing:
    """The holes in the order asked for (at most the limit), how many there are
    in all, and on how many queries they were looked for."""

    holes: tuple[RankedHole, ...]
    total: int
    queries: int


def listing_contract(contract: Contract) -> Contract:
    """The contract the holes are found under: ``contract`` with ``unjudged=zero``.

    The unjudged policies differ in what they do with a hole, not in which
    documents are holes: ``reject`` refuses a run that has one (so it would
    refuse the very runs whose holes are asked for), ``condense`` removes
    them from the scored list but keeps their places in the top k
    (`judgepool.core.scoring.top_k`), as ``zero`` does. Listed as under ``zero``, the
    holes and their order are the same under every policy."""
    return contract.with_changes(unjudged="zero")


def list_holes(
    sources: Sequence[RunSource],
    judged: JudgmentsSource,
    contract: Contract,
    *,
    order: HoleOrder = "settle",
    limit: int | None = None,
    engine: Engine = "fast",
    unjudged_queries: Collection[str] = (),
    on_progress: StageCallback = no_stage,
) -> HoleListing:
    """The unjudged documents of the runs' top k on the queries scored for
    every run, best first: ``settle`` (what narrows the comparisons that could
    still flip most, `core.holes.settle`, the first ``limit`` or `BATCH_HEAD` chosen
    as a team's batch: each as if those before it were judged) or ``depth``
    (by rank, round-robin over the runs in the order given). At most ``limit``
    of them. Under every unjudged policy alike (`listing_contract`).

    ``unjudged_queries``: queries chosen for judging that the judgments do not
    know yet (a workspace's pooled queries before their first grade); each
    counts as a judged query with nothing judged, so its whole top k is holes."""
    if order not in HOLE_ORDERS:
        raise ContractError(f"order must be one of {', '.join(HOLE_ORDERS)}, got {order!r}")
    names = [source.name for source in sources]
    check_names(names, 1, "holes")
    contract = listing_contract(contract)
    judgments = judged.judgments
    fresh = sorted(set(unjudged_queries) - judgments.keys())
    if fresh:
        judgments = {**judgments, **{query: {} for query in fresh}}
        judged = replace(judged, judgments=judgments)
    scored = read_runs(sources, judged, contract, engine, on_progress)
    on_progress("finding the holes")
    inputs = [RunInput(run.run, run.evaluation, top) for run, top in scored]
    queries = _listed_queries(inputs, fresh, contract)
    tops = [{q: run.top[q] for q in queries if q in run.top} for run in inputs]
    ranked: list[tuple[Hole, float]]
    if order == "depth":
        ranked = depth_order(dict(zip(names, tops, strict=True)), contract.k)
    else:
        pairs = list(itertools.combinations(range(len(names)), 2))
        state = SettleState(names, tops, judgments, contract, queries, pairs)
        # the head as a team's batch (each hole chosen as if those above it
        # were judged), the rest by what they add to it
        head = BATCH_HEAD if limit is None else limit
        ranked = state.batch(head, then_the_rest=True)
    shown = ranked if limit is None else ranked[:limit]
    return HoleListing(
        tuple(RankedHole(hole, priority) for hole, priority in shown), len(ranked), len(queries)
    )


def _listed_queries(
    inputs: Sequence[RunInput], fresh: Sequence[str], contract: Contract
) -> list[str]:
    """The queries whose holes are listed: those scored for every run (as
    ``compare`` pairs them), and each query of ``fresh`` (nothing judged yet)
    that the runs return as a judged query would count: every run returned
    it, or, under ``missing=zero``, one did (the others score 0 there). A
    fresh query's zero IDCG does not leave it out: judging its holes is what
    gives it one."""
    judged, _ = population(inputs)
    new = set(fresh)
    queries = [query for query in judged if query not in new]
    for query in fresh:
        returned = [query in run.top for run in inputs]
        if all(returned) or (contract.missing == "zero" and any(returned)):
            queries.append(query)
    return sorted(queries)
