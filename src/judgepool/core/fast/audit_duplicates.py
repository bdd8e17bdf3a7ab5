"""Repeated (query, entity) keys of *every* query of a run, for the audit.

The scorer (`core.fast.duplicates`) looks at the judged queries only, since
no other query is scored; the audit lists the duplicates of unknown queries
too, and their deduplicated lists' lengths (short lists) and tie groups
depend on them. The hashes propose candidates (equal neighbours in the sorted
keys), the exact IDs or entity codes decide, as in the scorer.
"""

from __future__ import annotations

import numpy as np

from judgepool.core.fast.arrays import EMPTY_INTS
from judgepool.core.fast.duplicates import Duplicates, RepeatedKeys, entity_names, repeated_keys
from judgepool.core.fast.indexed import IndexedRun
from judgepool.core.terms.errors import DuplicateEntry


def find_all_duplicates(indexed: IndexedRun) -> tuple[Duplicates, list[DuplicateEntry]]:
    """The copies after the first (in ranked order) of every repeated key of
    every query, and one `DuplicateEntry` per repeated key, in the reference
    audit's order: by query ID, then by the key's first line."""
    found = repeated_keys(indexed)
    if found is None:
        return Duplicates([], EMPTY_INTS, np.zeros(indexed.layout.count, dtype=np.int64)), []
    dropped, per_segment = found.dropped(indexed.layout.count)
    return Duplicates([], dropped, per_segment), _entries(indexed, found)


def _entries(indexed: IndexedRun, found: RepeatedKeys) -> list[DuplicateEntry]:
    """One entry per repeated key, named by its entity, with every copy's line."""
    lines = np.array(indexed.run.line_numbers(found.rows), dtype=np.int64)
    starts = np.flatnonzero(found.kept)
    names = entity_names(indexed, found.rows[starts])
    bounds = np.append(starts, found.rows.size).tolist()
    query_ids = indexed.layout.query_ids
    listed: list[DuplicateEntry] = []
    for index, segment in enumerate(found.segments[starts].tolist()):
        copies = tuple(sorted(lines[bounds[index] : bounds[index + 1]].tolist()))
        listed.append(DuplicateEntry(query_ids[segment], names[index], copies))
    listed.sort(key=lambda entry: (entry.query_id, entry.lines))
    return listed
