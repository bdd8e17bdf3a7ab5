"""The paired statistics, held to scipy (t-test), statsmodels (Holm, BH),
exact enumeration (the randomisation test) and a large Monte Carlo sample."""

from __future__ import annotations

import gc
import itertools
import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from judgepool.core.comparing.significance import (
    adjust,
    bootstrap_interval,
    effect_size,
    mean_interval,
    paired_t,
    sign_flip,
)

NDCG = st.floats(0.0, 1.0, allow_nan=False)


@settings(deadline=None, max_examples=300)
@given(
    pairs=st.integers(1, 40).flatmap(
        lambda n: st.lists(st.tuples(NDCG, NDCG), min_size=n, max_size=n)
    )
)
def test_t_test_equals_scipys_ttest_rel(pairs: list[tuple[float, float]]) -> None:
    a = np.array([x for x, _ in pairs])
    b = np.array([y for _, y in pairs])
    differences = (a - b)[:, None]
    got = paired_t(differences)[0]
    if len(pairs) < 2 or not np.std(a - b, ddof=1) > 0:
        assert got is None
        return
    want = stats.ttest_rel(a, b).pvalue
    assert got is not None and abs(got - want) <= 1e-12, (got, want)


def test_t_test_on_7000_queries() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.uniform(0, 1, 6980), rng.uniform(0, 1, 6980)
    b[::3] = a[::3]  # ties too
    got = paired_t((a - b)[:, None])[0]
    assert got is not None and abs(got - stats.ttest_rel(a, b).pvalue) <= 1e-12


def test_effect_size_and_mean_interval() -> None:
    d = np.array([0.1, 0.3, -0.05, 0.2])
    assert effect_size(d[:, None])[0] == pytest.approx(d.mean() / d.std(ddof=1), abs=1e-15)
    assert effect_size(np.zeros((4, 1)))[0] is None
    values = np.array([0.2, 0.5, 0.4, 0.9, 0.3])
    low, high = mean_interval(values) or (0, 0)
    want = stats.t.interval(0.95, 4, loc=values.mean(), scale=stats.sem(values))
    assert low == pytest.approx(want[0], abs=1e-12) and high == pytest.approx(want[1], abs=1e-12)
    assert mean_interval(values[:1]) is None


def brute_sign_flip(d: np.ndarray) -> float:
    observed = abs(d.sum())
    hits = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed * (1 - 1e-12)
        for signs in itertools.product([1, -1], repeat=d.size)
    )
    return hits / 2**d.size


@settings(deadline=None, max_examples=200)
@given(values=st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=10))
def test_randomisation_enumerates_exactly_when_it_can(values: list[float]) -> None:
    d = np.array(values)
    p, exact = sign_flip(d[:, None], permutations=10_000, seed=1)
    assert exact
    assert p[0] == brute_sign_flip(d)


def test_randomisation_with_ties_of_zero_is_one() -> None:
    p, exact = sign_flip(np.zeros((5, 1)), permutations=100, seed=0)
    assert exact and p == [1.0]


@pytest.mark.parametrize("effect", [0.0, 0.03, 0.08])
def test_randomisation_drawn_lies_within_three_standard_errors(effect: float) -> None:
    rng = np.random.default_rng(11)
    d = rng.normal(effect, 0.3, size=60)[:, None]
    p, exact = sign_flip(d, permutations=10_000, seed=3)
    assert not exact
    reference, _ = sign_flip(d, permutations=100_000, seed=99)
    se = math.sqrt(max(reference[0] * (1 - reference[0]), 1e-12) / 10_000)
    assert abs(p[0] - reference[0]) <= 3 * se + 1 / 10_001, (p, reference)


def test_draws_are_shared_by_pairs_and_repeat_with_the_seed() -> None:
    rng = np.random.default_rng(2)
    d = rng.normal(0.02, 0.2, size=(200, 3))
    alone = sign_flip(d[:, 1:2], permutations=2_000, seed=7)[0][0]
    together = sign_flip(d, permutations=2_000, seed=7)[0]
    assert together[1] == alone
    assert sign_flip(d, 2_000, 7) == sign_flip(d, 2_000, 7)
    assert bootstrap_interval(d, 1_000, 7) == bootstrap_interval(d, 1_000, 7)
    # the same draws; a matrix product of another shape may round the last bit
    assert bootstrap_interval(d[:, 1:2], 1_000, 7)[0] == pytest.approx(
        bootstrap_interval(d, 1_000, 7)[1], abs=1e-15
    )


def test_bootstrap_interval_covers_the_mean_and_matches_a_plain_loop() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.05, 0.2, size=(50, 1))
    low, high = bootstrap_interval(d, 2_000, seed=5)[0] or (0, 0)
    assert low < d.mean() < high
    # the same draws, resampled one by one
    again = np.random.default_rng(5)
    means = []
    for start in range(0, 2_000, 512):
        rows = min(512, 2_000 - start)
        drawn = again.integers(0, 50, size=(rows, 50))
        means.extend(d[drawn, 0].mean(axis=1))
    assert low == pytest.approx(np.percentile(means, 2.5), abs=1e-12)
    assert high == pytest.approx(np.percentile(means, 97.5), abs=1e-12)


@contextmanager
def _without_collections() -> Iterator[None]:
    """``gc.collect`` made a no-op for a while. statsmodels' Holm branch calls
    it on every call (to free its temporaries on huge inputs): in a test
    process that holds the suite's objects, that is a tenth of a second or
    more per call, the test's whole cost, and the p-values do not depend on it."""
    collect = gc.collect
    gc.collect = lambda generation=2: 0
    try:
        yield
    finally:
        gc.collect = collect


@settings(deadline=None, max_examples=300)
@given(
    pvalues=st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=20),
    method=st.sampled_from(["holm", "bh"]),
)
def test_adjusted_p_values_equal_statsmodels(pvalues: list[float], method: str) -> None:
    with _without_collections():
        want = multipletests(pvalues, method="holm" if method == "holm" else "fdr_bh")[1]
    got = adjust(list(pvalues), method)  # type: ignore[arg-type]
    for g, w in zip(got, want, strict=True):
        assert g is not None and abs(g - w) <= 1e-12, (got, want)


def test_untestable_pairs_stay_null_and_do_not_count() -> None:
    assert adjust([0.01, None, 0.04], "holm") == [0.02, None, 0.04]
    assert adjust([0.01, None, 0.04], "none") == [0.01, None, 0.04]


def plain_sign_flip(d: np.ndarray, permutations: int, seed: int) -> float:
    """The drawn randomisation test as `sign_flip` documents its draws, one draw
    and one query at a time: draw j reads ⌈n / 64⌉ 64-bit words of the seeded
    bit generator, and bit i % 64 of word i // 64 set flips query i."""
    n = d.size
    bits = np.random.default_rng(seed).bit_generator
    words = (n + 63) // 64
    observed = abs(math.fsum(d))
    extreme = 0
    for _ in range(permutations):
        raw = [int(w) for w in bits.random_raw(words)]
        flipped = [(raw[i // 64] >> (i % 64)) & 1 for i in range(n)]
        total = math.fsum(-x if f else x for x, f in zip(d.tolist(), flipped, strict=True))
        extreme += abs(total) >= observed * (1 - 1e-12)
    return (extreme + 1) / (permutations + 1)


@pytest.mark.parametrize(("n", "seed"), [(14, 0), (64, 1), (65, 2), (130, 3), (700, 4)])
def test_drawn_randomisation_equals_the_plain_draw_by_draw_definition(n: int, seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    d = rng.normal(0.02, 0.1, size=n)
    d[: n // 5] = 0.0  # ties of zero, as queries where two runs agree
    permutations = 700  # fewer than 2^n: drawn, not enumerated
    p, exact = sign_flip(d[:, None], permutations=permutations, seed=seed)
    assert not exact
    assert p[0] == plain_sign_flip(d, permutations, seed)
    # more than one block of draws: the blocks split one stream
    p, _ = sign_flip(d[:, None], permutations=1_300, seed=seed)
    assert p[0] == plain_sign_flip(d, 1_300, seed)


def column_percentiles(differences: np.ndarray, resamples: int, seed: int) -> list[object]:
    """`bootstrap_interval` as it was before its means were laid out pair by
    pair: the resamples' means row by row, each percentile taken down the
    columns in a call of its own. The bits the faster layout must keep."""
    n, pairs = differences.shape
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, pairs), dtype=np.float64)
    for start in range(0, resamples, 512):
        rows = min(512, resamples - start)
        drawn = rng.integers(0, n, size=(rows, n))
        counts = np.zeros((rows, n), dtype=np.float64)
        for row in range(rows):
            counts[row] = np.bincount(drawn[row], minlength=n)
        means[start : start + rows] = (counts @ differences) / n
    low = np.percentile(means, 2.5, axis=0)
    high = np.percentile(means, 97.5, axis=0)
    return [(float(a), float(b)) for a, b in zip(low, high, strict=True)]


@pytest.mark.parametrize(
    ("n", "pairs", "resamples"), [(1, 1, 1), (7, 3, 513), (54, 200, 2_000), (43, 130, 10_000)]
)
def test_bootstrap_interval_keeps_the_bits_of_column_percentiles(
    n: int, pairs: int, resamples: int
) -> None:
    rng = np.random.default_rng(n * pairs)
    differences = rng.normal(0.0, 0.2, size=(n, pairs))
    differences[:, ::7] = 0.0  # pairs that never differ: every mean 0
    assert bootstrap_interval(differences, resamples, 3) == column_percentiles(
        differences, resamples, 3
    )
