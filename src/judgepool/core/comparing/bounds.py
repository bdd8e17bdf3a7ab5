"""Exact bounds of nDCG, and of a difference of nDCGs, under unjudged documents.

A *hole* is a document in a run's top k without a judgment. Its grade is
unknown: any grade of the scale. Judging it changes the run's DCG (by its
gain times its discount) and the ideal DCG too (it joins the judged
universe). Over every assignment of grades to a query's holes, one grade per
document whatever run returned it, an nDCG (or the difference of two runs'
nDCGs) takes a range; this module computes that range exactly.

One query's problem (`HoleQuery`): a value of the form

    (constant + Σ_h coefficient_h · gain(grade_h)) / IDCG(judged ∪ holes)

with, for one run, ``constant`` its DCG over the judged documents of its top
k and ``coefficient_h`` the discount at the hole's position (0 if the run
did not return it in its top k); for a difference of runs A and B, which
share the universe and so the ideal, the difference of their constants and of
their discounts.

Why the search is small. IDCG depends only on how many holes get each gain.
For fixed counts the numerator is a sum of coefficients times gains, largest
when the largest gains go with the largest coefficients and smallest when
they go with the smallest (the rearrangement inequality). So the range is
over *compositions* of the holes into gain levels (20 holes over 4 grades:
1,771), not over every assignment (4^20).

Two implementations. `ratio_range` enumerates the compositions: plain, the
reference. `ratio_ranges` solves many queries at once, as the comparison of
large runs needs: with the levels' gains L_1 > … > L_m > 0, Δ_j = L_j − L_{j+1}
(L_{m+1} = 0) and b_j the number of holes with gain ≥ L_j, both numerator and
ideal are sums of one term per level,

    numerator = constant + Σ_j Δ_j · S[b_j]      (S: prefix sums of the sorted coefficients)
    IDCG      = Σ_j Δ_j · P[min(k, J_j + b_j)]   (P: prefix sums of the discounts,
                                                  J_j: judged documents with gain ≥ L_j)

subject to b_1 ≤ … ≤ b_m. The best ratio is found by Dinkelbach's method (for
a trial value λ, maximise numerator − λ·IDCG; the maximiser's own ratio is
the next λ, until nothing beats it), each step a dynamic programme over the
levels: O(m · holes) per query and step instead of one term per composition.
The tests hold it to the enumeration, and both to brute force over every
assignment on random small cases. Many queries pose the same problem (with
one judged document per query, 7,000 queries hold a few hundred distinct
ones), so each distinct problem is solved once and its answer shared.

Zero IDCG: when the judged documents have no positive gain, the assignment
giving every hole gain 0 leaves IDCG at 0, and the query's value is what the
zero-IDCG policy says (``zero_value``; None: the query is left out, and the
range is then over the assignments that keep it).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from judgepool.core.terms.contract import Contract

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

# Dinkelbach's method ends in a few steps in practice (the ratio rises strictly
# at each step over a finite set); this only guards against a float stall.
_MAX_STEPS = 100


@dataclass(frozen=True)
class GainLevels:
    """The distinct positive gains a hole can take, highest first, and whether
    it can also take gain 0 (a grade ≤ 0, or a grade mapped to gain 0)."""

    gains: tuple[float, ...]
    zero_possible: bool

    @classmethod
    def of(cls, contract: Contract) -> GainLevels:
        all_gains = {contract.gain_of(grade) for grade in contract.scale.grades}
        positive = tuple(sorted((g for g in all_gains if g > 0), reverse=True))
        return cls(positive, any(g <= 0 for g in all_gains))

    def steps(self) -> F64:
        """Δ_j = L_j − L_{j+1}, with L_{m+1} = 0."""
        gains = np.array([*self.gains, 0.0], dtype=np.float64)
        steps: F64 = gains[:-1] - gains[1:]
        return steps


@dataclass(frozen=True)
class HoleQuery:
    """One query's bounds problem (see the module docstring).

    ``judged_gains`` are the positive gains of the judged universe (zeros may
    be left out: they never reach the ideal). ``zero_value`` is the value when
    IDCG is 0: the policy's nDCG for a run, 0 for a difference (both runs
    then get the same value), None when such a query is left out."""

    constant: float
    coefficients: tuple[float, ...]
    judged_gains: tuple[float, ...]
    zero_value: float | None


def ideal(gains: Sequence[float], k: int) -> float:
    """DCG@k of ``gains`` in their best order (as `metrics.ideal_dcg`)."""
    ordered = sorted((g for g in gains if g > 0), reverse=True)[:k]
    return sum((g / math.log2(i + 2) for i, g in enumerate(ordered)), 0.0)


def ratio_range(
    problem: HoleQuery, levels: GainLevels, k: int
) -> tuple[float | None, float | None]:
    """(lowest, highest) value over every assignment of gains to the holes, by
    enumerating compositions: the reference for `ratio_ranges`. (None, None)
    when every assignment leaves the query out."""
    choices = [*levels.gains, *([0.0] if levels.zero_possible else [])]
    if not choices:  # a scale without grades cannot happen; keep the type honest
        choices = [0.0]
    coefficients = sorted(problem.coefficients, reverse=True)
    values: list[float] = []
    # a composition, as gains in non-increasing order: the largest go with the
    # largest coefficients (the highest value), or with the smallest (the lowest)
    for assigned in itertools.combinations_with_replacement(choices, len(coefficients)):
        idcg = ideal([*problem.judged_gains, *assigned], k)
        if idcg > 0:
            for paired in (coefficients, coefficients[::-1]):
                numerator = problem.constant + sum(
                    (c * g for c, g in zip(paired, assigned, strict=True)), 0.0
                )
                values.append(numerator / idcg)
        elif problem.zero_value is not None:
            values.append(problem.zero_value)
    if not values:
        return None, None
    return min(values), max(values)


def ratio_ranges(problems: Sequence[HoleQuery], levels: GainLevels, k: int) -> tuple[F64, F64]:
    """(lowest, highest) value of every problem: `ratio_range`, for many queries
    at once. NaN where every assignment leaves the query out."""
    count = len(problems)
    holes = np.array([len(p.coefficients) for p in problems], dtype=np.int64)
    coefficients = np.zeros((count, int(holes.max()) if count else 0), dtype=np.float64)
    for row, problem in enumerate(problems):
        coefficients[row, : holes[row]] = problem.coefficients
    thresholds = np.array(levels.gains, dtype=np.float64)
    judged = np.zeros((count, thresholds.size), dtype=np.int64)
    for row, problem in enumerate(problems):
        gains = np.array(problem.judged_gains, dtype=np.float64)
        judged[row] = (gains[None, :] >= thresholds[:, None]).sum(axis=1)
    return bound_arrays(
        np.array([p.constant for p in problems], dtype=np.float64),
        coefficients,
        holes,
        judged,
        np.array([np.nan if p.zero_value is None else p.zero_value for p in problems]),
        levels,
        k,
    )


def bound_arrays(
    constants: F64,
    coefficients: F64,
    holes: I64,
    judged: I64,
    zero_values: F64,
    levels: GainLevels,
    k: int,
) -> tuple[F64, F64]:
    """`ratio_ranges` on arrays: one row per problem. ``coefficients`` holds a
    problem's coefficients in its first ``holes`` columns (the rest is
    ignored); ``judged[q, j]`` counts its judged documents with gain ≥ L_j;
    ``zero_values`` NaN means left out."""
    count = constants.size
    if count == 0:
        return np.zeros(0), np.zeros(0)
    inside = np.arange(coefficients.shape[1])[None, :] < holes[:, None]
    high = _highest_of_distinct(constants, np.where(inside, coefficients, -np.inf), holes,
                                judged, zero_values, levels, k)  # fmt: skip
    # the lowest value is minus the highest of the negated problem
    low = -_highest_of_distinct(-constants, np.where(inside, -coefficients, -np.inf), holes,
                                judged, -zero_values, levels, k)  # fmt: skip
    return low, high


def _highest_of_distinct(
    constants: F64,
    coefficients: F64,
    holes: I64,
    judged: I64,
    zero_values: F64,
    levels: GainLevels,
    k: int,
) -> F64:
    """`_highest`, solving each distinct problem once.

    Queries repeat one another: with one judged document per query, 7,000
    queries of a run hold a few hundred distinct problems (where the judged
    document sits, its grade, how many holes). A problem is its constant, its
    coefficients largest first (as `_highest` takes them: sorted once, here),
    its holes, judged counts and zero value; rows equal in every bit of these
    get the same answer (each row's computation reads only its own row), so
    one representative is solved for each. Rows are grouped by a hash of their bits and then
    compared bit for bit: a row unlike its group's representative (a hash
    collision) is solved on its own."""
    count = constants.size
    ordered = -np.sort(-coefficients, axis=1)
    if count < 2:
        return _highest(constants, ordered, holes, judged, zero_values, levels, k)
    key = np.column_stack(
        (constants, ordered, zero_values, holes.astype(np.float64), judged.astype(np.float64))
    ).view(np.uint64)
    _, first, group = np.unique(_row_hash(key), return_index=True, return_inverse=True)
    group = group.ravel()
    unlike = (key != key[first[group]]).any(axis=1)
    solve = np.concatenate((first, np.flatnonzero(unlike)))
    solved = _highest(
        constants[solve], ordered[solve], holes[solve], judged[solve], zero_values[solve],
        levels, k,
    )  # fmt: skip
    result: F64 = solved[group]
    result[unlike] = solved[first.size :]
    return result


def _highest(
    constants: F64,
    ordered: F64,
    holes: I64,
    judged: I64,
    zero_values: F64,
    levels: GainLevels,
    k: int,
) -> F64:
    """The highest value of every problem (Dinkelbach's method, see the module
    docstring). ``ordered``: one row per problem, its coefficients largest
    first and padded with -inf (sorted once by the caller, which compares
    the sorted rows too)."""
    count, width = ordered.shape[0], ordered.shape[1] + 1
    steps = levels.steps()
    m = steps.size
    if m == 0:
        return zero_values.copy()  # no grade has a positive gain: every IDCG is 0
    # S[q, x]: the sum of problem q's x largest coefficients (padding sorts last)
    ordered = np.where(np.isfinite(ordered), ordered, 0.0)
    sums = np.zeros((count, width), dtype=np.float64)
    np.cumsum(ordered, axis=1, out=sums[:, 1:])
    discounts = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, k + 2)))))
    x = np.arange(width, dtype=np.int64)
    # Q[q, j, x] = P[min(k, J[q, j] + x)]: the ideal's term of level j
    ideal_terms = discounts[np.minimum(k, judged[:, :, None] + x[None, None, :])]
    valid = x[None, :] <= holes[:, None]  # b_j is at most the number of holes
    # the lowest positive level decides whether IDCG is 0: b_m ≥ 1 unless a
    # judged document has a positive gain (the 0 case is taken separately)
    feasible = valid & (x[None, :] >= np.where(judged[:, m - 1] == 0, 1, 0)[:, None])
    if not levels.zero_possible:
        feasible &= x[None, :] == holes[:, None]  # every hole gets a positive gain
    has_option = feasible.any(axis=1)
    level_index = np.arange(m)[None, :]

    def ratio_at(rows: I64, b: I64) -> F64:
        """The value of levels ``b`` (one row per problem of ``rows``)."""
        at = rows[:, None]
        numerator = constants[rows] + (steps[None, :] * sums[at, b]).sum(axis=1)
        idcg = (steps[None, :] * ideal_terms[at, level_index, b]).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio: F64 = np.where(idcg > 0, numerator / idcg, -np.inf)
        return ratio

    # Start from the best of a few guesses, so that few steps remain: every
    # hole at the highest gain; only the holes with a positive coefficient
    # there (the others at 0). Infeasible guesses are moved into the range.
    everything = np.arange(count)
    positive = (ordered > 0).sum(axis=1)
    b = np.zeros((count, m), dtype=np.int64)
    lam = np.full(count, -np.inf)
    for guess in (holes, positive):
        levels_guess = np.repeat(guess[:, None], m, axis=1)
        last = levels_guess[:, m - 1]
        allowed = np.where(feasible, x[None, :], width)  # the nearest feasible b_m
        nearest = np.abs(allowed - last[:, None]).argmin(axis=1)
        levels_guess = np.minimum(levels_guess, nearest[:, None])
        levels_guess[:, m - 1] = nearest
        value = ratio_at(everything, levels_guess)
        better = value > lam
        b = np.where(better[:, None], levels_guess, b)
        lam = np.where(better, value, lam)
    active = has_option.copy()
    for _ in range(_MAX_STEPS):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        trial = _best_levels(
            sums[rows], ideal_terms[rows], steps, lam[rows], valid[rows], feasible[rows]
        )
        trial_lam = ratio_at(rows, trial)
        better = trial_lam > lam[rows]  # strictly better: another step
        rows, trial, trial_lam = rows[better], trial[better], trial_lam[better]
        b[rows] = trial
        lam[rows] = trial_lam
        active = np.zeros(count, dtype=bool)
        active[rows] = True
    result: F64 = np.where(has_option, lam, np.nan)
    # the zero-IDCG option: every hole at gain 0, and no judged positive gain
    zero_option = (judged[:, m - 1] == 0) & (levels.zero_possible | (holes == 0))
    take_zero = zero_option & ~np.isnan(zero_values) & ~(result >= zero_values)
    return np.where(take_zero, zero_values, result)


def _row_hash(key: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """A 64-bit hash of each row's bits: Σ_c key[c] · M_c modulo 2^64, with
    fixed odd multipliers (equal rows, equal hashes; unequal rows collide
    rarely, and `_highest_of_distinct` checks)."""
    multipliers = np.asarray(
        np.random.default_rng(0).integers(1, 2**63, size=key.shape[1], dtype=np.uint64)
    )
    multipliers |= np.uint64(1)
    hashed: npt.NDArray[np.uint64] = (key * multipliers[None, :]).sum(axis=1, dtype=np.uint64)
    return hashed


def _best_levels(
    sums: F64, ideal_terms: F64, steps: F64, lam: F64, valid: npt.NDArray[np.bool_],
    feasible: npt.NDArray[np.bool_],
) -> I64:  # fmt: skip
    """For each problem, the b_1 ≤ … ≤ b_m maximising Σ_j Δ_j (S[b_j] − λ Q_j[b_j])."""
    count, width = sums.shape
    m = steps.size
    terms = steps[None, :, None] * (sums[:, None, :] - lam[:, None, None] * ideal_terms)
    terms = np.where(valid[:, None, :], terms, -np.inf)
    terms[:, m - 1, :] = np.where(feasible, terms[:, m - 1, :], -np.inf)
    # best[j][q, x]: the best of levels 1..j with b_j = x
    best = [terms[:, 0, :]]
    for j in range(1, m):
        best.append(terms[:, j, :] + np.maximum.accumulate(best[-1], axis=1))
    chosen = np.zeros((count, m), dtype=np.int64)
    chosen[:, m - 1] = np.argmax(best[m - 1], axis=1)
    x = np.arange(width)
    for j in range(m - 2, -1, -1):
        allowed = np.where(x[None, :] <= chosen[:, j + 1, None], best[j], -np.inf)
        chosen[:, j] = np.argmax(allowed, axis=1)
    return chosen


# One run's top k, as (document or entity, grade or None for a hole) in rank order.
TopK = Sequence[tuple[str, int | None]]


def query_problem(
    lists: Sequence[tuple[float, TopK]], judged: dict[str, int], contract: Contract
) -> HoleQuery:
    """The bounds problem of ``Σ sign · nDCG(list)`` for one query under the
    judged universe: one list with sign 1 for a run's own bounds, A's with 1
    and B's with −1 for a difference. Every hole of every list joins the
    universe, with one grade whatever list holds it."""
    constant = 0.0
    coefficients: dict[str, float] = {}
    for sign, top in lists:
        for position, (doc, grade) in enumerate(top[: contract.k], start=1):
            weight = sign / math.log2(position + 1)
            if grade is None:
                coefficients[doc] = coefficients.get(doc, 0.0) + weight
            else:
                constant += weight * contract.gain_of(grade)
    judged_gains = tuple(g for g in (contract.gain_of(v) for v in judged.values()) if g > 0)
    policy_value = {"zero": 0.0, "one": 1.0, "exclude": None}[contract.zero_idcg]
    signs = sum(sign for sign, _ in lists)
    zero_value = None if policy_value is None else policy_value * signs
    return HoleQuery(constant, tuple(coefficients.values()), judged_gains, zero_value)
