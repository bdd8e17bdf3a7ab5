"""Two annotators' confusion table (the agreement screen's heat map)."""

from __future__ import annotations

import numpy as np
import pytest

from judgepool.core.team.pair_confusion import pair_confusion

NAN = np.nan


def test_counts_over_the_items_both_graded() -> None:
    a = np.array([0, 1, 1, 2, NAN, 3])
    b = np.array([0, 1, 2, 2, 1, NAN])
    table = pair_confusion("ann", "bob", a, b)
    assert table.grades == (0, 1, 2)  # 3 only on an item bob did not grade
    assert table.counts == ((1, 0, 0), (0, 1, 1), (0, 0, 1))
    assert table.items == 4
    assert table.to_dict()["counts"] == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]


def test_no_shared_item_gives_an_empty_table() -> None:
    table = pair_confusion("a", "b", np.array([1.0, NAN]), np.array([NAN, 2.0]))
    assert table.grades == () and table.counts == () and table.items == 0


def test_the_grades_of_each_must_match_in_length() -> None:
    with pytest.raises(ValueError):
        pair_confusion("a", "b", np.array([1.0]), np.array([1.0, 2.0]))
