"""Agreement statistics held to independent implementations: scikit-learn's
`cohen_kappa_score` (plain, linear, quadratic), the `krippendorff` package
(ordinal, interval, with missing values), statsmodels' `fleiss_kappa`, and
Krippendorff's own published example; and the degenerate cases, which are
None with a reason, never NaN."""

from __future__ import annotations

import json
import math

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from judgepool.core.team.agreement import (
    Measured,
    agreement,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    raw_agreement,
)
from judgepool.services.agreement import agreement_dict

NAN = np.nan

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C:
# 4 observers, 12 units, values 1..5, missing values as NaN.
PUBLISHED = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)

WEIGHTS = (("none", None), ("linear", "linear"), ("quadratic", "quadratic"))


def test_krippendorffs_published_example() -> None:
    # the paper's values, to its three decimals
    assert round(krippendorff_alpha(PUBLISHED, "ordinal").value or 0, 3) == 0.815
    assert round(krippendorff_alpha(PUBLISHED, "interval").value or 0, 3) == 0.849
    for level in ("ordinal", "interval"):
        ours = krippendorff_alpha(PUBLISHED, level).value
        theirs = krippendorff.alpha(reliability_data=PUBLISHED, level_of_measurement=level)
        assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_cohen_kappa_equals_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    low, high = sorted(int(v) for v in rng.integers(-2, 6, 2))
    high = max(high, low + 1)
    a = rng.integers(low, high + 1, n).astype(float)
    # b agrees with a more often than chance, so the κs are not all near 0
    noise = rng.integers(-1, 2, n)
    b = np.where(rng.random(n) < 0.6, a, np.clip(a + noise, low, high)).astype(float)
    labels = list(range(low, high + 1))  # the whole scale: sklearn weighs label indices
    for ours, theirs in WEIGHTS:
        expected = cohen_kappa_score(a, b, weights=theirs, labels=labels)
        measured = cohen_kappa(a, b, ours)  # type: ignore[arg-type]
        if math.isnan(expected):
            assert measured.value is None and measured.reason
        else:
            assert measured.value == pytest.approx(expected, abs=1e-12), ours
    assert raw_agreement(a, b).value == pytest.approx(float(np.mean(a == b)))


def test_weights_are_on_grade_values_not_on_the_grades_used() -> None:
    # grade 2 is never given: 1 and 3 are still two steps apart
    a = np.array([0.0, 1, 3, 3, 0, 1])
    b = np.array([0.0, 3, 1, 3, 1, 1])
    for ours, theirs in WEIGHTS:
        expected = cohen_kappa_score(a, b, weights=theirs, labels=[0, 1, 2, 3])
        assert cohen_kappa(a, b, ours).value == pytest.approx(expected, abs=1e-12)  # type: ignore[arg-type]
    compressed = cohen_kappa_score(a, b, weights="linear")  # labels {0, 1, 3}: 1 and 3 adjacent
    assert cohen_kappa(a, b, "linear").value != pytest.approx(compressed)


@pytest.mark.parametrize("seed", range(40))
def test_krippendorff_alpha_equals_the_package_with_missing_values(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    raters, items = int(rng.integers(2, 7)), int(rng.integers(2, 80))
    truth = rng.integers(0, 4, items)
    grades = np.clip(truth + rng.integers(-1, 2, (raters, items)), 0, 3).astype(float)
    grades[rng.random(grades.shape) < rng.uniform(0, 0.6)] = NAN
    pairable = (~np.isnan(grades)).sum(axis=0) >= 2
    distinct = np.unique(grades[:, pairable][~np.isnan(grades[:, pairable])])
    for level in ("ordinal", "interval"):
        ours = krippendorff_alpha(grades, level)  # type: ignore[arg-type]
        if len(distinct) < 2:
            assert ours.value is None and ours.reason
            continue
        theirs = krippendorff.alpha(reliability_data=grades, level_of_measurement=level)
        assert ours.value == pytest.approx(theirs, abs=1e-9), level


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("seed", range(30))
def test_fleiss_kappa_equals_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(2000 + seed)
    raters, items = int(rng.integers(2, 7)), int(rng.integers(1, 100))
    truth = rng.integers(0, 4, items)
    grades = np.clip(truth + rng.integers(-1, 2, (raters, items)), 0, 3).astype(float)
    table, _ = aggregate_raters(grades.T)
    expected = statsmodels_fleiss(table, method="fleiss")
    measured = fleiss_kappa(grades)
    if math.isnan(expected):
        assert measured.value is None and measured.reason
    else:
        assert measured.value == pytest.approx(expected, abs=1e-12)
    # an item someone did not grade is left out of Fleiss' κ
    missing = np.concatenate([grades, np.full((raters, 1), 2.0)], axis=1)
    missing[0, -1] = NAN
    assert fleiss_kappa(missing).value == measured.value


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_one_grade_throughout_is_undefined_with_a_reason() -> None:
    same = np.array([2.0, 2, 2, 2])
    for weights in ("none", "linear", "quadratic"):
        found = cohen_kappa(same, same, weights)  # type: ignore[arg-type]
        assert found.value is None
        assert found.reason == "only grade 2 was given, so chance agreement is already perfect"
    assert math.isnan(cohen_kappa_score(same, same))  # what the peer says instead
    grid = np.array([[1.0, 1, 1], [1, 1, NAN]])
    assert fleiss_kappa(grid).value is None
    assert krippendorff_alpha(grid, "ordinal").value is None
    assert krippendorff_alpha(grid, "interval").reason


def test_nothing_shared_is_undefined_and_json_has_no_nan() -> None:
    grades = np.array([[1.0, NAN, 2], [NAN, 3, NAN], [NAN, NAN, NAN]])
    found = agreement(["a", "b", "c"], grades)
    pair = found.pairs[0]
    assert (pair.a, pair.b, pair.items) == ("a", "b", 0)
    assert pair.cohen_kappa.value is None and pair.cohen_kappa.reason == "no item graded by both"
    assert found.overall.items == 0 and found.overall.fleiss_items == 0
    assert found.overall.fleiss_kappa.reason == "no item graded by every annotator"
    assert found.overall.alpha_ordinal.reason == "no item graded by two annotators or more"
    text = json.dumps(agreement_dict(found), allow_nan=False)  # raises on NaN
    data = json.loads(text)
    assert data["pairs"][0]["cohen_kappa"] is None
    assert data["pairs"][0]["reasons"]["cohen_kappa"] == "no item graded by both"
    assert set(data["pairs"][0]) == {
        "a", "b", "items", "raw_agreement", "cohen_kappa", "kappa_linear", "kappa_quadratic",
        "reasons",
    }  # fmt: skip
    assert set(data["overall"]) == {
        "annotators", "items", "fleiss_items", "fleiss_kappa", "alpha_ordinal",
        "alpha_interval", "reasons",
    }  # fmt: skip


def test_a_minimum_of_items_makes_small_samples_undefined() -> None:
    grades = np.array([[0.0, 1, 2, 3, 1], [0, 1, 2, 2, 1]])
    small = agreement(["a", "b"], grades, minimum=10)
    assert small.pairs[0].items == 5
    assert small.pairs[0].cohen_kappa.value is None
    assert "5 items graded by both, fewer than 10" in (small.pairs[0].cohen_kappa.reason or "")
    assert small.overall.alpha_ordinal.value is None
    enough = agreement(["a", "b"], grades, minimum=5)
    expected = cohen_kappa_score(grades[0], grades[1], labels=[0, 1, 2, 3])
    assert enough.pairs[0].cohen_kappa.value == pytest.approx(expected)


def test_a_value_that_rounds_to_zero_reads_without_a_sign() -> None:
    """Fleiss' κ of a team a hair below chance printed "-0.000" in agreement's
    table; shown values round to zero without a sign, others keep theirs."""
    assert Measured(-0.0004).text() == "0.000"
    assert Measured(-0.0).text() == "0.000"
    assert Measured(-0.0005001).text() == "-0.001"
    assert Measured(0.12345).text() == "0.123"
    assert Measured.undefined("one grade throughout").text() == "-"
