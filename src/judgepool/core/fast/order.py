"""The ranked order of a run: the tie policy's sort keys, and the order kept as
a sparse permutation (most runs are nearly in order already)."""

from __future__ import annotations

from typing import Any, assert_never

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judgepool.core.fast.arrays import IntArray
from judgepool.core.fast.run import Run
from judgepool.core.scoring.arrow import arrow_numbers, numpy_of, take
from judgepool.core.terms.contract import TiePolicy


class Order:
    """The ranked order of the whole run: position -> row, as a permutation that
    differs from the identity only at ``moved_positions`` (sorted), where it
    holds ``moved_rows``."""

    def __init__(self, size: int, moved_positions: IntArray, moved_rows: IntArray) -> None:
        self.size = size
        self.moved_positions = moved_positions
        self.moved_rows = moved_rows
        # built on first use: the moved entries sorted by row, or the full inverse
        self._by_row: tuple[IntArray, IntArray] | None = None
        self._inverse: IntArray | None = None

    @classmethod
    def identity_of(cls, size: int) -> Order:
        """The order of a run already in ranked order."""
        empty = np.zeros(0, dtype=np.int64)
        return cls(size, empty, empty)

    @property
    def identity(self) -> bool:
        return self.moved_positions.size == 0

    def rows_at(self, positions: IntArray) -> IntArray:
        """The row at each ranked position."""
        if self.identity:
            return positions.copy()
        if self.moved_positions.size == self.size:
            return self.moved_rows[positions]
        return _patch_lookup(self.moved_positions, self.moved_rows, positions)

    def positions_of(self, rows: IntArray) -> IntArray:
        """The ranked position of each row."""
        if self.identity:
            return rows.copy()
        if self.moved_positions.size == self.size:
            if self._inverse is None:
                self._inverse = np.empty(self.size, dtype=np.int64)
                self._inverse[self.moved_rows] = self.moved_positions
            return self._inverse[rows]
        if self._by_row is None:
            by_row = np.argsort(self.moved_rows, kind="stable")
            self._by_row = (self.moved_rows[by_row], self.moved_positions[by_row])
        return _patch_lookup(self._by_row[0], self._by_row[1], rows)


def _patch_lookup(keys: IntArray, values: IntArray, wanted: IntArray) -> IntArray:
    """``wanted`` with every entry found in the sorted ``keys`` replaced by its
    value (a permutation stored as its changes only)."""
    result = wanted.copy()
    if keys.size == 0 or wanted.size == 0:
        return result
    at = np.searchsorted(keys, wanted)
    at_clipped = np.minimum(at, keys.size - 1)
    hit = keys[at_clipped] == wanted
    result[hit] = values[at_clipped[hit]]
    return result


def sort_keys(ties: TiePolicy) -> list[tuple[str, str]]:
    """The tie policy's order of one query's lines, as pyarrow sort keys
    (`ranking.order_entries` is the reference); "input" keeps the file order."""
    match ties:
        case "trec_eval":
            return [("score", "descending"), ("doc", "descending")]
        case "docid":
            return [("score", "descending"), ("doc", "ascending")]
        case "rank":
            return [("rank", "ascending")]
        case "input":
            return []
        case _:
            assert_never(ties)


def sorted_subset(
    run: Run, rows: IntArray, group: IntArray, ties: TiePolicy, *, equal_scores: bool = False
) -> IntArray:
    """``rows`` reordered by (group, then the tie policy's keys), stably.
    ``equal_scores``: every group holds one score, so the score key is left out."""
    columns: dict[str, Any] = {"group": arrow_numbers(group)}
    keys = [key for key in sort_keys(ties) if not (equal_scores and key[0] == "score")]
    names = {name for name, _ in keys}
    if "score" in names:
        columns["score"] = arrow_numbers(run.scores[rows])
    if "doc" in names:
        columns["doc"] = take(run.doc_ids, rows)
    if "rank" in names:
        columns["rank"] = arrow_numbers(run.ranks[rows])
    table = pa.table(columns)
    order = pc.sort_indices(table, sort_keys=[("group", "ascending"), *keys])
    ordered: IntArray = rows[numpy_of(order).astype(np.int64)]
    return ordered
