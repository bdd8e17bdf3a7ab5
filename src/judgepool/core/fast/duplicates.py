"""Repeated (query, entity) keys of the judged queries: the copies after the
first are dropped, or listed for the ``duplicates=reject`` refusal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

import numpy as np
import pyarrow.compute as pc

from judgepool.core.fast.arrays import EMPTY_INTS, BoolArray, IntArray
from judgepool.core.fast.indexed import IndexedRun
from judgepool.core.scoring.arrow import numpy_of, take
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import DuplicateEntry


@dataclass(frozen=True, eq=False)
class Duplicates:
    """The copies after the first of every repeated key of the judged queries."""

    entries: list[DuplicateEntry]  # listed under duplicates=reject only
    dropped: IntArray  # ranked positions of the copies dropped (sorted), judged queries only
    per_segment: IntArray  # copies dropped per segment


@dataclass(frozen=True, eq=False)
class RepeatedKeys:
    """Every copy of every repeated key, grouped by key, in ranked order within
    a key; ``kept`` marks each key's first copy (the one scored)."""

    rows: IntArray
    positions: IntArray  # each copy's position in the ranked order
    segments: IntArray  # each copy's query (segment)
    kept: BoolArray

    def dropped(self, segment_count: int) -> tuple[IntArray, IntArray]:
        """The ranked positions of the copies after the first (sorted), and how
        many of them each segment has."""
        extra = ~self.kept
        per_segment = np.bincount(self.segments[extra], minlength=segment_count)
        return np.sort(self.positions[extra]), per_segment.astype(np.int64)


def repeated_keys(indexed: IndexedRun, among: BoolArray | None = None) -> RepeatedKeys | None:
    """The repeated (query, entity) keys of the queries ``among`` marks (every
    query when None), or None if there is none: the hashes propose candidates
    (equal neighbours in the sorted keys), the exact IDs or entity codes decide."""
    run, layout, keys = indexed.run, indexed.layout, indexed.keys
    same = keys.equal_neighbours
    if run.size < 2 or same.size == 0:
        return None
    rows = np.unique(np.concatenate((keys.rows_of(same), keys.rows_of(same + 1))))
    segments = layout.segment_of_rows(rows)
    if among is not None:
        rows, segments = rows[among[segments]], segments[among[segments]]
        if rows.size == 0:
            return None
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
        return None
    return RepeatedKeys(rows[repeated], positions[repeated], segments[repeated], kept[repeated])


def entity_names(indexed: IndexedRun, rows: IntArray) -> list[str]:
    """The entity (document, or its entity code's name) of each of ``rows``."""
    keys = indexed.keys
    if keys.entity_names is not None:
        assert keys.entity_codes is not None
        return [keys.entity_names[code] for code in keys.entity_codes[rows].tolist()]
    names: list[str] = take(indexed.run.doc_ids, rows).to_pylist()
    return names


def find_duplicates(indexed: IndexedRun, contract: Contract) -> Duplicates:
    """The judged queries' repeated keys (see `repeated_keys`)."""
    found = repeated_keys(indexed, np.array(indexed.judged, dtype=bool))
    if found is None:
        return Duplicates([], EMPTY_INTS, np.zeros(indexed.layout.count, dtype=np.int64))
    dropped, per_segment = found.dropped(indexed.layout.count)
    entries: list[DuplicateEntry]
    match contract.duplicates:
        case "first":
            entries = []  # dropped without a word: nobody reads a list
        case "reject":
            entries = _entries(indexed, found)
        case _:
            assert_never(contract.duplicates)
    return Duplicates(entries, dropped, per_segment)


def _entries(indexed: IndexedRun, found: RepeatedKeys) -> list[DuplicateEntry]:
    """One entry per repeated key, with every copy's line: by query ID, then by
    the kept copy's place in the ranked order (as the reference lists them)."""
    lines = np.array(indexed.run.line_numbers(found.rows), dtype=np.int64)
    kept_at = np.flatnonzero(found.kept)
    names = entity_names(indexed, found.rows[kept_at])
    bounds = np.append(kept_at, found.rows.size).tolist()
    kept_segments = found.segments[kept_at].tolist()
    kept_positions = found.positions[kept_at].tolist()
    listed = []
    for index in range(len(kept_at)):
        copies = sorted(lines[bounds[index] : bounds[index + 1]].tolist())
        query_id = indexed.layout.query_ids[kept_segments[index]]
        entry = DuplicateEntry(query_id, names[index], tuple(copies))
        listed.append((query_id, kept_positions[index], entry))
    listed.sort(key=lambda item: (item[0], item[1]))
    return [entry for _, _, entry in listed]
