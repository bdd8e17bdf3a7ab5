"""The consensus rules' arithmetic, on literal grades."""

from __future__ import annotations

from judgepool.core.consensus import CONSENSUS_RULES, low_median


def test_low_median() -> None:
    assert low_median([3]) == 3
    assert low_median([0, 3, 1]) == 1
    assert low_median([0, 3]) == 0
    assert low_median([2, 1, 3, 0]) == 1
    assert low_median([2, 2, 3, 3]) == 2


def test_the_rules_are_named_in_their_order() -> None:
    assert CONSENSUS_RULES == ("latest", "median", "adjudicated")
