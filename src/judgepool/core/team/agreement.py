"""Agreement between annotators: Cohen's κ (plain, linear- and quadratic-weighted)
and raw agreement per pair, Fleiss' κ and Krippendorff's α (ordinal, interval)
over all of them.

Pure numpy. Grades come as a matrix of raters × items with NaN where a rater
gave no grade (unsure is not a grade). Weights and distances are on the
grade *values*, so a scale's grades 0..3 are three steps apart whatever
grades were used; scikit-learn's `cohen_kappa_score` weighs label *indices*
instead, which agrees only when it is given the whole scale as ``labels``.

A statistic that is undefined on the data (no shared item, a single grade
used throughout, so chance agreement is already perfect) is a `Measured`
with value None and the reason, never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Weights = Literal["none", "linear", "quadratic"]
Level = Literal["ordinal", "interval"]

# Below this many items a κ or α is reported as undefined in per-query results.
# Why: the standard error of κ is about sqrt(p_o (1 − p_o) / n) / (1 − p_e); with
# a typical p_o 0.7 and p_e 0.4 it is 0.24 at n = 10 (a 95 % interval of ± 0.47,
# "fair" to "almost perfect"), and it only grows below that; on so few items one
# grade used throughout (κ undefined) is also common.
MIN_ITEMS: Final = 10

# How a value left undefined for lack of items says so (the command line
# counts these rather than listing each).
TOO_FEW: Final = "too few for a meaningful value"

# Relative tolerance under which an expected disagreement counts as zero.
_TINY: Final = 1e-12


@dataclass(frozen=True)
class Measured:
    """A statistic's value, or None and why it is undefined."""

    value: float | None
    reason: str | None = None

    @staticmethod
    def undefined(reason: str) -> Measured:
        return Measured(None, reason)

    def text(self) -> str:
        """Three decimals, or "-" when undefined. A value that rounds to zero
        reads "0.000": "-0.000" (a κ a hair below chance) suggests a
        disagreement the third decimal cannot show."""
        if self.value is None:
            return "-"
        shown = f"{self.value:.3f}"
        return "0.000" if shown == "-0.000" else shown


def _ratio(observed: float, expected: float, used: Floats) -> Measured:
    """1 − observed / expected disagreement; undefined when nothing is expected,
    which happens when one grade alone was ``used``."""
    if expected <= _TINY * max(1.0, abs(observed)):
        return Measured.undefined(_one_grade(used))
    return Measured(float(1.0 - observed / expected))


def _one_grade(values: Floats) -> str:
    used = np.unique(values)
    shown = ", ".join(_grade_text(v) for v in used)
    return f"only grade {shown} was given, so chance agreement is already perfect"


def _grade_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def cohen_kappa(a: Floats, b: Floats, weights: Weights = "none") -> Measured:
    """Cohen's κ of two raters' grades on the same items (no NaN), with
    ``weights`` none (any difference is a full disagreement), linear
    (|g − h|) or quadratic ((g − h)²) on the grade values."""
    if len(a) != len(b):
        raise ValueError("both raters must grade the same items")
    if len(a) == 0:
        return Measured.undefined("no item graded by both")
    values, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    size = len(values)
    n = len(a)
    observed = np.zeros((size, size))
    np.add.at(observed, (codes[:n], codes[n:]), 1.0)
    observed /= n
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    gap = values[:, None] - values[None, :]
    if weights == "none":
        weight = (gap != 0).astype(np.float64)
    elif weights == "linear":
        weight = np.abs(gap)
    else:
        weight = gap**2
    return _ratio(
        float((weight * observed).sum()),
        float((weight * expected).sum()),
        values,
    )


def raw_agreement(a: Floats, b: Floats) -> Measured:
    """The share of items both raters graded alike."""
    if len(a) == 0:
        return Measured.undefined("no item graded by both")
    return Measured(float(np.mean(a == b)))


def fleiss_kappa(grades: Floats) -> Measured:
    """Fleiss' κ over the items (columns) that every rater (row) graded; columns
    with a NaN are left out."""
    raters = grades.shape[0]
    if raters < 2:
        return Measured.undefined("needs two annotators or more")
    complete = grades[:, ~np.isnan(grades).any(axis=0)]
    items = complete.shape[1]
    if items == 0:
        return Measured.undefined("no item graded by every annotator")
    values, codes = np.unique(complete, return_inverse=True)
    counts = np.zeros((items, len(values)))
    np.add.at(counts, (np.tile(np.arange(items), raters), codes.reshape(-1)), 1.0)
    shares = counts.sum(axis=0) / (items * raters)
    per_item = ((counts**2).sum(axis=1) - raters) / (raters * (raters - 1))
    chance = float((shares**2).sum())
    observed = float(per_item.mean())
    # κ = (P̄ − P_e) / (1 − P_e): the same ratio with disagreements 1 − P̄ and 1 − P_e
    return _ratio(1.0 - observed, 1.0 - chance, values)


def _distances(values: Floats, totals: Floats, level: Level) -> Floats:
    """Krippendorff's squared distances between the grade values: (c − k)² on an
    interval scale; on an ordinal one, the squared count of values between c and
    k (each end counted half), so only their order matters."""
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    low = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
    high = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
    between = cumulative[high + 1] - cumulative[low]
    distances: Floats = (between - (totals[low] + totals[high]) / 2.0) ** 2
    return distances


def krippendorff_alpha(grades: Floats, level: Level) -> Measured:
    """Krippendorff's α over every item (column) that two raters (rows) or more
    graded; NaN is a missing grade. Built on the coincidence matrix, as in
    Krippendorff (2011), "Computing Krippendorff's alpha-reliability"."""
    present = ~np.isnan(grades)
    pairable = present.sum(axis=0) >= 2
    if not pairable.any():
        return Measured.undefined("no item graded by two annotators or more")
    kept = grades[:, pairable]
    raters, units = np.nonzero(~np.isnan(kept))
    values, codes = np.unique(kept[raters, units], return_inverse=True)
    counts = np.zeros((kept.shape[1], len(values)))
    np.add.at(counts, (units, codes), 1.0)
    per_unit = counts.sum(axis=1)
    weighted = counts / (per_unit - 1.0)[:, None]
    coincidences = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    totals = coincidences.sum(axis=0)
    n = float(totals.sum())
    delta = _distances(values, totals, level)
    observed = float((coincidences * delta).sum())
    expected = float((np.outer(totals, totals) * delta).sum()) / (n - 1.0)
    return _ratio(observed, expected, values)


@dataclass(frozen=True)
class PairAgreement:
    """Two raters over the items both graded."""

    a: str
    b: str
    items: int
    raw_agreement: Measured
    cohen_kappa: Measured
    kappa_linear: Measured
    kappa_quadratic: Measured


@dataclass(frozen=True)
class OverallAgreement:
    """All raters: Fleiss' κ over the items every one graded (``fleiss_items``),
    Krippendorff's α over the items two or more graded (``items``)."""

    annotators: tuple[str, ...]
    items: int
    fleiss_items: int
    fleiss_kappa: Measured
    alpha_ordinal: Measured
    alpha_interval: Measured


@dataclass(frozen=True)
class Agreement:
    """Every pair, and all raters together."""

    pairs: tuple[PairAgreement, ...]
    overall: OverallAgreement
    minimum: int = field(default=0)


def _too_few(items: int, minimum: int, what: str) -> Measured | None:
    if items < minimum:
        return Measured.undefined(f"{items} {what}, fewer than {minimum}: {TOO_FEW}")
    return None


def pair_agreement(
    a: str, b: str, grades_a: Floats, grades_b: Floats, minimum: int = 0
) -> PairAgreement:
    """Raw agreement and Cohen's κ (three weightings) over the items both graded."""
    shared = ~np.isnan(grades_a) & ~np.isnan(grades_b)
    x, y = grades_a[shared], grades_b[shared]
    items = int(shared.sum())
    few = _too_few(items, minimum, "items graded by both") if items else None
    if few is not None:
        return PairAgreement(a, b, items, few, few, few, few)
    return PairAgreement(
        a,
        b,
        items,
        raw_agreement(x, y),
        cohen_kappa(x, y, "none"),
        cohen_kappa(x, y, "linear"),
        cohen_kappa(x, y, "quadratic"),
    )


def agreement(names: Sequence[str], grades: Floats, minimum: int = 0) -> Agreement:
    """Every pair of ``names`` (rows of ``grades``) and all of them together;
    statistics over fewer than ``minimum`` items are undefined."""
    if grades.shape[0] != len(names):
        raise ValueError("one row of grades per annotator")
    pairs = tuple(
        pair_agreement(names[i], names[j], grades[i], grades[j], minimum)
        for i in range(len(names))
        for j in range(i + 1, len(names))
    )
    present = ~np.isnan(grades)
    items = int((present.sum(axis=0) >= 2).sum())
    every = int(present.all(axis=0).sum()) if len(names) else 0
    fleiss = (
        _too_few(every, minimum, "items graded by every annotator")
        if every and len(names) >= 2
        else None
    )
    alpha_few = _too_few(items, minimum, "items graded by two or more") if items else None
    return Agreement(
        pairs,
        OverallAgreement(
            tuple(names),
            items,
            every,
            fleiss or fleiss_kappa(grades),
            alpha_few or krippendorff_alpha(grades, "ordinal"),
            alpha_few or krippendorff_alpha(grades, "interval"),
        ),
        minimum,
    )
