"""Comparing runs: on which queries, how sure, and whether the unjudged
documents could still change the answer.

`compare` takes each run's `Evaluation` and its top k per query (the formed
list's first k entries, as (entity, grade or None)), and gives a
`ComparisonReport`: the common population, per run its mean, 95 % interval and
bounds under the unjudged documents, and per pair the paired statistics of
`judgepool.core.comparing.significance` and the exact bounds of the mean difference of
`judgepool.core.comparing.bounds` with a verdict. Definitions: docs/evaluation-contract.md,
"Comparing runs" and "Bounds for unjudged documents".

Whose holes count: every compared run's, for a run's bounds and for a
pair's. A document another run found and nobody judged can join the universe
once judged: it lowers this run's nDCG, and for a pair it enters the query's
ideal, which rescales that query's difference without changing its sign. But
the queries are rescaled unequally, so the sign of the *mean* difference can
change: a pair bounded over its own two runs' holes only could be called
settled and then flip when a third run's hole is judged. "Settled" means
whatever grades any unjudged document of the comparison gets. A pair's
``holes`` still counts the documents its own two runs returned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

from judgepool.core.comparing.bound_tables import BoundsArrays, HoleTable
from judgepool.core.comparing.bounds import GainLevels, TopK, bound_arrays
from judgepool.core.comparing.comparison_draws import comparison_draws
from judgepool.core.comparing.significance import (
    Correction,
    adjust,
    bootstrap_interval,
    effect_size,
    import_scipy_in_background,
    mean_interval,
    paired_t,
    sign_flip,
)
from judgepool.core.holes.draws import DrawnMeans
from judgepool.core.holes.prior_draws import corrected
from judgepool.core.holes.priors import DEFAULT_PRIOR, ModelLabels, Prior
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError
from judgepool.core.terms.types import Evaluation, Judgments, QueryResult

F64 = npt.NDArray[np.float64]
Verdict = Literal["settled", "probable", "could flip", "tied"]
# the share of draws a probable verdict asks for, unless told otherwise
CONFIDENCE: Final = 0.95
# a bound within this of 0 is 0: the same mean summed two ways may differ in
# its last bits, and a verdict must not rest on them
ZERO_TOLERANCE: Final = 1e-12
# cells of one table of holes (see `_bounds`): 4 M float64, 32 MB an array
_TABLE_CELLS: Final = 4_000_000
# cells (rows × holes of the union) of the pairs' problems solved in one call:
# large enough that the solver's per-call costs vanish, small enough that its
# arrays (a few times this, in float64) stay in tens of megabytes
_SOLVE_CELLS: Final = 500_000


@dataclass(frozen=True)
class RunInput:
    """One run to compare: its name, evaluation, and top k per judged query it
    returned (entity, grade or None for a hole), in ranked order."""

    name: str
    evaluation: Evaluation
    top: Mapping[str, TopK]


@dataclass(frozen=True)
class RunStats:
    run: str
    ndcg: float | None
    ci: tuple[float, float] | None
    bounds: tuple[float, float] | None
    unjudged_at_k: int
    # over the draws of the holes' grades (None without draws)
    expected_ndcg: float | None = None
    expected_interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class PairStats:
    a: str
    b: str
    mean_diff: float | None
    wins: int
    ties: int
    losses: int
    t_p: float | None
    randomization_p: float | None
    randomization_exact: bool
    bootstrap_ci: tuple[float, float] | None
    effect_size: float | None
    t_p_adjusted: float | None = None
    randomization_p_adjusted: float | None = None
    diff_bounds: tuple[float, float] | None = None
    verdict: Verdict | None = None
    holes: int = 0  # distinct unjudged documents of the two runs' top k
    # over the draws of the holes' grades (None without draws)
    p_a_ahead: float | None = None
    expected_diff: float | None = None
    expected_diff_interval: tuple[float, float] | None = None
    probable_leader: Literal["a", "b"] | None = None


@dataclass(frozen=True)
class ComparisonReport:
    contract: Contract
    population: tuple[str, ...]
    left_out: dict[str, str]  # query -> why it is not in the population
    runs: tuple[RunStats, ...]
    pairs: tuple[PairStats, ...]
    correction: Correction
    permutations: int
    bootstrap: int
    seed: int
    bounds_note: str | None = None
    # the draws: the prior they used, how many, the confidence a probable
    # verdict asks for, and what they assume (None: no draws, and why not)
    prior: Prior | None = None
    draws: int = 0
    confidence: float = CONFIDENCE
    draws_note: str | None = None
    per_query_diffs: dict[tuple[str, str], tuple[float, ...]] = field(default_factory=dict)
    # per pair, each common query's bounds of A − B under the holes, in the
    # population's order (NaN where the bounds leave the query out); empty
    # when the contract gives no bounds
    per_query_bounds: dict[tuple[str, str], tuple[tuple[float, float], ...]] = field(
        default_factory=dict
    )


def _records(evaluation: Evaluation) -> dict[str, QueryResult]:
    """Each query's record, as `Evaluation.query` finds it (the first), but
    found in constant time: a comparison looks up every query of every run."""
    records: dict[str, QueryResult] = {}
    for record in evaluation.per_query:
        records.setdefault(record.query_id, record)
    return records


def population(runs: Sequence[RunInput]) -> tuple[list[str], dict[str, str]]:
    """The queries scored for every run (sorted), and why each other judged
    query is left out."""
    judged = sorted({r.query_id for run in runs for r in run.evaluation.per_query})
    indexed = [(run, _records(run.evaluation)) for run in runs]
    left_out: dict[str, str] = {}
    for query_id in judged:
        for run, records in indexed:
            record = records.get(query_id)
            if record is None:
                left_out[query_id] = f"not judged for {run.name}"
                break
            if record.ndcg is None:
                why = "absent from the run (missing=skip)" if record.missing else "zero IDCG"
                left_out[query_id] = f"{run.name}: {why}, excluded"
                break
    return [q for q in judged if q not in left_out], left_out


def verdict_of(
    low: float, high: float, p_a_ahead: float | None = None, confidence: float = CONFIDENCE
) -> Verdict:
    """settled when the sign cannot change, tied when the difference is 0 whatever
    the holes are, probable when the draws put one run ahead in at least
    ``confidence`` of them, could flip otherwise (a tie still possible included)."""
    if low > 0 or high < 0:
        return "settled"
    if low == 0 and high == 0:
        return "tied"
    if p_a_ahead is not None and probable_leader(p_a_ahead, confidence) is not None:
        return "probable"
    return "could flip"


def probable_leader(p_a_ahead: float, confidence: float) -> Literal["a", "b"] | None:
    """``a`` when A is ahead in at least ``confidence`` of the draws, ``b`` when
    in at most 1 − ``confidence``, None otherwise."""
    if p_a_ahead >= confidence:
        return "a"
    if p_a_ahead <= 1 - confidence:
        return "b"
    return None


def _snap(values: F64) -> F64:
    snapped: F64 = np.where(np.abs(values) <= ZERO_TOLERANCE, 0.0, values)
    return snapped


def compare(
    runs: Sequence[RunInput],
    judgments: Judgments,
    contract: Contract,
    pairs: Sequence[tuple[int, int]],
    *,
    permutations: int = 10_000,
    bootstrap: int = 10_000,
    seed: int = 0,
    correction: Correction = "holm",
    draws: int | None = None,
    confidence: float = CONFIDENCE,
    model: ModelLabels | None = None,
    on_draws: Callable[[int, int], None] | None = None,
    prior_kind: str = DEFAULT_PRIOR,
) -> ComparisonReport:
    """Compare ``runs`` (at least two) pair by pair (indices into ``runs``).

    ``draws`` joint draws of the holes' grades (0: none; None: 10,000, or
    fewer for a comparison with very many holes, `draws.default_draws`) with ``seed`` give
    the probable verdicts at ``confidence``, under ``prior_kind`` (``runs``,
    the default, or ``rank``) and, with ``model``, that model's labels
    calibrated on the judgments where it labelled a hole
    (`judgepool.core.holes.priors`); ``on_draws(done, draws)`` follows them."""
    if len(runs) < 2:
        raise ContractError("compare needs at least two runs")
    # the t distribution's import (about half a second) runs while the bounds
    # are computed: the statistics come after them
    import_scipy_in_background()
    queries, left_out = population(runs)
    records = [_records(run.evaluation) for run in runs]
    ndcg = np.array(
        [[index[q].ndcg for q in queries] for index in records], dtype=np.float64
    ).reshape(len(runs), len(queries))
    differences = np.stack([ndcg[a] - ndcg[b] for a, b in pairs], axis=1)

    # The draws, the bounds and the statistics are independent and mostly
    # numpy, which releases the GIL: the draws run on a thread of their own
    # while this one computes the bounds and then the statistics (with sixty
    # runs each took seconds, one after another). Each has its own generator
    # seeded as before, so the numbers do not depend on which ends first.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="judgepool-draws") as pool:
        drawing = pool.submit(
            comparison_draws, [run.top for run in runs], queries, judgments, contract, draws,
            seed, model, on_draws, pairs, prior_kind,
        )  # fmt: skip
        bounds = _all_bounds(runs, pairs, queries, judgments, contract)
        t_p = paired_t(differences)
        effects = effect_size(differences)
        flip_p, exact = sign_flip(differences, permutations, seed)
        intervals = bootstrap_interval(differences, bootstrap, seed)
        prior, drawn, draws_note, pair_draws = drawing.result()
    bounds_note, run_bounds, pair_bounds, pair_holes, query_bounds = bounds
    t_adjusted = adjust(list(t_p), correction)
    flip_adjusted = adjust(list(flip_p), correction)

    run_stats = tuple(
        RunStats(
            run=run.name,
            ndcg=float(ndcg[i].mean()) if queries else None,
            ci=mean_interval(ndcg[i]),
            bounds=run_bounds[i],
            unjudged_at_k=sum(records[i][q].unjudged_at_k for q in queries),
            **_run_draws(drawn, i, prior),
        )
        for i, run in enumerate(runs)
    )
    pair_stats = []
    for p, (a, b) in enumerate(pairs):
        d = differences[:, p]
        bound = pair_bounds[p]
        drawn_pair = pair_draws[p]
        p_a_ahead = drawn_pair.p_a_ahead if drawn_pair is not None else None
        pair_stats.append(
            PairStats(
                a=runs[a].name,
                b=runs[b].name,
                mean_diff=float(d.mean()) if d.size else None,
                wins=int((d > 0).sum()),
                ties=int((d == 0).sum()),
                losses=int((d < 0).sum()),
                t_p=t_p[p],
                randomization_p=flip_p[p] if d.size else None,
                randomization_exact=exact,
                bootstrap_ci=intervals[p],
                effect_size=effects[p],
                t_p_adjusted=t_adjusted[p],
                randomization_p_adjusted=flip_adjusted[p] if d.size else None,
                diff_bounds=bound,
                verdict=None if bound is None else verdict_of(*bound, p_a_ahead, confidence),
                holes=pair_holes[p],
                p_a_ahead=p_a_ahead,
                expected_diff=drawn_pair.expected_diff if drawn_pair is not None else None,
                expected_diff_interval=drawn_pair.interval if drawn_pair is not None else None,
                probable_leader=(
                    None if p_a_ahead is None else probable_leader(p_a_ahead, confidence)
                ),
            )
        )
    return ComparisonReport(
        contract=contract,
        population=tuple(queries),
        left_out=left_out,
        runs=run_stats,
        pairs=tuple(pair_stats),
        correction=correction,
        permutations=permutations,
        bootstrap=bootstrap,
        seed=seed,
        bounds_note=bounds_note,
        prior=prior,
        draws=0 if drawn is None else int(drawn.means.shape[0]),
        confidence=confidence,
        draws_note=draws_note,
        per_query_diffs={
            (runs[a].name, runs[b].name): tuple(differences[:, p].tolist())
            for p, (a, b) in enumerate(pairs)
        },
        per_query_bounds={}
        if query_bounds is None
        else {(runs[a].name, runs[b].name): query_bounds[p] for p, (a, b) in enumerate(pairs)},
    )


def _run_draws(drawn: DrawnMeans | None, r: int, prior: Prior | None) -> dict[str, Any]:
    """Run r's expected nDCG and interval over the draws, corrected by the
    runs prior's check where it was made (`core.holes.prior_draws.corrected`)."""
    if drawn is None:
        return {}
    expected, interval = drawn.run_expected(r)
    checked = corrected(expected, interval, None if prior is None else prior.check)
    return {"expected_ndcg": checked.expected, "expected_interval": checked.interval}


Bounds = tuple[
    str | None,
    list[tuple[float, float] | None],
    list[tuple[float, float] | None],
    list[int],
    list[tuple[tuple[float, float], ...]] | None,
]


def _all_bounds(
    runs: Sequence[RunInput],
    pairs: Sequence[tuple[int, int]],
    queries: Sequence[str],
    judgments: Judgments,
    contract: Contract,
) -> Bounds:
    """Why the bounds are missing or computed otherwise (None: neither), each
    run's and each pair's bounds, each pair's holes and per-query bounds."""
    note: str | None = None
    if contract.universe != "judged":
        note = (
            "no bounds under universe=candidates: each run's ideal comes from its own "
            "results, so the holes enter each run's ideal differently"
        )
        return note, [None] * len(runs), [None] * len(pairs), [0] * len(pairs), None
    if not queries:
        return None, [None] * len(runs), [None] * len(pairs), [0] * len(pairs), None
    if contract.unjudged == "condense":
        note = "bounds computed as under unjudged=zero (the documents keep their places)"
    return note, *_bounds(runs, pairs, queries, judgments, contract)


def _solve(problems: BoundsArrays, contract: Contract) -> tuple[F64, F64]:
    low, high = bound_arrays(
        problems.constants,
        problems.coefficients,
        problems.holes,
        problems.judged,
        problems.zero_values,
        GainLevels.of(contract),
        contract.k,
    )
    return _snap(low), _snap(high)


def _longest(runs: Sequence[RunInput]) -> int:
    return max((max(map(len, run.top.values()), default=0) for run in runs), default=0)


def queries_per_table(runs: int, depth: int) -> int:
    """How many queries one table of holes holds when ``runs`` runs are compared
    on lists of ``depth`` (the cutoff, or the longest list if shorter). Queries
    are independent: a table at a time, of a size that keeps its arrays
    (queries × runs × holes of the union, at most runs × depth) small."""
    return max(1, _TABLE_CELLS // (runs * runs * depth))


def _bounds(
    runs: Sequence[RunInput],
    pairs: Sequence[tuple[int, int]],
    queries: Sequence[str],
    judgments: Judgments,
    contract: Contract,
) -> tuple[
    list[tuple[float, float] | None],
    list[tuple[float, float] | None],
    list[int],
    list[tuple[tuple[float, float], ...]],
]:
    """Each run's and each pair's bounds (over every compared run's holes),
    each pair's number of holes (those its two runs returned), and each pair's
    bounds query by query.

    The problems of every run, and of a query for a block of pairs, are
    solved in one call (`HoleTable.every_run`, `HoleTable.pairs_at`): the
    rows are those of `HoleTable.run` and `HoleTable.pair`, and the solver's
    answer for a row depends on that row alone, so the numbers are theirs
    (the tests hold them). Each mean is taken over one contiguous row of a run's or a pair's
    per-query bounds, as the mean of their concatenation was."""
    gains = GainLevels.of(contract).gains
    tops = [run.top for run in runs]
    step = queries_per_table(len(runs), min(contract.k, max(_longest(runs), 1)))
    count = len(queries)
    run_low = np.empty((len(runs), count), dtype=np.float64)
    run_high = np.empty((len(runs), count), dtype=np.float64)
    pair_low = np.empty((len(pairs), count), dtype=np.float64)
    pair_high = np.empty((len(pairs), count), dtype=np.float64)
    first = np.array([a for a, _ in pairs], dtype=np.int64)
    second = np.array([b for _, b in pairs], dtype=np.int64)
    holes = np.zeros(len(pairs), dtype=np.int64)
    for start in range(0, count, step):
        chosen = queries[start : start + step]
        stop = start + len(chosen)
        table = HoleTable.build(tops, chosen, judgments, contract, gains)
        constants = table.run_constants()
        low, high = _solve(table.every_run(constants), contract)
        run_low[:, start:stop] = low.reshape(len(runs), -1)
        run_high[:, start:stop] = high.reshape(len(runs), -1)
        # a query at a time, each as wide as its own holes (a few columns
        # for most queries, where the table is as wide as the widest)
        for q in range(len(chosen)):
            block = _pairs_per_solve(int(table.union[q]))
            for at in range(0, len(pairs), block):
                a, b = first[at : at + block], second[at : at + block]
                low, high = _solve(table.pairs_at(q, a, b, constants), contract)
                pair_low[at : at + a.size, start + q] = low
                pair_high[at : at + a.size, start + q] = high
        block = _pairs_per_solve(len(chosen) * table.coefficient.shape[2])
        for at in range(0, len(pairs), block):
            holes[at : at + block] += table.own_holes_of(first[at : at + block],
                                                         second[at : at + block])  # fmt: skip
    run_bounds: list[tuple[float, float] | None] = [
        (float(low.mean()), float(high.mean())) for low, high in zip(run_low, run_high, strict=True)
    ]
    pair_bounds: list[tuple[float, float] | None] = []
    per_query: list[tuple[tuple[float, float], ...]] = []
    for low, high in zip(pair_low, pair_high, strict=True):
        means = _snap(np.array([low.mean(), high.mean()]))
        pair_bounds.append((float(means[0]), float(means[1])))
        per_query.append(tuple(zip(low.tolist(), high.tolist(), strict=True)))
    return run_bounds, pair_bounds, holes.tolist(), per_query


def _pairs_per_solve(width: int) -> int:
    """How many pairs one solver call (or one block of holes) takes, each a
    row of ``width`` cells: at most `_SOLVE_CELLS` cells (the solver's arrays
    are a few times that)."""
    return max(1, _SOLVE_CELLS // (width + 1))
