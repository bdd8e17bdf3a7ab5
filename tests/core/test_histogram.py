"""Per-query nDCG in bins."""

from __future__ import annotations

import pytest

from judgepool.core.histogram import ndcg_histogram


def test_histogram_bins_and_undefined_values() -> None:
    histogram = ndcg_histogram([0.0, 0.05, 0.1, 0.95, 1.0, None])
    assert histogram.counts == (2, 1, 0, 0, 0, 0, 0, 0, 0, 2)
    assert histogram.undefined == 1
    assert histogram.edges[0] == 0.0 and histogram.edges[-1] == 1.0


def test_bins_must_be_positive() -> None:
    with pytest.raises(ValueError, match="bins must be positive"):
        ndcg_histogram([0.5], bins=0)
    assert ndcg_histogram([0.5, 0.49], bins=2).counts == (1, 1)
