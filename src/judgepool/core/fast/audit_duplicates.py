"""Repeated (query, entity) keys of *every* query of a run, for the audit.

The scorer (`core.fast.duplicates`) looks at the judged queries only, since
no other query is scored; the audit lists the duplicates of unknown queries
too, and their deduplicated lists' lengths (short lists) and tie groups
depend on them. The hashes propose candidates (equal neighbours in the sorted
keys), the exact IDs or entity codes decide, as in the scorer.
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from judgepool.core.arrow import numpy_of, take
from judgepool.core.errors import DuplicateEntry
from judgepool.core.fast.arrays import EMPTY_INTS, BoolArray, IntArray
from judgepool.core.fast.duplicates import Duplicates
from judgepool.core.fast.indexed import IndexedRun


def find_all_duplicates(indexed: IndexedRun) -> tuple[Duplicates, list[DuplicateEntry]]:
    """The copies after the first (in ranked order) of every repeated key of
    every query, and one `DuplicateEntry` per repeated key, in the reference
    audit's order: by query ID, then by the key's first line."""
    run, layout, keys = indexed.run, indexed.layout, indexed.keys
    none = Duplicates([], EMPTY_INTS, np.zeros(layout.count, dtype=np.int64))
    same = keys.equal_neighbours
    if run.size < 2 or same.size == 0:
        return none, []
    rows = np.unique(np.concatenate((keys.rows_of(same), keys.rows_of(same + 1))))
    segments = layout.segment_of_rows(rows)
    if keys.entity_codes is not None:
        entity = keys.entity_codes[rows]
    else:
        encoded = pc.dictionary_encode(take(run.doc_ids, rows))
        entity = numpy_of(encoded.indices).astype(np.int64)
    identity = segments * (int(entity.max()) + 1) + entity
    positions = layout.order.positions_of(rows)
    by_identity = np.lexsort((positions, identity))
    identity, rows, positions, segments = (
        identity[by_identity],
        rows[by_identity],
        positions[by_identity],
        segments[by_identity],
    )
    first = np.ones(rows.size, dtype=bool)  # the kept copy of each identity
    first[1:] = identity[1:] != identity[:-1]
    sizes = np.bincount(np.cumsum(first) - 1)
    repeated = np.repeat(sizes > 1, sizes)
    if not repeated.any():
        return none, []
    rows, positions, segments, first = (
        rows[repeated],
        positions[repeated],
        segments[repeated],
        first[repeated],
    )
    dropped = np.sort(positions[~first])
    per_segment = np.bincount(segments[~first], minlength=layout.count).astype(np.int64)
    entries = _entries(indexed, rows, segments, first)
    return Duplicates([], dropped, per_segment), entries


def _entries(
    indexed: IndexedRun, rows: IntArray, segments: IntArray, first: BoolArray
) -> list[DuplicateEntry]:
    """One entry per repeated key (``rows`` grouped by key, ``first`` marking
    each key's first copy), named by its entity, with every copy's line."""
    run, keys = indexed.run, indexed.keys
    lines = np.array(run.line_numbers(rows), dtype=np.int64)
    starts = np.flatnonzero(first)
    if keys.entity_names is not None:
        assert keys.entity_codes is not None
        names = [keys.entity_names[code] for code in keys.entity_codes[rows[starts]].tolist()]
    else:
        names = take(run.doc_ids, rows[starts]).to_pylist()
    bounds = np.append(starts, rows.size).tolist()
    query_ids = indexed.layout.query_ids
    listed: list[DuplicateEntry] = []
    for index, segment in enumerate(segments[starts].tolist()):
        copies = tuple(sorted(lines[bounds[index] : bounds[index + 1]].tolist()))
        listed.append(DuplicateEntry(query_ids[segment], names[index], copies))
    listed.sort(key=lambda entry: (entry.query_id, entry.lines))
    return listed
