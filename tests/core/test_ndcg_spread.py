"""The scores screen's box plot numbers: a run's five-number summary."""

from __future__ import annotations

import pytest

from judgepool.core.auditing.ndcg_spread import ndcg_spread


def test_five_numbers_and_the_excluded_queries_apart() -> None:
    spread = ndcg_spread("bm25", [0.0, 0.25, None, 0.5, 1.0, 0.75])
    assert spread.five == pytest.approx((0.0, 0.25, 0.5, 0.75, 1.0))
    assert spread.queries == 5 and spread.undefined == 1


def test_quartiles_interpolate_between_values() -> None:
    spread = ndcg_spread("r", [0.0, 1.0])
    assert spread.five == pytest.approx((0.0, 0.25, 0.5, 0.75, 1.0))


def test_a_run_with_no_value_has_no_box() -> None:
    spread = ndcg_spread("r", [None, None])
    assert spread.five is None and spread.queries == 0 and spread.undefined == 2
    assert ndcg_spread("r", []).five is None
