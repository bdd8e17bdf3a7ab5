"""Comparing two evaluations value by value, floats to a tolerance.

The fast engine sums in a different order from the reference, so equal
numbers may differ in the last bits; the contract holds them to 1e-12.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from judgepool.core.terms.types import Evaluation

TOLERANCE = 1e-12


def same_value(a: Any, b: Any, tolerance: float = TOLERANCE) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=0.0, abs_tol=tolerance)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k], tolerance) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(
            same_value(x, y, tolerance) for x, y in zip(a, b, strict=True)
        )
    return bool(a == b) and type(a) is type(b)


def assert_same_evaluation(
    expected: Evaluation, got: Evaluation, tolerance: float = TOLERANCE
) -> None:
    """Every field equal, floats within ``tolerance``; the first difference is named."""
    assert expected.contract == got.contract
    assert expected.unknown_queries == got.unknown_queries
    assert expected.missing_queries == got.missing_queries
    assert [r.query_id for r in expected.per_query] == [r.query_id for r in got.per_query]
    for want, have in zip(expected.per_query, got.per_query, strict=True):
        for key, value in asdict(want).items():
            assert same_value(value, getattr(have, key), tolerance), (
                f"query {want.query_id!r} {key}: reference {value!r}, fast {getattr(have, key)!r}"
            )
    for key, value in asdict(expected.summary).items():
        assert same_value(value, getattr(got.summary, key), tolerance), (
            f"summary {key}: reference {value!r}, fast {getattr(got.summary, key)!r}"
        )
