"""The estimate ``compare`` refuses a comparison by, before any run is read:
its terms, the limit, and the message that says how to narrow it."""

from __future__ import annotations

import pytest

from judgepool.core.comparing.comparison_size import (
    BASE_BYTES,
    BOOTSTRAP_BYTES,
    MEMORY_LIMIT,
    PAIR_QUERY_BYTES,
    RUN_QUERY_BYTES,
    SIGN_FLIP_BYTES,
    ComparisonTooLarge,
    check_comparison_size,
    duration,
    estimate_comparison,
    size,
)


def test_the_memory_is_the_pairs_times_their_draws_and_queries() -> None:
    one = estimate_comparison(3, 3, 43, 10, 10_000, 10_000)
    runs = 3 * 43 * RUN_QUERY_BYTES
    assert one.memory == BASE_BYTES + runs + 3 * (BOOTSTRAP_BYTES * 10_000 + PAIR_QUERY_BYTES * 43)
    # the memory of a pair: the bootstrap's, or the sign flips' when fewer resamples
    few = estimate_comparison(3, 3, 43, 10, 10_000, 10)
    assert few.memory == BASE_BYTES + runs + 3 * (SIGN_FLIP_BYTES + PAIR_QUERY_BYTES * 43)
    # 50 M pairs: what ran to 9.4 GB and failed (issue 17) needs terabytes
    huge = estimate_comparison(10_000, 49_995_000, 43, 10, 10_000, 10_000)
    assert huge.memory > 8e12 and huge.seconds > 86_400
    # time grows with the draws; exact enumeration of 2^3 assignments is 8 flips
    assert estimate_comparison(3, 3, 3, 10, 10_000, 1).seconds < one.seconds


def test_the_limit_allows_218_runs_at_the_default_draws_on_dl19() -> None:
    # the figures the module's docstring gives
    def fits(runs: int, pairs: int, bootstrap: int = 10_000) -> bool:
        estimate = estimate_comparison(runs, pairs, 43, 10, 10_000, bootstrap)
        return estimate.memory <= MEMORY_LIMIT

    assert fits(218, 218 * 217 // 2) and not fits(219, 219 * 218 // 2)
    assert fits(627, 627 * 626 // 2, 1000) and not fits(628, 628 * 627 // 2, 1000)
    assert fits(14_500, 14_499) and not fits(14_600, 14_599)  # --baseline
    assert fits(10_000, 9_999)  # the 10,000 runs, against one


def test_the_refusal_counts_estimates_and_says_how_to_narrow() -> None:
    with pytest.raises(ComparisonTooLarge) as refused:
        check_comparison_size(10_000, 49_995_000, 43, 10, 10_000, 10_000, baseline=False)
    message = str(refused.value)
    assert message.startswith(
        "compare: 10,000 runs make 49,995,000 pairs, estimated at 8.2 TB of memory and "
        "15.4 days of CPU time "
    )
    assert "(43 judged queries, 10,000 permutations and 10,000 bootstrap resamples per pair)" in (
        message
    )
    assert message.endswith(
        "more than the 4 GB limit. Narrow it: --baseline RUN compares every run with one "
        "(9,999 pairs); compare fewer runs; lower --bootstrap (16 bytes per resample and pair)."
    )
    assert refused.value.exit_code == 1  # a refusal, not bad input
    # with a baseline already, it is not offered again
    with pytest.raises(ComparisonTooLarge, match=r"Narrow it: compare fewer runs; lower"):
        check_comparison_size(40_000, 39_999, 43, 10, 10_000, 10_000, baseline=True)
    assert check_comparison_size(3, 3, 43, 10, 10_000, 10_000, baseline=False).memory < MEMORY_LIMIT


def test_sizes_and_durations_for_people() -> None:
    assert [size(v) for v in (4e9, 4.05e9, 8.171e15, 12e6, 500.0)] == [
        "4 GB", "4 GB", "8.2 PB", "12 MB", "1 kB",
    ]  # fmt: skip
    assert [duration(s) for s in (12.34, 90, 7200, 3 * 86400)] == [
        "12.3 s", "1.5 minutes", "2.0 hours", "3.0 days",
    ]  # fmt: skip
