"""Repeated (query, entity) keys of the judged queries: the copies after the
first are dropped, or listed for the ``duplicates=reject`` refusal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

import numpy as np
import pyarrow.compute as pc

from judgepool.core.arrow import numpy_of, take
from judgepool.core.contract import Contract
from judgepool.core.errors import DuplicateEntry
from judgepool.core.fast.arrays import EMPTY_INTS, BoolArray, IntArray
from judgepool.core.fast.indexed import IndexedRun


@dataclass(frozen=True, eq=False)
class Duplicates:
    """The copies after the first of every repeated key of the judged queries."""

    entries: list[DuplicateEntry]  # listed under duplicates=reject only
    dropped: IntArray  # ranked positions of the copies dropped (sorted), judged queries only
    per_segment: IntArray  # copies dropped per segment


def find_duplicates(indexed: IndexedRun, contract: Contract) -> Duplicates:
    """The judged queries' repeated keys: the hashes propose candidates (equal
    neighbours in the sorted keys), the exact IDs or entity codes decide."""
    run, layout, keys = indexed.run, indexed.layout, indexed.keys
    none = Duplicates([], EMPTY_INTS, np.zeros(layout.count, dtype=np.int64))
    if run.size < 2:
        return none
    same = keys.equal_neighbours
    if same.size == 0:
        return none
    rows = np.unique(np.concatenate((keys.rows_of(same), keys.rows_of(same + 1))))
    segments = layout.segment_of_rows(rows)
    judged = np.array(indexed.judged, dtype=bool)
    rows, segments = rows[judged[segments]], segments[judged[segments]]
    if rows.size == 0:
        return none
    if keys.entity_codes is not None:
        entity = keys.entity_codes[rows]
    else:
        encoded = pc.dictionary_encode(take(run.doc_ids, rows))
        entity = numpy_of(encoded.indices).astype(np.int64)
    identity = segments * (int(entity.max()) + 1) + entity
    positions = layout.order.positions_of(rows)
    # group equal identities, copies in ranked order
    by_identity = np.lexsort((positions, identity))
    identity, rows, positions, segments = (
        identity[by_identity],
        rows[by_identity],
        positions[by_identity],
        segments[by_identity],
    )
    kept = np.ones(rows.size, dtype=bool)  # the first copy of each identity
    kept[1:] = identity[1:] != identity[:-1]
    sizes = np.bincount(np.cumsum(kept) - 1)
    repeated = np.repeat(sizes > 1, sizes)
    if not repeated.any():
        return none
    rows, positions, segments, kept = (
        rows[repeated],
        positions[repeated],
        segments[repeated],
        kept[repeated],
    )
    dropped = np.sort(positions[~kept])
    per_segment = np.bincount(segments[~kept], minlength=layout.count).astype(np.int64)
    entries: list[DuplicateEntry]
    match contract.duplicates:
        case "first":
            entries = []  # dropped without a word: nobody reads a list
        case "reject":
            entries = _entries(indexed, rows, positions, segments, kept)
        case _:
            assert_never(contract.duplicates)
    return Duplicates(entries, dropped, per_segment)


def _entries(
    indexed: IndexedRun, rows: IntArray, positions: IntArray, segments: IntArray, kept: BoolArray
) -> list[DuplicateEntry]:
    """One entry per repeated key, with every copy's line: by query ID, then by
    the kept copy's place in the ranked order (as the reference lists them).
    The arguments are every copy, grouped by key, ranked order within a key,
    ``kept`` marking each key's first copy."""
    run, keys = indexed.run, indexed.keys
    lines = np.array(run.line_numbers(rows), dtype=np.int64)
    kept_at = np.flatnonzero(kept)
    if keys.entity_names is not None:
        assert keys.entity_codes is not None
        names = [keys.entity_names[code] for code in keys.entity_codes[rows[kept_at]].tolist()]
    else:
        names = take(run.doc_ids, rows[kept_at]).to_pylist()
    bounds = np.append(kept_at, rows.size).tolist()
    kept_segments = segments[kept_at].tolist()
    kept_positions = positions[kept_at].tolist()
    listed = []
    for index in range(len(kept_at)):
        copies = sorted(lines[bounds[index] : bounds[index + 1]].tolist())
        query_id = indexed.layout.query_ids[kept_segments[index]]
        entry = DuplicateEntry(query_id, names[index], tuple(copies))
        listed.append((query_id, kept_positions[index], entry))
    listed.sort(key=lambda item: (item[0], item[1]))
    return [entry for _, _, entry in listed]
