"""A pair's sentence (`judgepool.core.comparing.verdict_words`): every case of significance
and of the bounds' verdict, worded once for the command line and the app."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgepool.core.comparing.verdict_words import (
    ALPHA,
    p_text,
    pair_sentence,
    queries_for_power,
    sentence_of,
    share_text,
    significance_of,
)
from judgepool.core.comparing.verdicts import compare
from judgepool.core.terms.contract import Contract
from tests.core.test_verdicts import ranked, run_input


def sentence(**fields: object) -> str:
    """The sentence of runs A and B with the given fields over these defaults."""
    values: dict[str, object] = {
        "a": "A",
        "b": "B",
        "mean_diff": 0.2274,
        "p_adjusted": 0.0016,
        "bootstrap_ci": (0.0415, 0.3876),
        "verdict": "could flip",
        "diff_bounds": (-0.4507, 0.2274),
        "holes": 38,
    }
    values.update(fields)
    return pair_sentence(**values).text  # type: ignore[arg-type]


def test_significant_yet_the_holes_could_reverse_it() -> None:
    # the pair: adjusted p 0.0016, the bootstrap interval excluding 0
    assert sentence() == (
        "A ahead of B by 0.227, significant (p_adj 0.002); 38 holes could still reverse it"
    )


def test_not_significant_and_settled_by_the_judgments() -> None:
    text = sentence(
        p_adjusted=0.31,
        verdict="settled",
        diff_bounds=(0.1, 0.3),
        holes=0,
        bootstrap_ci=(-0.1, 0.5),
    )
    assert text == "A ahead of B by 0.227, not significant (p_adj 0.31); settled by the judgments"


def test_settled_whatever_the_holes_get() -> None:
    text = sentence(verdict="settled", diff_bounds=(0.02, 0.3), holes=5)
    assert text.endswith("significant (p_adj 0.002); settled, whatever grades the holes get")


def test_tied_under_every_assignment() -> None:
    text = sentence(mean_diff=0.0, p_adjusted=1.0, verdict="tied", diff_bounds=(0.0, 0.0), holes=4)
    assert text == "A and B tied under every assignment of the holes"


def test_b_ahead_is_significant_only_with_the_interval_below_zero() -> None:
    ahead = {"mean_diff": -0.1116, "diff_bounds": (-0.4168, 0.3448), "holes": 58}
    assert sentence(**ahead, bootstrap_ci=(-0.26, -0.01)) == (
        "B ahead of A by 0.112, significant (p_adj 0.002); 58 holes could still reverse it"
    )
    assert ", borderline (p_adj 0.002, but the bootstrap interval reaches 0);" in sentence(
        **ahead, bootstrap_ci=(-0.26, 0.05)
    )


def test_below_alpha_with_the_interval_across_zero_is_borderline() -> None:
    text = sentence(p_adjusted=0.03, bootstrap_ci=(-0.01, 0.3))
    assert "borderline (p_adj 0.03, but the bootstrap interval reaches 0)" in text
    assert ", significant" not in text


def test_the_interval_alone_does_not_make_it_significant() -> None:
    # the bootstrap is not adjusted for the number of pairs: the p-value decides
    text = sentence(p_adjusted=0.0938, bootstrap_ci=(0.0415, 0.3876))
    assert "not significant (p_adj 0.094)" in text


def test_a_tie_still_possible() -> None:
    assert sentence(diff_bounds=(0.0, 0.37), holes=1).endswith("1 hole could still make it a tie")
    text = sentence(mean_diff=-0.2, bootstrap_ci=(-0.3, -0.1), diff_bounds=(-0.3, 0.0))
    assert text.endswith("38 holes could still make it a tie")


def test_the_other_runs_holes() -> None:
    # the pair's own runs have no hole; a third run's, judged, reweighs the queries
    text = sentence(holes=0)
    assert text.endswith("; the other runs' holes could still reverse it")


def test_level_but_not_tied() -> None:
    text = sentence(mean_diff=0.0, p_adjusted=1.0, diff_bounds=(-0.2, 0.1), holes=3)
    assert text == "A and B level (mean difference 0); 3 holes could still put either ahead"
    one_side = sentence(mean_diff=0.0, p_adjusted=1.0, diff_bounds=(0.0, 0.1), holes=3)
    assert one_side.endswith("3 holes could still put A ahead")


def test_condensed_difference_against_bounds_in_place() -> None:
    # unjudged=condense: A ahead as shown, the bounds (holes in place) all below 0
    text = sentence(verdict="settled", diff_bounds=(-0.3, -0.05), holes=2)
    assert text.endswith("; once the holes are judged B is ahead, whatever their grades")


def test_no_bounds_and_no_queries() -> None:
    assert sentence(verdict=None, diff_bounds=None).endswith(
        "; the holes are not bounded under this contract"
    )
    assert sentence(mean_diff=None, p_adjusted=None, bootstrap_ci=None) == (
        "A and B: no common query to compare them on"
    )


def test_tiny_differences_are_not_rounded_to_nothing() -> None:
    assert sentence(mean_diff=0.0002, bootstrap_ci=(0.0001, 0.0003)).startswith(
        "A ahead of B by less than 0.001, significant"
    )


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (0.0016, "0.002"),
        (0.31, "0.31"),
        (1.0, "1"),
        (0.0938, "0.094"),
        (0.0004, "< 0.001"),
        (0.0497, "< 0.05"),
        (0.05, "0.05"),
        (0.001, "0.001"),
    ],
)
def test_p_values_in_words(p: float, shown: str) -> None:
    assert p_text(p) == shown


def test_the_parts() -> None:
    parts = pair_sentence(
        a="x",
        b="y",
        mean_diff=0.5,
        p_adjusted=0.001,
        bootstrap_ci=(0.2, 0.8),
        verdict="settled",
        diff_bounds=(0.1, 0.6),
        holes=0,
    )
    assert parts.standing == "x ahead of y by 0.500"
    assert parts.significance == "significant (p_adj 0.001)"
    assert parts.holes == "settled by the judgments"
    assert parts.significant and str(parts) == parts.full
    assert parts.full == (
        "x is better: x ahead of y by 0.500, significant (p_adj 0.001); settled by the "
        "judgments; next: none"
    )


def full(**fields: object) -> str:
    """`sentence`, as every output prints it: the answer and the next step too."""
    values: dict[str, object] = {
        "a": "A", "b": "B", "mean_diff": 0.2274, "p_adjusted": 0.0016,
        "bootstrap_ci": (0.0415, 0.3876), "verdict": "could flip",
        "diff_bounds": (-0.4507, 0.2274), "holes": 38, "effect_size": 0.6, "queries": 43,
    }  # fmt: skip
    values.update(fields)
    return pair_sentence(**values).full  # type: ignore[arg-type]


def test_holes_that_could_flip_the_pair_come_first() -> None:
    text = full()
    assert text.startswith("not known yet: A ahead of B by 0.227")
    assert text.endswith("; next: judge its 38 holes (holes --order settle lists them)")
    assert "next: judge the other runs' holes" in full(holes=0)


def test_a_probable_pair_says_probably_and_what_settles_it() -> None:
    text = full(verdict="probable", p_a_ahead=0.99)
    assert text.startswith("A is probably better: ")
    assert text.endswith("(holes --order settle lists them) to make it certain")
    # the holes would probably put B ahead: B, once they are judged
    assert full(verdict="probable", p_a_ahead=0.02).startswith(
        "B is probably better, once the holes are judged: "
    )


def test_the_noise_asks_for_queries_at_80_percent_power() -> None:
    # not significant, settled: d = 0.3 needs ((1.96 + 0.8416) / 0.3)² + 1.92 = 89.1 → 90
    assert queries_for_power(0.3) == 90
    text = full(verdict="settled", diff_bounds=(0.1, 0.3), holes=0, p_adjusted=0.2,
                bootstrap_ci=(-0.1, 0.5), effect_size=0.3, queries=43)  # fmt: skip
    assert text.startswith("no winner yet (the noise): ")
    assert text.endswith("next: add about 47 queries (90 in all, 80% power)")
    # more than ten times the queries compared would not tell them apart
    tiny = full(verdict="settled", diff_bounds=(0.01, 0.02), holes=0, p_adjusted=0.8,
                bootstrap_ci=(-0.1, 0.1), effect_size=0.01, queries=43)  # fmt: skip
    assert tiny.startswith("no winner: ") and tiny.endswith(
        "next: none: more queries would not tell them apart"
    )
    assert queries_for_power(0.0) is None and queries_for_power(None) is None


def test_a_probable_pair_in_the_noise_asks_for_queries_and_the_holes() -> None:
    text = full(verdict="probable", p_a_ahead=0.99, p_adjusted=0.09,
                bootstrap_ci=(-0.01, 0.3), effect_size=0.4)  # fmt: skip
    assert text.startswith("no winner yet (the noise): ")
    assert "add about 8 queries (51 in all" in text and "and judge its 38 holes" in text


def test_tied_and_level_pairs_have_no_winner() -> None:
    assert full(mean_diff=0.0, verdict="tied", diff_bounds=(0.0, 0.0)).startswith("no winner: ")
    level = full(mean_diff=0.0, p_adjusted=1.0, verdict="settled", diff_bounds=(0.0, 0.0))
    assert level.startswith("no winner: A and B level")


@pytest.mark.parametrize(
    ("p", "threshold", "shown"),
    [(0.946, 0.95, "< 0.95"), (0.95, 0.95, "0.95"), (0.9549, 0.95, "0.95"),
     (0.899, 0.9, "< 0.9"), (0.904, 0.9, "0.90"), (0.5, 0.95, "0.50"), (0.946, None, "0.95")],
)  # fmt: skip
def test_rounding_never_crosses_the_threshold_it_reports(
    p: float, threshold: float | None, shown: str
) -> None:
    assert share_text(p, threshold) == shown


def test_a_could_flip_pair_short_of_the_rule_says_so() -> None:
    # the case: P 0.946 under a 0.95 rule was printed "(it holds with P 0.95)"
    text = full(p_a_ahead=0.946)
    assert "(it holds with P < 0.95)" in text


@given(
    mean=st.floats(-1, 1),
    p=st.floats(0, 1),
    low=st.floats(-1, 1),
    width=st.floats(0, 1),
)
def test_significant_only_below_alpha_with_the_interval_on_the_differences_side(
    mean: float, p: float, low: float, width: float
) -> None:
    ci = (low, low + width)
    agrees = ci[0] > 0 if mean > 0 else ci[1] < 0
    expected = mean != 0 and p < ALPHA and agrees
    text = sentence(mean_diff=mean, p_adjusted=p, bootstrap_ci=ci)
    assert (", significant (" in text) == expected
    assert (significance_of(mean, p, ci) == "significant") == expected


def test_a_compared_pair_in_words() -> None:
    # the evaluation contract's reference pair: B can never win, but it can tie
    judgments = {"q": {"A": 3, "B": 0}}
    contract = Contract(k=2, unjudged="zero")
    first = run_input("AU", ranked("q", ["A", "U"]), judgments, contract)
    second = run_input("UA", ranked("q", ["U", "A"]), judgments, contract)
    pair = compare([first, second], judgments, contract, [(0, 1)], permutations=100).pairs[0]
    assert pair.mean_diff == pytest.approx(1 - 1 / math.log2(3))
    assert sentence_of(pair).text == (
        "AU ahead of UA by 0.369, not significant (p_adj 1); 1 hole could still make it a tie "
        "(it holds with P 0.80)"  # the contract's 0.8 (0.6 + 0.4 / 2), within the draws' error
    )
    assert sentence_of(pair, "first", "second").standing == "first ahead of second by 0.369"


def test_the_queries_asked_for_count_the_pairs_the_p_values_are_adjusted_over() -> None:
    # 1,953 pairs: α/1,953 per pair needs far more queries than α alone
    one, many = queries_for_power(0.3), queries_for_power(0.3, pairs=1_953)
    assert one == 90 and many is not None and many > 3 * one
    text = full(verdict="settled", diff_bounds=(0.1, 0.3), holes=0, p_adjusted=1.0,
                bootstrap_ci=(0.05, 0.5), effect_size=0.5, queries=54, pairs=1_953)  # fmt: skip
    # 54 queries are enough at α alone, not at α / 1,953
    needed = queries_for_power(0.5, 1_953)
    assert queries_for_power(0.5) < 54 < needed  # type: ignore[operator]
    assert f"add about {needed - 54} queries ({needed} in all" in text  # type: ignore[operator]
