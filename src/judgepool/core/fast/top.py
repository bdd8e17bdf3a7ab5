"""Each judged query's top k, read from the fast engine's matched run in a few
array operations: the same lists as `judgepool.core.scoring.top_k.reference_tops`.

The first k kept (not dropped as a duplicate) ranked positions of every judged
segment are found the way `unjudged.unjudged_in_top` finds its lines; their
rows give the entity (the document ID, or the entity pattern's name) and, by
binary search in the judged lines (found and verified exactly when the run
was matched), the grade. Only building the Python tuples is per entry.
"""

from __future__ import annotations

import numpy as np

from judgepool.core.comparing.bounds import TopK
from judgepool.core.fast.arrays import ranges
from judgepool.core.fast.judged import Matched
from judgepool.core.scoring.arrow import take


def fast_tops(matched: Matched, k: int) -> dict[str, TopK]:
    """The top k of every judged query the run returned, by query ID."""
    layout, copies = matched.layout, matched.duplicates
    segments = np.flatnonzero(np.array(matched.indexed.judged, dtype=bool)).astype(np.int64)
    if segments.size == 0:
        return {}
    wanted = np.minimum(k, matched.returned[segments])
    # the first `wanted` kept lines lie within this span of ranked positions
    span = np.minimum(wanted + copies.per_segment[segments], layout.lengths[segments])
    positions = ranges(layout.starts[segments], span)
    owner = np.repeat(segments, span)
    if copies.dropped.size:
        kept = matched.kept(positions)
        positions, owner = positions[kept], owner[kept]
        places = matched.places(positions, owner)
        limit = np.zeros(layout.count, dtype=np.int64)
        limit[segments] = wanted
        inside = places < limit[owner]
        positions, owner = positions[inside], owner[inside]
    rows = layout.order.rows_at(positions)
    keys = matched.indexed.keys
    if keys.entity_codes is not None:
        assert keys.entity_names is not None
        names = keys.entity_names
        entities = [names[code] for code in keys.entity_codes[rows].tolist()]
    else:
        entities = take(matched.indexed.run.doc_ids, rows).to_pylist()
    judged_rows, judged_grades = matched.lookup.rows, matched.lookup.grades
    grades: list[int | None] = [None] * rows.size
    if judged_rows.size:
        at = np.minimum(np.searchsorted(judged_rows, rows), judged_rows.size - 1)
        hit = np.flatnonzero(judged_rows[at] == rows)
        for index, grade in zip(hit.tolist(), judged_grades[at[hit]].tolist(), strict=True):
            grades[index] = grade
    # the entries are in segment order, each segment's in ranked order
    counts = np.bincount(owner, minlength=layout.count)[segments].tolist()
    query_ids = layout.query_ids
    pairs = list(zip(entities, grades, strict=True))
    tops: dict[str, TopK] = {}
    start = 0
    for segment, count in zip(segments.tolist(), counts, strict=True):
        tops[query_ids[segment]] = tuple(pairs[start : start + count])
        start += count
    return tops
