"""Which lines of the run are judged, found through the hashed keys and verified
exactly; and the exact check that no "unjudged" line of a top k is judged."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judgepool.core.fast.arrays import EMPTY_INTS, IntArray, ranges
from judgepool.core.fast.indexed import IndexedRun
from judgepool.core.scoring.arrow import arrow_strings, numpy_of, take
from judgepool.core.terms.errors import EngineInconsistency
from judgepool.core.terms.types import Judgments


@dataclass(frozen=True, eq=False)
class JudgedLines:
    """The judged lines: rows (sorted) and their grades; and every judged
    document (``docs``) or entity code (``codes``) of the run's judged queries,
    for `confirm_unjudged`."""

    rows: IntArray
    grades: IntArray
    docs: pa.Array | None = None
    codes: IntArray | None = None


def find_judged_lines(indexed: IndexedRun, judgments: Judgments) -> JudgedLines:
    """The lines whose (query, document or entity) is judged."""
    run, layout, keys = indexed.run, indexed.layout, indexed.keys
    pair_segments: list[int] = []
    pair_docs: list[str] = []
    pair_grades: list[int] = []
    for segment, (query_id, known) in enumerate(zip(layout.query_ids, indexed.judged, strict=True)):
        if not known:
            continue
        query_grades = judgments[query_id]
        pair_segments.extend([segment] * len(query_grades))
        pair_docs.extend(query_grades.keys())
        pair_grades.extend(query_grades.values())
    if not pair_docs or run.size == 0:
        return JudgedLines(EMPTY_INTS, EMPTY_INTS)
    segments = np.array(pair_segments, dtype=np.int64)
    grades = np.array(pair_grades, dtype=np.int64)
    if keys.entity_index is None:
        docs = arrow_strings(pair_docs)
        codes = None
        first, counts = keys.find_ids(docs, segments)
    else:
        index = keys.entity_index
        codes = np.array([index.get(doc, -1) for doc in pair_docs], dtype=np.int64)
        present = codes >= 0  # an entity the run never returns has no code
        segments, grades, codes = segments[present], grades[present], codes[present]
        docs = None
        first, counts = keys.find_codes(codes, segments)
    if not counts.any():
        return JudgedLines(EMPTY_INTS, EMPTY_INTS, docs, codes)
    # every (judged pair, candidate row) the hashes propose, then checked exactly
    pairs = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    rows = keys.rows_of(ranges(first, counts))
    same = layout.segment_of_rows(rows) == segments[pairs]
    if codes is None:
        assert docs is not None
        wanted = take(docs, pairs).cast(run.doc_ids.type)
        same &= numpy_of(pc.equal(take(run.doc_ids, rows), wanted))
    else:
        assert keys.entity_codes is not None
        same &= keys.entity_codes[rows] == codes[pairs]
    rows, pairs = rows[same], pairs[same]
    by_row = np.argsort(rows, kind="stable")
    return JudgedLines(rows[by_row], grades[pairs[by_row]], docs, codes)


def confirm_unjudged(
    indexed: IndexedRun,
    lookup: JudgedLines,
    judgments: Judgments,
    top: tuple[IntArray, IntArray],
) -> None:
    """Defence in depth: check exactly that no line the hashed look-up left
    unjudged in the top k (``top``: their segments and run rows) is judged.

    A judged document taken for unjudged scores 0 silently, so this verdict,
    unlike the others, is never trusted to the hashes alone. The check is
    cheap: the top k is a small part of a run, an Arrow set look-up finds the
    few lines whose document is judged for some query, and only those are
    compared with the judgments in Python. A failure is a bug in judgepool,
    reported as such rather than as a number."""
    run, keys = indexed.run, indexed.keys
    segments, rows = top
    if rows.size == 0:
        return
    if keys.entity_codes is not None:
        judged_codes = lookup.codes if lookup.codes is not None else EMPTY_INTS
        codes = keys.entity_codes[rows]
        suspects = np.flatnonzero(np.isin(codes, judged_codes))
        assert keys.entity_names is not None
        names = [keys.entity_names[code] for code in codes[suspects].tolist()]
    else:
        if lookup.docs is None or len(lookup.docs) == 0:
            return
        docs = take(run.doc_ids, rows)
        judged = lookup.docs.cast(docs.type)
        suspects = np.flatnonzero(numpy_of(pc.is_in(docs, value_set=judged)))
        names = take(docs, suspects).to_pylist()
    for segment, name in zip(segments[suspects].tolist(), names, strict=True):
        query_id = indexed.layout.query_ids[segment]
        if name in judgments.get(query_id, {}):
            raise EngineInconsistency(
                f"the fast engine took query {query_id!r} document {name!r} for unjudged, "
                "but it is judged"
            )
