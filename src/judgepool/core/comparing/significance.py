"""Paired statistics of per-query differences: is run A better than run B beyond noise?

Every function takes the per-query differences d = nDCG(A) − nDCG(B) of one
or several pairs as the columns of an (n queries × pairs) array, so that the
random draws are made once and shared by every pair of a comparison: a pair
gets the same draws, so the same p-value and interval (to the last bit of a
sum), whatever other pairs are compared beside it; and two calls with the
same inputs and seed print the same numbers.

- `paired_t` — the two-sided paired t-test, t = d̄ / (s / √n) with n − 1
  degrees of freedom (what scipy's ``ttest_rel`` computes); null when s = 0.
- `sign_flip` — the paired randomisation test: the share of sign assignments
  whose mean is at least as far from 0 as d̄. All 2^n assignments when there
  are at most as many as the permutations asked for (an exact p-value);
  otherwise (b + 1) / (N + 1) over N random assignments, b of them as extreme.
- `bootstrap_interval` — the 2.5 and 97.5 percentiles of the mean of n
  differences drawn with replacement.
- `effect_size` (Cohen's d_z = d̄ / s) and `mean_interval` (the 95 % t interval
  of one run's mean).
- `adjust` — p-values adjusted for the number of pairs: Holm (controls the
  family-wise error), Benjamini–Hochberg (the false discovery rate), or none.

The t distribution comes from scipy.special (imported on first use: a
comparison pays for it, nothing else does; `import_scipy_in_background` lets
a comparison start that import while it computes the bounds). Its incomplete beta function is
a maintained, tested implementation; judgepool's numbers are held to scipy's
``ttest_rel`` to 1e-12 in the tests.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
Correction = Literal["holm", "bh", "none"]
CORRECTIONS: Final = ("holm", "bh", "none")
# |mean| ≥ |d̄| up to this relative tolerance counts as "as extreme": the same
# mean summed in another order may differ in its last bits.
_EXTREME_TOLERANCE: Final = 1e-12
# rows of random draws per block: bounds the memory of 10,000 × 7,000 draws
_BLOCK: Final = 512
# rows of bootstrap draws counted per bincount (see `bootstrap_interval`)
_COUNT_ROWS: Final = 32
# pairs per tile when the bootstrap's means are transposed (64 × 512 doubles:
# 256 kB, which stays in cache)
_TILE_PAIRS: Final = 64


def _one_blas_thread() -> Any:
    """A context in which the matrix products run on this thread alone.

    Each product here is small (512 draws × n queries × pairs) and there
    are tens of them: OpenBLAS's helper threads, woken for each, then wait
    spinning for the next, and on a machine of two cores they took a core
    from the comparison's other work (the draws' thread, other processes)
    for nothing: a second of CPU time in a comparison of sixty runs, the
    products themselves a tenth of that. The numbers are the same: OpenBLAS
    splits a product's rows and columns among its threads, never the sum
    behind one element (the tests hold the results to products made with
    every thread)."""
    # late, like scipy: only a comparison's products need it
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _scipy_special() -> Any:
    import scipy.special

    return scipy.special


def _import_quietly() -> None:
    # a failure here is raised where scipy is used, with the caller's context
    with contextlib.suppress(Exception):
        _scipy_special()


def import_scipy_in_background() -> None:
    """Start importing scipy.special on another thread, unless it is imported.

    The import takes about half a second, a good part of a large comparison;
    the caller computes something else meanwhile (a later import waits for
    this one to finish, as Python's import lock makes it). Not a daemon
    thread: the interpreter waits for an import under way before it exits."""
    if "scipy.special" not in sys.modules:
        threading.Thread(target=_import_quietly, name="judgepool-import-scipy").start()


def paired_t(differences: F64) -> list[float | None]:
    """Two-sided p-value of the paired t-test of each column; None where the
    differences do not vary (s = 0) or there are fewer than two."""
    n = differences.shape[0]
    if n < 2:
        return [None] * differences.shape[1]
    mean = differences.mean(axis=0)
    sd = differences.std(axis=0, ddof=1)
    special = _scipy_special()
    result: list[float | None] = []
    for m, s in zip(mean.tolist(), sd.tolist(), strict=True):
        if not s > 0:
            result.append(None)
            continue
        t = m / (s / math.sqrt(n))
        result.append(float(2.0 * special.stdtr(n - 1, -abs(t))))
    return result


def effect_size(differences: F64) -> list[float | None]:
    """d̄ / s of each column (Cohen's d_z); None where s = 0."""
    if differences.shape[0] < 2:
        return [None] * differences.shape[1]
    mean = differences.mean(axis=0)
    sd = differences.std(axis=0, ddof=1)
    return [m / s if s > 0 else None for m, s in zip(mean.tolist(), sd.tolist(), strict=True)]


def mean_interval(values: F64) -> tuple[float, float] | None:
    """The 95 % t interval of the mean of ``values``; None with fewer than two."""
    n = values.size
    if n < 2:
        return None
    mean = float(values.mean())
    half = float(_scipy_special().stdtrit(n - 1, 0.975)) * float(values.std(ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def sign_flip(differences: F64, permutations: int, seed: int) -> tuple[list[float], bool]:
    """The randomisation p-value of each column, and whether it is exact (every
    assignment enumerated) rather than drawn.

    Drawn: N = ``permutations`` sign assignments, the same for every column,
    read from the bit generator of ``default_rng(seed)`` (see the comment
    below for which bits flip which query), so that a seed repeats them."""
    n, pairs = differences.shape
    observed = np.abs(differences.sum(axis=0))
    threshold = observed * (1.0 - _EXTREME_TOLERANCE)
    if n == 0:
        return [1.0] * pairs, True
    exact = n < 63 and 2**n <= permutations
    with _one_blas_thread():
        return _sign_flip(differences, permutations, seed, exact, threshold)


def _sign_flip(
    differences: F64, permutations: int, seed: int, exact: bool, threshold: F64
) -> tuple[list[float], bool]:
    n, pairs = differences.shape
    extreme = np.zeros(pairs, dtype=np.int64)
    if exact:
        total = 2**n
        for start in range(0, total, _BLOCK):
            codes = np.arange(start, min(start + _BLOCK, total), dtype=np.int64)
            bits = (codes[:, None] >> np.arange(n, dtype=np.int64)[None, :]) & 1
            sums = (1.0 - 2.0 * bits) @ differences
            extreme += (np.abs(sums) >= threshold[None, :]).sum(axis=0)
        return (extreme / total).tolist(), True
    # Draw j is a row of n random bits, a set bit flipping that query's sign:
    # the 64-bit words j·W … j·W + W − 1 (W = ⌈n / 64⌉) of default_rng(seed)'s
    # bit generator, query i flipped when bit i % 64 of word i // 64 is set.
    # Words, not bytes or bounded integers: numpy buffers those per call, and
    # the draws must not depend on how they are split into blocks. The flipped
    # sum is the total minus twice the flipped queries' sum, so the 0/1 bits
    # enter the matrix product as they are, with no ±1 matrix.
    generator = np.random.default_rng(seed).bit_generator
    total = differences.sum(axis=0)
    words = (n + 63) // 64
    for start in range(0, permutations, _BLOCK):
        rows = min(_BLOCK, permutations - start)
        raw = np.asarray(generator.random_raw(rows * words), dtype="<u8").reshape(rows, words)
        flipped = np.unpackbits(raw.view(np.uint8), axis=1, count=n, bitorder="little")
        sums = total[None, :] - 2.0 * (flipped.astype(np.float64) @ differences)
        extreme += (np.abs(sums) >= threshold[None, :]).sum(axis=0)
    return ((extreme + 1) / (permutations + 1)).tolist(), False


def bootstrap_interval(
    differences: F64, resamples: int, seed: int
) -> list[tuple[float, float] | None]:
    """The 2.5 and 97.5 percentiles of the resampled means of each column."""
    n, pairs = differences.shape
    if n == 0 or resamples < 1:
        return [None] * pairs
    rng = np.random.default_rng(seed)
    # pair by pair (each pair's resampled means contiguous): the percentiles
    # then partition contiguous rows, in one call for both (the same order
    # statistics and the same interpolation as one call each on the resamples
    # column by column, in about a third of the time)
    means = np.empty((pairs, resamples), dtype=np.float64)
    with _one_blas_thread():
        _resampled_means(differences, rng, means)
    # partitioned in place: the means are ours, and a copy would double them
    low, high = np.percentile(means, [2.5, 97.5], axis=1, overwrite_input=True)
    return [(float(a), float(b)) for a, b in zip(low.tolist(), high.tolist(), strict=True)]


def _resampled_means(differences: F64, rng: np.random.Generator, means: F64) -> None:
    """``means[p, j]``: pair p's mean difference in resample j."""
    n, pairs = differences.shape
    resamples = means.shape[1]
    for start in range(0, resamples, _BLOCK):
        rows = min(_BLOCK, resamples - start)
        drawn = rng.integers(0, n, size=(rows, n))
        # how often each query was drawn, per resample: a matrix product then
        # gives every pair's resampled sums at once
        counts = np.empty((rows, n), dtype=np.float64)
        # counted a few rows at a time: bincount's output then stays in cache
        for first in range(0, rows, _COUNT_ROWS):
            part = drawn[first : first + _COUNT_ROWS]
            flat = (part + (np.arange(part.shape[0]) * n)[:, None]).ravel()
            counts[first : first + part.shape[0]].ravel()[:] = np.bincount(
                flat, minlength=part.size
            )
        block = (counts @ differences) / n
        # transposed a few pairs at a time: written in one go, the block's
        # columns land 80 kB apart and the copy costs more than the product
        for first in range(0, pairs, _TILE_PAIRS):
            tile = slice(first, first + _TILE_PAIRS)
            means[tile, start : start + rows] = block[:, tile].T


def adjust(pvalues: list[float | None], correction: Correction) -> list[float | None]:
    """``pvalues`` adjusted for their number (Nones, untestable pairs, are left
    out of the count and stay None)."""
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}")
    tested = [(i, p) for i, p in enumerate(pvalues) if p is not None]
    adjusted: list[float | None] = list(pvalues)
    m = len(tested)
    if correction == "none" or m == 0:
        return adjusted
    ordered = sorted(tested, key=lambda item: item[1])
    if correction == "holm":
        running = 0.0
        for rank, (index, p) in enumerate(ordered):
            running = max(running, min(1.0, (m - rank) * p))
            adjusted[index] = running
    else:  # Benjamini–Hochberg, from the largest p down
        running = 1.0
        for rank in range(m - 1, -1, -1):
            index, p = ordered[rank]
            running = min(running, m * p / (rank + 1))
            adjusted[index] = min(1.0, running)
    return adjusted
