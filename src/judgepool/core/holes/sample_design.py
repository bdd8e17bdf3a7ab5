"""A probability sample of the holes: the design behind ``holes --sample``.

The probable verdicts weigh each hole's grade by a prior, and are as right as
the prior is. A *sample* of the holes, drawn at random with known inclusion
probabilities and then judged, gives estimates that do not lean on any prior
(`judgepool.core.holes.sample_estimate`). This module fixes which holes make up the
*frame* (what is sampled from), how likely each is to be drawn, and draws.

The frame: every hole of a comparison, as for the bounds and the draws — a
document in some compared run's top k on the population's queries without a
judgment — each (query, document) once, in (query, document) order so that
neither the order the runs are named in nor the run that found a hole first
changes the draw. Its digest (`frame_digest`) is what a sample file carries
to be checked against the comparison it is used with.

The design is Poisson sampling: hole h is drawn, independently of every other,
with probability π_h = min(1, λ · w_h), λ chosen so that Σ π_h is the sample
size asked for (the *expected* size: the realised one varies around it). Why
Poisson: the first-order probabilities are the π_h themselves and the
second-order ones are π_h · π_h' (independence), so the estimators and their
variances are sums over the sampled holes, plain to compute and to check by
enumerating every sample of a small design.

The weight w_h is how far one unit of the hole's gain moves the compared
runs' nDCG on its query, summed over the runs. A hole moves a run's nDCG two
ways: through the run's DCG, by its discount there (more at the top, and in
more runs the more runs return it), and through the query's ideal, which
every run shares: a relevant hole joins the ideal at its next place, which
lowers each run's nDCG by the run's share of the ideal. With D⁺_q the ideal
of the query's judged documents plus one more of the top gain, s_q = (D⁺_q −
D_q) / top gain the ideal's rise per unit of gain (0 once the judged
documents fill the top k with the top grade), and R_rq = min(1, C_rq / D⁺_q)
run r's judged DCG as a share of it,

    w_h = Σ_r | c_rh − R_rq · s_q | / D⁺_q.

Holes that move the comparison most are drawn most often, and a drawn hole
stands for 1 / π_h holes like it, so the estimates' variance falls where it
matters. The replays (``tests/benchmarks/bench_sample.py``) chose it over
the discount alone (Σ_r c_rh, which leaves the ideal out: a relevant hole
deep in one run, drawn with a small π, then stood for a dozen relevant
documents in its query's ideal) and over one rate within each query. The
weights use the judgments but no prior and no grade of a hole; the file
records each sampled hole's π, so the estimate needs nothing else of them.

The seed's meaning: ``numpy.random.default_rng(seed).random(N)`` gives the N
holes of the frame, in frame order, one uniform each; hole h is in the sample
when its uniform is below π_h.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from judgepool.core.comparing.bounds import GainLevels, TopK
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Item = tuple[str, str]

# the design's name, as a sample file records it
DESIGN: Final = "poisson-impact"


@dataclass(frozen=True)
class Frame:
    """The holes of a comparison as the sample and its estimates need them.

    ``items[h]``: hole h's (query, document), sorted; ``hole_query[h]``: its
    query's index in ``queries`` (the population); ``best_rank[h]``: its best
    (1-based) rank among the runs; ``coefficients[r, h]``: run r's discount
    on it (0: r did not return it in its top k). ``constants[r, q]``: run r's
    DCG over the judged documents of its top k on query q; ``judged[q, j]``:
    the judged documents of q with gain ≥ the j-th gain level (every judged
    document of the query, not only those of the runs: the contract's
    universe). ``zero_value``: a query's nDCG when its ideal is 0."""

    queries: tuple[str, ...]
    items: tuple[Item, ...]
    hole_query: I64
    best_rank: I64
    coefficients: F64
    constants: F64
    judged: I64
    levels: GainLevels
    k: int
    zero_value: float

    @property
    def holes(self) -> int:
        return len(self.items)

    @property
    def runs(self) -> int:
        return int(self.constants.shape[0])

    def weights(self) -> F64:
        """w_h: how far a unit of each hole's gain moves the runs' nDCG on its
        query, through their DCGs and the shared ideal (the module docstring)."""
        judged = self.judged.astype(np.float64)
        base = ideal_at(self, judged)
        # the ideal once one more document of the top gain joins the judged ones:
        # never 0, so a query nothing relevant is judged for still has a scale
        plus = ideal_at(self, judged + 1.0)
        rise = (plus - base) / max(self.levels.gains, default=1.0)
        share = np.minimum(self.constants / plus[None, :], 1.0)
        where = self.hole_query
        moved = np.abs(self.coefficients - share[:, where] * rise[where][None, :])
        # summed in sorted order: the same bits whatever order the runs came in
        weights: F64 = np.sort(moved, axis=0).sum(axis=0) / plus[where]
        return weights

    def digest(self) -> str:
        return frame_digest(self.items)


def ideal_at(frame: Frame, counts: F64) -> F64:
    """Each query's ideal DCG at ``counts[q, j]`` documents with gain ≥ level j
    (the formula of `judgepool.core.comparing.bounds`; a fractional count reads the
    prefix sums of the discounts by linear interpolation, as estimated counts
    are fractional)."""
    return ideal_and_slopes(frame.k, frame.levels, counts)[0]


def ideal_and_slopes(k: int, levels: GainLevels, counts: F64) -> tuple[F64, F64]:
    """The ideal DCG at ``counts[q, j]`` (rows: queries; columns: the gain
    levels, highest first), and its slope in each count: the prefix sums P of
    the discounts read by linear interpolation, flat from k on and at
    0 below 0."""
    discounts = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    prefix = np.concatenate(([0.0], np.cumsum(discounts)))
    steps = levels.steps()
    x = np.clip(counts, 0.0, float(k))
    whole = np.minimum(np.floor(x).astype(np.int64), k)
    # P's slope between whole and whole + 1: the discount of place whole + 1
    slope = np.where(whole < k, discounts[np.minimum(whole, k - 1)], 0.0)
    values = prefix[whole] + (x - whole) * slope
    slope = np.where(counts < 0, 0.0, slope)
    ideal: F64 = (values * steps).sum(axis=-1)
    slopes: F64 = slope * steps
    return ideal, slopes


def frame_digest(items: Sequence[Item]) -> str:
    """sha256 over the frame's holes in order, one ``query<TAB>doc`` line each."""
    text = "".join(f"{query}\t{doc}\n" for query, doc in items)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_frame(
    tops: Sequence[Mapping[str, TopK]],
    queries: Sequence[str],
    judgments: Mapping[str, Mapping[str, int]],
    contract: Contract,
    withheld: Collection[Item] = (),
) -> Frame:
    """The frame of the runs' ``tops`` (each run's top k by query, grades or
    None for a hole) on the population ``queries``.

    ``withheld``: judged items to count as holes, their grades kept out of
    every known part (the runs' DCGs, the ideal's judged counts). The
    sampled holes are judged by the time their sample is used: withheld,
    they are again the holes they were when drawn, and the frame is the one
    they were drawn from."""
    if contract.universe != "judged":
        raise ContractError(
            "no sample under universe=candidates: each run's ideal comes from its own "
            "results, so a hole's grade enters each run's ideal differently (as for the bounds)"
        )
    k = contract.k
    levels = GainLevels.of(contract)
    discounts = [1.0 / math.log2(position + 1) for position in range(1, k + 1)]
    hidden = set(withheld)
    found: dict[Item, tuple[int, list[float]]] = {}  # hole -> best rank, discount per run
    constants = np.zeros((len(tops), len(queries)), dtype=np.float64)
    judged = np.zeros((len(queries), len(levels.gains)), dtype=np.int64)
    for q, query_id in enumerate(queries):
        known = {
            doc: grade
            for doc, grade in judgments.get(query_id, {}).items()
            if (query_id, doc) not in hidden
        }
        gains = [contract.gain_of(grade) for grade in known.values()]
        judged[q] = [sum(1 for gain in gains if gain >= level) for level in levels.gains]
        for r, top in enumerate(tops):
            for position, (doc, grade) in enumerate(top.get(query_id, ())[:k]):
                if grade is not None and (query_id, doc) not in hidden:
                    constants[r, q] += discounts[position] * contract.gain_of(grade)
                    continue
                rank, per_run = found.setdefault((query_id, doc), (position + 1, [0.0] * len(tops)))
                per_run[r] += discounts[position]
                if position + 1 < rank:
                    found[(query_id, doc)] = (position + 1, per_run)
    items = tuple(sorted(found))
    index = {query_id: q for q, query_id in enumerate(queries)}
    coefficients = np.array(
        [[found[item][1][r] for item in items] for r in range(len(tops))], dtype=np.float64
    ).reshape(len(tops), len(items))
    return Frame(
        queries=tuple(queries),
        items=items,
        hole_query=np.array([index[query] for query, _ in items], dtype=np.int64),
        best_rank=np.array([found[item][0] for item in items], dtype=np.int64),
        coefficients=coefficients,
        constants=constants,
        judged=judged,
        levels=levels,
        k=k,
        zero_value=1.0 if contract.zero_idcg == "one" else 0.0,
    )


def inclusion_probabilities(weights: F64, size: float) -> F64:
    """π_h = min(1, λ · w_h) with Σ π_h = ``size`` (every π 1 when ``size`` is
    the number of holes or more). The holes whose λ · w_h passes 1 are taken
    for sure and λ is solved again for the rest, until none passes."""
    if weights.size and float(weights.min()) <= 0:
        raise ContractError("every hole's weight must be positive (it is in some run's top k)")
    if size <= 0:
        raise ContractError(f"the sample size must be positive, got {size}")
    if size >= weights.size:
        return np.ones_like(weights)
    certain = np.zeros(weights.size, dtype=bool)
    while True:
        scale = (size - certain.sum()) / weights[~certain].sum()
        passing = ~certain & (scale * weights >= 1.0)
        if not passing.any():
            break
        certain |= passing
    probabilities: F64 = np.where(certain, 1.0, scale * weights)
    return probabilities


@dataclass(frozen=True)
class Sample:
    """A drawn sample: every frame hole's inclusion probability, and which
    holes were drawn (``drawn[h]``)."""

    size: float
    seed: int
    probabilities: F64
    drawn: Bools

    @property
    def indices(self) -> I64:
        found: I64 = np.flatnonzero(self.drawn).astype(np.int64)
        return found


def draw_sample(frame: Frame, size: float, seed: int) -> Sample:
    """The Poisson sample of ``frame`` of expected size ``size`` with ``seed``
    (the seed's meaning: the module docstring)."""
    probabilities = inclusion_probabilities(frame.weights(), size)
    uniforms = np.random.default_rng(seed).random(frame.holes)
    return Sample(size, seed, probabilities, uniforms < probabilities)
