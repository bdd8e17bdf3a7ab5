"""The evaluation of `aggregate.evaluate`, computed on a whole run at once.

`evaluate_columns` takes a run as columns (``formats.fast_run.RunColumns``, or
anything with its attributes) and returns the same `Evaluation` as the
reference path (`aggregate.evaluate` over `formats.trec.read_run`), raising the
same `DuplicatesRejected` / `UnjudgedRejected` with the same entries. The tests
hold it to the reference on random runs under every contract parameter.

How it stays fast on millions of lines, in numpy and pyarrow, with Python loops
only over per-query values and small sets of rows:

- Queries: most runs keep each query's lines together. Adjacent query IDs are
  compared once; only a run that splits a query is dictionary-encoded and sorted.
- Order: most runs are already in score order. That is checked pair by pair;
  only queries out of order are sorted (pyarrow's stable multi-key sort), and
  elsewhere only the groups of equal scores, by document ID. The result is kept
  as a sparse permutation (the moved positions only).
- Duplicates and judgments: each line gets a 64-bit hash of (query, document or
  entity) with its line index packed into the low bits; sorting (in two halves
  that split no query, in parallel) puts equal hashes side by side (duplicate
  candidates) and lets every judged (query, document) pair find its lines by
  binary search. Every match is then verified exactly, so a hash collision
  costs time, never correctness. An ID's hash is a function of its own bytes
  only (see `_StringHasher`): the run's and the judgments' IDs, hashed apart,
  meet. Whatever the hashes say, an "unjudged" document of the top k is
  checked exactly against the judgments (`_confirm_unjudged`). An ``entity``
  pattern is applied with Python's ``re`` to the distinct document IDs only.
- Why hash rather than let Arrow match (query, document) keys exactly: on the
  6.98 M-line run, joining the keys and ``pyarrow.compute.index_in`` took 0.45
  to 0.8 s, more than the whole evaluation (0.33 s), and the hashes are
  needed anyway for duplicates (Arrow's ``value_counts`` took 4.6 s there).
  Arrow's exact set look-up serves the check, on the top k only.
- Measures: only judged lines carry gain, so DCG, ideal DCG, tie ranges and the
  unjudged scenarios are sums over sparse terms. They are added in rank order
  with `numpy.bincount` (a plain sequential loop), from the same discount and
  gain values as `metrics.py`, so the sums are those of the reference, bit for
  bit, not merely close.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import chain
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from judgepool.core.aggregate import assemble
from judgepool.core.contract import Contract
from judgepool.core.errors import (
    DuplicateEntry,
    DuplicatesRejected,
    EngineInconsistency,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.core.metrics import normalise, score_missing_query
from judgepool.core.types import Evaluation, Judgments, QueryResult

__all__ = ["ColumnarRun", "arrow_strings", "evaluate_columns"]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

_EMPTY_I64: Final = np.zeros(0, dtype=np.int64)
_EMPTY_F64: Final = np.zeros(0, dtype=np.float64)
# Odd 64-bit multipliers for hashing (from splitmix64 / golden ratio).
_M1: Final = np.uint64(0x9E3779B97F4A7C15)
_M2: Final = np.uint64(0xBF58476D1CE4E5B9)
_M3: Final = np.uint64(0x94D049BB133111EB)
_M4: Final = np.uint64(0xD6E8FEB86659FD93)
# (1 << 8 * i) - 1: the low i bytes of a word, for i = 0..8.
_BYTE_MASKS: Final = np.array([(1 << (8 * size)) - 1 for size in range(9)], dtype=np.uint64)


def _word_factor(word: int) -> np.uint64:
    """A distinct odd multiplier for word ``word`` of a value (see _StringHasher)."""
    return np.uint64((0x9E3779B97F4A7C15 * (2 * word + 3)) % 2**64 | 1)


class ColumnarRun(Protocol):
    """What `evaluate_columns` reads from a run: `formats.fast_run.RunColumns`
    (or the store's columns with the same attributes). Rows are the run's lines
    in source order."""

    @property
    def query_ids(self) -> pa.Array: ...

    @property
    def doc_ids(self) -> pa.Array: ...

    @property
    def scores(self) -> npt.NDArray[np.float64]: ...

    @property
    def ranks(self) -> npt.NDArray[np.int64]: ...

    @property
    def lines(self) -> npt.NDArray[np.int64] | None: ...


def evaluate_columns(
    columns: ColumnarRun,
    judgments: Judgments,
    contract: Contract,
    source: str | None = None,
) -> Evaluation:
    """Score a run given as columns: the same `Evaluation` as `aggregate.evaluate`.

    Raises `DuplicatesRejected` / `UnjudgedRejected` when a ``reject`` policy
    refuses the run, listing every offending entry across all judged queries.
    """
    run = _Run.of(columns)
    judged_ids = sorted(judgments)
    queries = _queries(run)
    if run.n >= _PARALLEL_ROWS:
        # hashing and sorting the keys in worker threads (numpy releases the
        # GIL) overlaps with ordering the run here
        with ThreadPoolExecutor(max_workers=_workers()) as pool:
            keys_result = _keys_start(run, queries, contract, pool.submit)
            layout = _layout(run, queries, contract.ties)
            keys = keys_result()
    else:
        keys = _keys_start(run, queries, contract, _run_now)()
        layout = _layout(run, queries, contract.ties)
    seg_judged = [qid in judgments for qid in layout.seg_qids]
    lookup = _judged_lines(run, layout, keys, judgments, seg_judged, contract)
    dups = _duplicates(run, layout, keys, seg_judged, contract)
    if contract.duplicates == "reject" and dups.entries:
        raise DuplicatesRejected(dups.entries, source)
    scored = _score(run, layout, keys, lookup, dups, judgments, seg_judged, contract)
    if contract.unjudged == "reject" and scored.unjudged_entries:
        raise UnjudgedRejected(scored.unjudged_entries, source)
    per_query: list[QueryResult] = []
    for query_id in judged_ids:
        result = scored.results.get(query_id)
        if result is None:
            result = score_missing_query(query_id, judgments[query_id], contract)
        per_query.append(result)
    unknown = sorted(q for q, known in zip(layout.seg_qids, seg_judged, strict=True) if not known)
    return assemble(contract, per_query, unknown)


# --------------------------------------------------------------------------- input


@dataclass(eq=False)
class _Run:
    n: int
    query_ids: pa.Array
    doc_ids: pa.Array
    scores: F64
    ranks: I64
    lines: I64 | None

    @classmethod
    def of(cls, columns: ColumnarRun) -> _Run:
        scores = np.asarray(columns.scores, dtype=np.float64)
        ranks = np.asarray(columns.ranks, dtype=np.int64)
        lines = None if columns.lines is None else np.asarray(columns.lines, dtype=np.int64)
        query_ids = _string_array(columns.query_ids)
        doc_ids = _string_array(columns.doc_ids)
        n = len(scores)
        if not (len(query_ids) == len(doc_ids) == len(ranks) == n) or (
            lines is not None and len(lines) != n
        ):
            raise ValueError("the run's columns differ in length")
        return cls(n, query_ids, doc_ids, scores, ranks, lines)

    def line_of(self, rows: I64) -> list[int]:
        chosen = rows + 1 if self.lines is None else self.lines[rows]
        numbers: list[int] = chosen.tolist()
        return numbers


def _string_array(values: Any) -> pa.Array:
    """A contiguous string or large_string array (other string-like types cast)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if not isinstance(values, pa.Array):
        values = arrow_strings(list(values))
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = values.cast(pa.large_string())
    if values.null_count:
        raise ValueError("query and document IDs must not be null")
    return values


# pyarrow's own conversions (pa.array, pa.table of numpy, Array.to_numpy) load
# pandas on first use, half a second; these build and read arrow memory directly.


def arrow_strings(values: Sequence[str]) -> pa.Array:
    """A pyarrow string array of Python strings (large_string beyond 2 GB)."""
    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    data = pa.py_buffer(b"".join(encoded))
    if offsets[-1] > 2**31 - 1:
        return pa.Array.from_buffers(
            pa.large_string(), len(encoded), [None, pa.py_buffer(offsets), data]
        )
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets.astype(np.int32)), data]
    )


def _arrow_numbers(values: npt.NDArray[Any]) -> pa.Array:
    """A null-free int64 or float64 pyarrow array viewing ``values``."""
    floats = values.dtype.kind == "f"
    values = np.ascontiguousarray(values, dtype=np.float64 if floats else np.int64)
    kind = pa.float64() if floats else pa.int64()
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def _numpy_of(values: pa.Array) -> npt.NDArray[Any]:
    """A null-free boolean or numeric pyarrow array as numpy (a copy for booleans)."""
    if isinstance(values, pa.ChunkedArray):
        values = pa.concat_arrays(values.chunks) if values.num_chunks != 1 else values.chunk(0)
    start, count = values.offset, len(values)
    if pa.types.is_boolean(values.type):
        if count == 0:
            return np.zeros(0, dtype=bool)
        bits = np.frombuffer(values.buffers()[1], dtype=np.uint8)
        unpacked = np.unpackbits(bits, count=start + count, bitorder="little")
        return unpacked[start:].view(bool)
    dtype = np.dtype(values.type.to_pandas_dtype())
    if count == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(values.buffers()[1], dtype=dtype)[start : start + count]


def _take(values: pa.Array, rows: I64) -> pa.Array:
    return values.take(_arrow_numbers(rows))


def _string_buffers(values: pa.Array) -> tuple[npt.NDArray[Any], npt.NDArray[np.uint8]]:
    """(offsets, length n + 1, a view in the array's own integer width; the data
    bytes) of a string array."""
    large = pa.types.is_large_string(values.type)
    buffers = values.buffers()
    n = len(values)
    raw = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)
    data = (
        np.frombuffer(buffers[2], dtype=np.uint8)
        if buffers[2] is not None
        else np.zeros(0, dtype=np.uint8)
    )
    return raw[values.offset : values.offset + n + 1], data


def _ranges(starts: I64, lengths: I64) -> I64:
    """The concatenation of ``arange(s, s + l)`` for every (s, l)."""
    lengths = np.maximum(lengths, 0)
    total = int(lengths.sum())
    if total == 0:
        return _EMPTY_I64
    ends = np.cumsum(lengths)
    shift: I64 = np.repeat(starts - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift


def _segment_of(starts: I64, positions: I64) -> I64:
    """Index of the segment (given by sorted start positions) holding each position."""
    return np.searchsorted(starts, positions, side="right").astype(np.int64) - 1


# --------------------------------------------------------------------------- order


class _Order:
    """The ranked order of the whole run: position -> row, as a permutation that
    differs from the identity only at ``pos`` (sorted), where it holds ``val``."""

    def __init__(self, n: int, pos: I64, val: I64) -> None:
        self.n = n
        self.pos = pos
        self.val = val
        self._by_val: tuple[I64, I64] | None = None
        self._inverse: I64 | None = None

    @property
    def identity(self) -> bool:
        return self.pos.size == 0

    def rows_at(self, positions: I64) -> I64:
        if self.identity:
            return positions.copy()
        if self.pos.size == self.n:
            return self.val[positions]
        return _patch_lookup(self.pos, self.val, positions)

    def positions_of(self, rows: I64) -> I64:
        if self.identity:
            return rows.copy()
        if self.pos.size == self.n:
            if self._inverse is None:
                self._inverse = np.empty(self.n, dtype=np.int64)
                self._inverse[self.val] = self.pos
            return self._inverse[rows]
        if self._by_val is None:
            by = np.argsort(self.val, kind="stable")
            self._by_val = (self.val[by], self.pos[by])
        return _patch_lookup(self._by_val[0], self._by_val[1], rows)


def _patch_lookup(keys: I64, values: I64, queries: I64) -> I64:
    result = queries.copy()
    if keys.size == 0 or queries.size == 0:
        return result
    at = np.searchsorted(keys, queries)
    at_clipped = np.minimum(at, keys.size - 1)
    hit = keys[at_clipped] == queries
    result[hit] = values[at_clipped[hit]]
    return result


@dataclass(eq=False)
class _Layout:
    """The run grouped by query (segments in ranked-order space) and ordered."""

    seg_qids: list[str]
    seg_start: I64  # length nseg + 1; positions in ranked order
    order: _Order
    grouped: bool  # each query's lines are contiguous in the file
    codes: I64 | None  # ungrouped: each row's query code, which is its segment
    ordered_scores: F64  # scores in ranked order
    # pairs (i, i+1) of ranked positions with equal scores inside one segment
    equal_pairs: I64

    @property
    def nseg(self) -> int:
        return len(self.seg_qids)

    def segment_of_rows(self, rows: I64) -> I64:
        if self.grouped:
            return _segment_of(self.seg_start[:-1], rows)
        assert self.codes is not None
        segments: I64 = self.codes[rows]  # segment k is the query of code k
        return segments


def _sort_keys(ties: str) -> list[tuple[str, str]]:
    if ties == "trec_eval":
        return [("score", "descending"), ("doc", "descending")]
    if ties == "docid":
        return [("score", "descending"), ("doc", "ascending")]
    if ties == "rank":
        return [("rank", "ascending")]
    return []


def _sorted_subset(
    run: _Run, rows: I64, group: I64, ties: str, *, equal_scores: bool = False
) -> I64:
    """``rows`` reordered by (group, then the tie policy's keys), stably.
    ``equal_scores``: every group holds one score, so the score key is left out."""
    columns: dict[str, Any] = {"group": _arrow_numbers(group)}
    keys = [key for key in _sort_keys(ties) if not (equal_scores and key[0] == "score")]
    names = {name for name, _ in keys}
    if "score" in names:
        columns["score"] = _arrow_numbers(run.scores[rows])
    if "doc" in names:
        columns["doc"] = _take(run.doc_ids, rows)
    if "rank" in names:
        columns["rank"] = _arrow_numbers(run.ranks[rows])
    table = pa.table(columns)
    order = pc.sort_indices(table, sort_keys=[("group", "ascending"), *keys])
    ordered: I64 = rows[_numpy_of(order).astype(np.int64)]
    return ordered


@dataclass(eq=False)
class _Queries:
    """The run's queries: each query's lines form one segment. Grouped: the
    lines of a query are contiguous in the file and segments are numbered in
    file order; otherwise segments are numbered by dictionary code (first
    appearance) and ``codes`` gives each row's segment."""

    seg_qids: list[str]
    grouped: bool
    boundary: B  # grouped: row i + 1 starts a new segment
    starts: I64  # grouped: the first row of every segment
    codes: I64 | None

    @property
    def nseg(self) -> int:
        return len(self.seg_qids)

    def segment_ids(self, lo: int, hi: int) -> I64:
        """The segment of every row in ``lo..hi - 1``."""
        if self.codes is not None:
            return self.codes[lo:hi]
        first = int(np.searchsorted(self.starts, lo, side="right")) - 1
        last = int(np.searchsorted(self.starts, hi - 1, side="right")) - 1
        bounds = np.clip(np.append(self.starts[first + 1 : last + 1], hi), lo, hi)
        lengths = np.diff(np.concatenate(([lo], bounds)))
        ids: I64 = np.repeat(np.arange(first, last + 1, dtype=np.int64), lengths)
        return ids


def _queries(run: _Run) -> _Queries:
    n = run.n
    if n == 0:
        return _Queries([], True, np.zeros(0, dtype=bool), _EMPTY_I64, None)
    q = run.query_ids
    boundary = _numpy_of(pc.not_equal(q.slice(1), q.slice(0, n - 1)))
    starts = np.concatenate(([0], np.flatnonzero(boundary) + 1)).astype(np.int64)
    seg_qids: list[str] = _take(q, starts).to_pylist()
    if len(set(seg_qids)) == len(seg_qids):
        return _Queries(seg_qids, True, boundary, starts, None)
    encoded = pc.dictionary_encode(q)
    codes = _numpy_of(encoded.indices).astype(np.int64)
    return _Queries(encoded.dictionary.to_pylist(), False, boundary, starts, codes)


def _layout(run: _Run, queries: _Queries, ties: str) -> _Layout:
    if run.n == 0:
        return _Layout(
            [],
            np.zeros(1, dtype=np.int64),
            _Order(0, _EMPTY_I64, _EMPTY_I64),
            True,
            None,
            run.scores,
            _EMPTY_I64,
        )
    if queries.grouped:
        return _grouped_layout(run, ties, queries.boundary, queries.starts, queries.seg_qids)
    assert queries.codes is not None
    return _ungrouped_layout(run, ties, queries.codes, queries.seg_qids)


def _grouped_layout(run: _Run, ties: str, boundary: B, starts: I64, seg_qids: list[str]) -> _Layout:
    n = run.n
    seg_start = np.append(starts, n)
    s = run.scores
    inside = ~boundary
    if ties in ("trec_eval", "docid"):
        bad_pairs = np.flatnonzero((s[1:] > s[:-1]) & inside)
    elif ties == "rank":
        bad_pairs = np.flatnonzero((run.ranks[1:] < run.ranks[:-1]) & inside)
    else:
        bad_pairs = _EMPTY_I64
    patches_pos: list[I64] = []
    patches_val: list[I64] = []
    bad_seg = np.zeros(len(seg_qids), dtype=bool)
    if bad_pairs.size:
        segs = np.unique(_segment_of(starts, bad_pairs))
        bad_seg[segs] = True
        lengths = seg_start[segs + 1] - seg_start[segs]
        rows = _ranges(seg_start[segs], lengths)
        group = np.repeat(segs, lengths)
        patches_pos.append(rows)
        patches_val.append(_sorted_subset(run, rows, group, ties))
    equal = (s[1:] == s[:-1]) & inside
    equal_pairs = np.flatnonzero(equal).astype(np.int64)
    if ties in ("trec_eval", "docid") and equal_pairs.size:
        pairs = equal_pairs
        if bad_pairs.size:
            pairs = pairs[~bad_seg[_segment_of(starts, pairs)]]
        if pairs.size:
            new_group = np.ones(pairs.size, dtype=bool)
            new_group[1:] = pairs[1:] != pairs[:-1] + 1
            first = pairs[new_group]
            last = np.append(pairs[np.flatnonzero(new_group)[1:] - 1], pairs[-1])
            lengths = last - first + 2
            rows = _ranges(first, lengths)
            group = np.repeat(np.arange(first.size, dtype=np.int64), lengths)
            patches_pos.append(rows)
            patches_val.append(_sorted_subset(run, rows, group, ties, equal_scores=True))
    if patches_pos:
        pos = np.concatenate(patches_pos)
        val = np.concatenate(patches_val)
        if len(patches_pos) > 1:  # each patch on its own is in position order
            by = np.argsort(pos, kind="stable")
            pos, val = pos[by], val[by]
        moved = pos != val
        order = _Order(n, pos[moved], val[moved])
    else:
        order = _Order(n, _EMPTY_I64, _EMPTY_I64)
    ordered_scores = s
    if bad_pairs.size and not order.identity:
        ordered_scores = s.copy()
        ordered_scores[order.pos] = s[order.val]
        equal_pairs = np.flatnonzero((ordered_scores[1:] == ordered_scores[:-1]) & inside).astype(
            np.int64
        )
    return _Layout(seg_qids, seg_start, order, True, None, ordered_scores, equal_pairs)


def _ungrouped_layout(run: _Run, ties: str, codes: I64, names: list[str]) -> _Layout:
    # Sorting by dictionary code first makes segment k the query of code k.
    n = run.n
    rows = np.arange(n, dtype=np.int64)
    ordered_rows = _sorted_subset(run, rows, codes, ties)
    ordered_codes = codes[ordered_rows]
    change = np.flatnonzero(ordered_codes[1:] != ordered_codes[:-1]) + 1
    seg_start = np.concatenate(([0], change, [n])).astype(np.int64)
    ordered_scores = run.scores[ordered_rows]
    inside = ordered_codes[1:] == ordered_codes[:-1]
    equal_pairs = np.flatnonzero((ordered_scores[1:] == ordered_scores[:-1]) & inside)
    return _Layout(
        names,
        seg_start,
        _Order(n, rows, ordered_rows),
        False,
        codes,
        ordered_scores,
        equal_pairs.astype(np.int64),
    )


# --------------------------------------------------------------------------- keys


class _StringHasher:
    """64-bit hashes of a string array's values, any range of rows at a time.

    The hash of a value is a function of its bytes alone, never of the other
    values in its array: the run's document IDs and the judged IDs are hashed
    by two hashers, and a judged document is found only if both give it the
    same hash. (An earlier version chose the words hashed and whether to mix
    in the length from the longest value of each array, so IDs hashed beside
    a value longer than 8 or 64 bytes got other hashes: judged documents went
    unfound and scored as unjudged.)

    Every byte counts: a value is read as little-endian 8-byte words, the
    bytes beyond its end masked off, word ``w`` multiplied by its own odd
    factor and all of them XORed together with the length (so that a value
    and the same value followed by NUL bytes differ). Word 0 is read for
    every row; word ``w`` only for the rows longer than ``8 * w`` bytes, so
    a few long IDs cost only their own words. The final multiplication
    spreads every input bit into the top bits that the sort compares.

    The code's length boundaries, each tested on both sides: multiples of 8
    bytes (a value ending exactly at a word's end, or one byte before or
    after), and the end of the data buffer (the last value's words are read
    from a zero-padded copy of the buffer's last 8 bytes).
    """

    def __init__(self, values: pa.Array) -> None:
        self.offsets, data = _string_buffers(values)
        self.data = data
        # every byte offset of the data seen as the start of a little-endian word;
        # the last 7 offsets go through a padded copy of the end (see `_words`)
        self.limit = max(data.size - 8, -1)
        self.words = (
            np.ndarray(shape=(data.size - 7,), dtype="<u8", buffer=data, strides=(1,))
            if data.size >= 8
            else np.zeros(0, dtype=np.uint64)
        )
        tail = np.zeros(16, dtype=np.uint8)
        end = data[max(data.size - 8, 0) :]
        tail[: end.size] = end
        self.tail_base = max(data.size - 8, 0)
        self.tail_words = np.ndarray(shape=(9,), dtype="<u8", buffer=tail, strides=(1,))

    def _words(self, at: I64) -> U64:
        """The 8-byte words starting at byte offsets ``at`` (each < the data's size)."""
        if at.size == 0 or int(at.max()) <= self.limit:
            found: U64 = self.words[at]
            return found
        result = np.empty(at.size, dtype=np.uint64)
        inside = at <= self.limit
        result[inside] = self.words[at[inside]]
        outside = ~inside
        result[outside] = self.tail_words[at[outside] - self.tail_base]
        return result

    def hash(self, lo: int, hi: int, salt: U64) -> U64:
        """Hashes of rows ``lo..hi - 1``, each mixed with its ``salt``."""
        bounds = self.offsets[lo : hi + 1].astype(np.int64)
        starts = bounds[:-1]
        lengths = bounds[1:] - starts
        h = lengths.astype(np.uint64) * _M4
        # word 0 (an empty value reads no byte: its start may be the data's end)
        rows = np.flatnonzero(lengths > 0) if not lengths.all() else None
        word = 0
        while True:
            at = starts if rows is None else starts[rows]
            rest = lengths if rows is None else lengths[rows]
            if word:
                at = at + 8 * word
                rest = rest - 8 * word
            more = self._words(at)
            more &= _BYTE_MASKS[np.minimum(rest, 8)]
            more *= _word_factor(word)
            if rows is None:
                h ^= more
            else:
                h[rows] ^= more
            longer = rest > 8
            if not longer.any():
                break
            if rows is None:
                rows = None if longer.all() else np.flatnonzero(longer)
            else:
                rows = rows[longer]
            word += 1
        h ^= salt
        h *= _M1
        return h


def _segment_salt(segments: I64) -> U64:
    salt: U64 = segments.astype(np.uint64) * _M3 + _M4
    return salt


def _code_hash(codes: I64, salt: U64) -> U64:
    h = codes.astype(np.uint64) * _M2
    h ^= salt
    h *= _M1
    return h


@dataclass(eq=False)
class _Keys:
    """Each row's (query, entity) hash with the row index packed into its low
    bits, sorted within parts: row ranges that split no query, each sorted on
    its own (in parallel), so equal keys of one query always meet.

    Entity mode also keeps each row's entity code (exact) and the entity strings.
    """

    row_bits: int
    packed: U64  # packed[lo:hi] sorted for every part (lo, hi)
    parts: list[tuple[int, int]]
    neighbours: I64  # see equal_neighbours
    part_of_segment: I64
    hasher: _StringHasher | None
    entity_codes: I64 | None
    entity_names: list[str] | None
    entity_index: dict[str, int] | None

    @property
    def row_mask(self) -> np.uint64:
        return np.uint64((1 << self.row_bits) - 1)

    def rows_of(self, at: I64) -> I64:
        return (self.packed[at] & self.row_mask).astype(np.int64)

    def equal_neighbours(self) -> I64:
        """Indices i where sorted entries i and i + 1 of one part share their hash."""
        return self.neighbours

    def find(self, hashes: U64, segments: I64) -> tuple[I64, I64]:
        """For each hash (of a key of the given segment), the range of sorted
        entries holding it, as (first index, count)."""
        first = hashes & ~self.row_mask
        last = first | self.row_mask
        low = np.zeros(hashes.size, dtype=np.int64)
        high = np.zeros(hashes.size, dtype=np.int64)
        part = self.part_of_segment[segments]
        for index, (lo, hi) in enumerate(self.parts):
            mine = np.flatnonzero(part == index)
            if mine.size == 0:
                continue
            sorted_part = self.packed[lo:hi]
            low[mine] = np.searchsorted(sorted_part, first[mine], side="left") + lo
            high[mine] = np.searchsorted(sorted_part, last[mine], side="right") + lo
        return low, high - low


_CHUNK_ROWS: Final = 1 << 18
# below this many lines, threads cost more than they save
_PARALLEL_ROWS: Final = 1 << 17


def _workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def _run_now(work: Callable[[int, int], None], lo: int, hi: int) -> Future[None]:
    """`Executor.submit` without an executor: run now, return the finished future."""
    done: Future[None] = Future()
    work(lo, hi)
    done.set_result(None)
    return done


def _keys_start(
    run: _Run,
    queries: _Queries,
    contract: Contract,
    submit: Callable[[Callable[[int, int], None], int, int], Future[None]],
) -> Callable[[], _Keys]:
    """Start hashing and sorting each part with ``submit`` (a thread pool's, or
    `_run_now`); the returned function waits for the result."""
    n = run.n
    row_bits = max(1, (n - 1).bit_length())
    row_mask = np.uint64((1 << row_bits) - 1)
    packed = np.empty(n, dtype=np.uint64)
    # parts: split at segment starts near equal shares, so no query is cut
    workers = _workers() if submit is not _run_now else 1
    if queries.grouped and n and workers > 1:
        wanted = np.array([n * i // workers for i in range(1, workers)], dtype=np.int64)
        at = np.maximum(np.searchsorted(queries.starts, wanted, side="right") - 1, 0)
        cuts = sorted(set(queries.starts[at].tolist()) - {0})
        bounds = [0, *cuts, n]
        parts = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    else:
        parts = [(0, n)]
    part_of_segment = np.zeros(queries.nseg, dtype=np.int64)
    if queries.grouped and len(parts) > 1:
        part_starts = np.array([lo for lo, _ in parts], dtype=np.int64)
        part_of_segment = np.searchsorted(part_starts, queries.starts, side="right") - 1
    hasher: _StringHasher | None = None
    entity_codes: I64 | None = None
    entity_names: list[str] | None = None
    entity_index: dict[str, int] | None = None
    if contract.entity_pattern is None:
        hasher = _StringHasher(run.doc_ids)
    else:
        encoded = pc.dictionary_encode(run.doc_ids)
        doc_codes = _numpy_of(encoded.indices).astype(np.int64)
        entity_index = {}
        code_of_unique = np.fromiter(
            (
                entity_index.setdefault(contract.entity_of(doc), len(entity_index))
                for doc in encoded.dictionary.to_pylist()
            ),
            dtype=np.int64,
            count=len(encoded.dictionary),
        )
        entity_names = list(entity_index)
        entity_codes = code_of_unique[doc_codes] if n else _EMPTY_I64

    def fill(lo: int, hi: int) -> None:
        for start in range(lo, hi, _CHUNK_ROWS):
            end = min(start + _CHUNK_ROWS, hi)
            salt = _segment_salt(queries.segment_ids(start, end))
            if hasher is not None:
                h = hasher.hash(start, end, salt)
            else:
                assert entity_codes is not None
                h = _code_hash(entity_codes[start:end], salt)
            h &= ~row_mask
            h |= np.arange(start, end, dtype=np.uint64)
            packed[start:end] = h
        part = packed[lo:hi]
        part.sort()
        if part.size > 1:
            close = part[1:] ^ part[:-1]
            found[lo] = np.flatnonzero(close <= row_mask).astype(np.int64) + lo

    found: dict[int, I64] = {}  # each part's equal neighbours, by its first row
    futures = [submit(fill, lo, hi) for lo, hi in parts]

    def result() -> _Keys:
        for future in futures:
            future.result()
        neighbours = [found[lo] for lo, _ in parts if lo in found]
        return _Keys(
            row_bits,
            packed,
            parts,
            np.concatenate(neighbours) if neighbours else _EMPTY_I64,
            part_of_segment,
            hasher,
            entity_codes,
            entity_names,
            entity_index,
        )

    return result


# --------------------------------------------------------------------------- judgments


@dataclass(eq=False)
class _Lookup:
    """The judged lines: rows (sorted) and their grades; and every judged
    document (``docs``) or entity code (``codes``) of the run's judged queries,
    for `_confirm_unjudged`."""

    rows: I64
    grades: I64
    docs: pa.Array | None = None
    codes: I64 | None = None


def _judged_lines(
    run: _Run,
    layout: _Layout,
    keys: _Keys,
    judgments: Judgments,
    seg_judged: list[bool],
    contract: Contract,
) -> _Lookup:
    pair_seg: list[int] = []
    pair_doc: list[str] = []
    pair_grade: list[int] = []
    for seg, (query_id, known) in enumerate(zip(layout.seg_qids, seg_judged, strict=True)):
        if not known:
            continue
        judged = judgments[query_id]
        pair_seg.extend([seg] * len(judged))
        pair_doc.extend(judged.keys())
        pair_grade.extend(judged.values())
    if not pair_doc or run.n == 0:
        return _Lookup(_EMPTY_I64, _EMPTY_I64)
    segs = np.array(pair_seg, dtype=np.int64)
    grades = np.array(pair_grade, dtype=np.int64)
    if keys.entity_index is None:
        docs = arrow_strings(pair_doc)
        pair_hash = _StringHasher(docs).hash(0, len(docs), _segment_salt(segs))
        pair_codes = None
    else:
        index = keys.entity_index
        pair_codes = np.array([index.get(doc, -1) for doc in pair_doc], dtype=np.int64)
        present = pair_codes >= 0
        segs, grades, pair_codes = segs[present], grades[present], pair_codes[present]
        docs = None
        pair_hash = _code_hash(pair_codes, _segment_salt(segs))
    low, counts = keys.find(pair_hash, segs)
    if not counts.any():
        return _Lookup(_EMPTY_I64, _EMPTY_I64, docs, pair_codes)
    pairs = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    rows = keys.rows_of(_ranges(low, counts))
    same = layout.segment_of_rows(rows) == segs[pairs]
    if pair_codes is None:
        assert docs is not None
        wanted = _take(docs, pairs).cast(run.doc_ids.type)
        same &= _numpy_of(pc.equal(_take(run.doc_ids, rows), wanted))
    else:
        assert keys.entity_codes is not None
        same &= keys.entity_codes[rows] == pair_codes[pairs]
    rows, pairs = rows[same], pairs[same]
    by = np.argsort(rows, kind="stable")
    return _Lookup(rows[by], grades[pairs[by]], docs, pair_codes)


# --------------------------------------------------------------------------- duplicates


@dataclass(eq=False)
class _Duplicates:
    entries: list[DuplicateEntry]
    dropped: I64  # ranked positions of the copies dropped (sorted), judged queries only
    per_segment: I64  # copies dropped per segment


def _duplicates(
    run: _Run, layout: _Layout, keys: _Keys, seg_judged: list[bool], contract: Contract
) -> _Duplicates:
    none = _Duplicates([], _EMPTY_I64, np.zeros(layout.nseg, dtype=np.int64))
    if run.n < 2:
        return none
    same = keys.equal_neighbours()
    if same.size == 0:
        return none
    rows = np.unique(np.concatenate((keys.rows_of(same), keys.rows_of(same + 1))))
    segments = layout.segment_of_rows(rows)
    judged_seg = np.array(seg_judged, dtype=bool)
    rows, segments = rows[judged_seg[segments]], segments[judged_seg[segments]]
    if rows.size == 0:
        return none
    if keys.entity_codes is not None:
        entity = keys.entity_codes[rows]
    else:
        encoded = pc.dictionary_encode(_take(run.doc_ids, rows))
        entity = _numpy_of(encoded.indices).astype(np.int64)
    identity = segments * (int(entity.max()) + 1) + entity
    positions = layout.order.positions_of(rows)
    # group equal identities, copies in ranked order
    by = np.lexsort((positions, identity))
    identity, rows, positions, segments = identity[by], rows[by], positions[by], segments[by]
    first = np.ones(rows.size, dtype=bool)
    first[1:] = identity[1:] != identity[:-1]
    sizes = np.bincount(np.cumsum(first) - 1)
    repeated = np.repeat(sizes > 1, sizes)
    if not repeated.any():
        return none
    rows, positions, segments, first = (
        rows[repeated],
        positions[repeated],
        segments[repeated],
        first[repeated],
    )
    dropped = np.sort(positions[~first])
    per_segment = np.bincount(segments[~first], minlength=layout.nseg).astype(np.int64)
    if contract.duplicates != "reject":
        return _Duplicates([], dropped, per_segment)
    # entries: by query ID, then by the kept copy's place in the ranked order
    lines = np.array(run.line_of(rows), dtype=np.int64)
    kept = np.flatnonzero(first)
    if keys.entity_names is not None:
        assert keys.entity_codes is not None
        names = [keys.entity_names[c] for c in keys.entity_codes[rows[kept]].tolist()]
    else:
        names = _take(run.doc_ids, rows[kept]).to_pylist()
    bounds = np.append(kept, rows.size).tolist()
    kept_seg = segments[kept].tolist()
    kept_pos = positions[kept].tolist()
    listed = []
    for i in range(len(kept)):
        copies = sorted(lines[bounds[i] : bounds[i + 1]].tolist())
        query_id = layout.seg_qids[kept_seg[i]]
        listed.append((query_id, kept_pos[i], DuplicateEntry(query_id, names[i], tuple(copies))))
    listed.sort(key=lambda item: (item[0], item[1]))
    return _Duplicates([entry for _, _, entry in listed], dropped, per_segment)


# --------------------------------------------------------------------------- measures


@dataclass(eq=False)
class _Scored:
    results: dict[str, QueryResult]
    unjudged_entries: list[UnjudgedEntry]


def _discounts(size: int) -> F64:
    """The discount at 0-based position i (metrics.discount(i + 1)), bit for bit."""
    return np.array([1.0 / math.log2(i + 1) for i in range(1, size + 1)], dtype=np.float64)


def _sum_in_order(groups: I64, positions: I64, values: F64, count: int) -> F64:
    """Per group, the sum of ``values`` added in order of position (as the
    reference adds its terms); zero terms may be left out, they change no sum."""
    if groups.size == 0:
        return np.zeros(count, dtype=np.float64)
    key = groups * (int(positions.max()) + 1) + positions
    if np.any(key[1:] < key[:-1]):
        # the terms come as a few runs already in order: timsort merges them
        by = np.argsort(key, kind="stable")
        groups, values = groups[by], values[by]
    return np.bincount(groups, weights=values, minlength=count).astype(np.float64)


def _ideal(
    groups: I64,
    gains: F64,
    count: int,
    k: int,
    discounts: F64,
    extra: I64 | None = None,
    extra_gain: float = 0.0,
) -> F64:
    """Per group, the DCG@k of its gains sorted best first (`metrics.ideal_dcg`),
    with ``extra[g]`` more copies of ``extra_gain`` merged in.

    The copies form one run of positions; their sum comes from prefix sums of
    the discounts, added to the in-order sum of the other terms, so these
    values can differ from the reference's in the last bits (never by 1e-15
    of the value) where every other sum here equals it exactly.
    """
    keep = gains > 0
    groups, gains = groups[keep], gains[keep]
    by = np.lexsort((-gains, groups))
    groups, gains = groups[by], gains[by]
    first = np.searchsorted(groups, np.arange(count, dtype=np.int64), side="left")
    rank = np.arange(groups.size, dtype=np.int64) - first[groups]
    copies: F64 | None = None
    if extra is not None and extra_gain > 0:
        better = np.bincount(groups[gains > extra_gain], minlength=count).astype(np.int64)
        rank = rank + np.where(rank >= better[groups], extra[groups], 0)
        prefix = np.concatenate(([0.0], np.cumsum(discounts)))
        copies = extra_gain * (
            prefix[np.minimum(better + extra, k)] - prefix[np.minimum(better, k)]
        )
    inside = rank < k
    groups, rank = groups[inside], rank[inside]
    total = _sum_in_order(groups, rank, gains[inside] * discounts[rank], count)
    return total if copies is None else total + copies


def _score(
    run: _Run,
    layout: _Layout,
    keys: _Keys,
    lookup: _Lookup,
    dups: _Duplicates,
    judgments: Judgments,
    seg_judged: list[bool],
    contract: Contract,
) -> _Scored:
    k = contract.k
    nseg = layout.nseg
    if nseg == 0:
        return _Scored({}, [])
    gain_table = np.array([contract.gains[g] for g in contract.scale.grades], dtype=np.float64)
    lowest = contract.scale.minimum

    def gain_of(grades: I64) -> F64:
        # as Contract.gain_of: grades <= 0 gain 0; a positive grade outside the
        # scale (which the qrels reader never lets through) is a KeyError there too
        if grades.size == 0:
            return _EMPTY_F64
        outside = (grades > 0) & ((grades < lowest) | (grades > contract.scale.maximum))
        if outside.any():
            raise KeyError(int(grades[outside][0]))
        index = np.clip(grades - lowest, 0, gain_table.size - 1)
        return np.where(grades > 0, gain_table[index], 0.0)

    seg_start = layout.seg_start[:-1]
    seg_len = np.diff(layout.seg_start)
    dropped = dups.dropped
    returned = seg_len - dups.per_segment

    # judged lines that survive deduplication, in ranked order
    positions = layout.order.positions_of(lookup.rows)
    grades = lookup.grades
    if dropped.size:
        at = np.minimum(np.searchsorted(dropped, positions), dropped.size - 1)
        keep = dropped[at] != positions
        positions, grades, rows = positions[keep], grades[keep], lookup.rows[keep]
    else:
        rows = lookup.rows
    by = np.argsort(positions, kind="stable")
    positions, grades, rows = positions[by], grades[by], rows[by]
    seg = _segment_of(seg_start, positions)
    # place in the deduplicated list: ranked position minus copies dropped before it
    if dropped.size:
        drop_before = np.searchsorted(dropped, positions) - np.searchsorted(dropped, seg_start)[seg]
        dedup_pos = positions - seg_start[seg] - drop_before
    else:
        dedup_pos = positions - seg_start[seg]
    gains = gain_of(grades)

    condense = contract.unjudged == "condense"
    if condense:
        # the final list is the judged lines only: place = rank among them
        first_of_seg = np.searchsorted(seg, np.arange(nseg, dtype=np.int64), side="left")
        final_pos = np.arange(seg.size, dtype=np.int64) - first_of_seg[seg]
        final_len = np.bincount(seg, minlength=nseg).astype(np.int64)
    else:
        final_pos = dedup_pos
        final_len = returned

    # the judged universe of every judged query the run holds
    judged_segs = [index for index, known in enumerate(seg_judged) if known]
    universes = [list(judgments[layout.seg_qids[index]].values()) for index in judged_segs]
    universe_size = np.zeros(nseg, dtype=np.int64)
    universe_size[judged_segs] = [len(values) for values in universes]
    u_seg = np.repeat(np.arange(nseg, dtype=np.int64), universe_size)
    u_grades = np.fromiter(chain.from_iterable(universes), dtype=np.int64, count=u_seg.size)
    u_gain = gain_of(u_grades)
    relevant_from = contract.relevant_from
    total_relevant = np.bincount(u_seg[u_grades >= relevant_from], minlength=nseg)

    longest_universe = int(universe_size.max()) if nseg else 0
    size = int(min(k, int(seg_len.max()) + longest_universe + 1))
    discounts = _discounts(size)

    in_top = final_pos < k
    top_pos = final_pos[in_top]
    dcg = _sum_in_order(seg[in_top], top_pos, gains[in_top] * discounts[top_pos], nseg)
    candidate_idcg = _ideal(seg, gains, nseg, k, discounts)

    judged_idcg = _ideal(u_seg, u_gain, nseg, k, discounts)

    relevant = grades >= relevant_from
    relevant_in_top = np.bincount(seg[relevant & in_top], minlength=nseg)
    first_relevant = np.full(nseg, -1, dtype=np.int64)
    rel_seg, rel_pos = seg[relevant], final_pos[relevant]
    if rel_seg.size:
        # positions ascend within a segment: the first occurrence is the smallest
        first_at = np.unique(rel_seg, return_index=True)
        first_relevant[first_at[0]] = rel_pos[first_at[1]] + 1

    judged_top = dedup_pos < k
    judged_in_top = np.bincount(seg[judged_top], minlength=nseg).astype(np.int64)
    unjudged_at_k = np.minimum(k, returned) - judged_in_top

    tie_min, tie_max = _tie_range(
        run,
        layout,
        dups,
        seg,
        positions,
        final_pos,
        gains,
        final_len,
        nseg,
        k,
        discounts,
        condense,
        rows,
    )

    # unjudged documents in the top k: entries (for reject) and the scenarios
    need = np.flatnonzero((unjudged_at_k > 0) & np.array(seg_judged, dtype=bool))
    unjudged_entries: list[UnjudgedEntry] = []
    scenario: dict[int, tuple[float | None, float | None]] = {}
    if need.size:
        top_seg, top_pos, top_positions = _unjudged_in_top(
            layout, dups, need, returned, k, positions
        )
        top_rows = layout.order.rows_at(top_positions)
        _confirm_unjudged(run, layout, keys, lookup, judgments, top_seg, top_rows)
        if contract.unjudged == "reject":
            docs = _take(run.doc_ids, top_rows).to_pylist()
            unjudged_entries = [
                UnjudgedEntry(layout.seg_qids[s], doc, p + 1)
                for s, doc, p in zip(top_seg.tolist(), docs, top_pos.tolist(), strict=True)
            ]
            unjudged_entries.sort(key=lambda e: (e.query_id, e.rank))
            return _Scored({}, unjudged_entries)
    if need.size:
        scenario = _scenarios(
            contract,
            need,
            seg,
            dedup_pos,
            gains,
            returned,
            unjudged_at_k,
            u_seg,
            u_gain,
            nseg,
            k,
            discounts,
        )

    at = np.array(judged_segs, dtype=np.int64)
    policy = contract.zero_idcg
    empty = final_len[at] == 0
    dcg_at, candidate_at = dcg[at], candidate_idcg[at]
    idcg_at = candidate_at if contract.universe == "candidates" else judged_idcg[at]
    ndcg = _normalised(dcg_at, idcg_at, policy)
    dcg_values: list[float] = dcg_at.tolist()
    idcg_values: list[float] = idcg_at.tolist()
    back = returned[at]
    total = total_relevant[at]
    relevant_top = relevant_in_top[at]
    first = first_relevant[at]
    with np.errstate(divide="ignore", invalid="ignore"):
        judged_share = (judged_in_top[at] / np.minimum(k, back)).tolist()
        recall = np.where(total > 0, relevant_top / np.maximum(total, 1), np.nan).tolist()
        rr = np.where(first > 0, 1.0 / np.maximum(first, 1), 0.0).tolist()
    precision = (relevant_top / k).tolist()
    lows = [scenario.get(index, (None, None))[0] for index in judged_segs]
    highs = [scenario.get(index, (None, None))[1] for index in judged_segs]
    results = {
        query_id: QueryResult(
            query_id=query_id,
            ndcg=ndcg_value,
            dcg=dcg_value,
            idcg=idcg_value,
            candidate_ndcg=candidate_value,
            returned=returned_value,
            judged_at_k=share,
            unjudged_at_k=unjudged,
            duplicates=duplicates,
            zero_idcg=zero,
            excluded=ndcg_value is None,
            missing=False,
            recall=None if total_value == 0 else recall_value,
            precision=precision_value,
            rr=rr_value,
            ndcg_tie_min=tie_low,
            ndcg_tie_max=tie_high,
            ndcg_if_unjudged_irrelevant=low,
            ndcg_if_unjudged_max=high,
        )
        for (
            query_id,
            ndcg_value,
            dcg_value,
            idcg_value,
            candidate_value,
            returned_value,
            share,
            unjudged,
            duplicates,
            zero,
            total_value,
            recall_value,
            precision_value,
            rr_value,
            tie_low,
            tie_high,
            low,
            high,
        ) in zip(
            [layout.seg_qids[index] for index in judged_segs],
            ndcg,
            dcg_values,
            idcg_values,
            _normalised(dcg_at, candidate_at, policy),
            back.tolist(),
            judged_share,
            unjudged_at_k[at].tolist(),
            dups.per_segment[at].tolist(),
            (idcg_at == 0).tolist(),
            total.tolist(),
            recall,
            precision,
            rr,
            _normalised(np.where(empty, 0.0, tie_min[at]), idcg_at, policy),
            _normalised(np.where(empty, 0.0, tie_max[at]), idcg_at, policy),
            lows,
            highs,
            strict=True,
        )
    }
    return _Scored(results, unjudged_entries)


def _normalised(dcg: F64, idcg: F64, policy: str) -> list[float | None]:
    """`metrics.normalise` over arrays: dcg / idcg where idcg > 0, else the policy's value."""
    with np.errstate(divide="ignore", invalid="ignore"):
        values: list[float | None] = np.where(idcg > 0, dcg / idcg, 0.0).tolist()
    zero = np.flatnonzero(~(idcg > 0)).tolist()
    if zero:
        fill = normalise(0.0, 0.0, policy)
        for index in zero:
            values[index] = fill
    return values


def _confirm_unjudged(
    run: _Run,
    layout: _Layout,
    keys: _Keys,
    lookup: _Lookup,
    judgments: Judgments,
    segs: I64,
    rows: I64,
) -> None:
    """Defence in depth: check exactly that no line the hashed look-up left
    unjudged in the top k (segments ``segs``, run rows ``rows``) is judged.

    A judged document taken for unjudged scores 0 silently, so this verdict,
    unlike the others, is never trusted to the hashes alone. The check is
    cheap: the top k is a small part of a run, an Arrow set look-up finds the
    few lines whose document is judged for some query, and only those are
    compared with the judgments in Python. A failure is a bug in judgepool,
    reported as such rather than as a number."""
    if rows.size == 0:
        return
    if keys.entity_codes is not None:
        judged_codes = lookup.codes if lookup.codes is not None else _EMPTY_I64
        codes = keys.entity_codes[rows]
        suspects = np.flatnonzero(np.isin(codes, judged_codes))
        assert keys.entity_names is not None
        names = [keys.entity_names[code] for code in codes[suspects].tolist()]
    else:
        if lookup.docs is None or len(lookup.docs) == 0:
            return
        docs = _take(run.doc_ids, rows)
        judged = lookup.docs.cast(docs.type)
        suspects = np.flatnonzero(_numpy_of(pc.is_in(docs, value_set=judged)))
        names = _take(docs, suspects).to_pylist()
    for seg, name in zip(segs[suspects].tolist(), names, strict=True):
        query_id = layout.seg_qids[seg]
        if name in judgments.get(query_id, {}):
            raise EngineInconsistency(
                f"the fast engine took query {query_id!r} document {name!r} for unjudged, "
                "but it is judged"
            )


def _unjudged_in_top(
    layout: _Layout,
    dups: _Duplicates,
    segs: I64,
    returned: I64,
    k: int,
    judged_positions: I64,
) -> tuple[I64, I64, I64]:
    """(segment, place in the deduplicated list, ranked position) of every
    unjudged line in the top k of the given segments (ascending), in ranked
    order. ``judged_positions``: the ranked positions of the judged lines kept."""
    seg_start = layout.seg_start
    dropped = dups.dropped
    wanted = np.minimum(k, returned[segs])
    # the first `wanted` lines that were not dropped lie within this span
    span = np.minimum(wanted + dups.per_segment[segs], seg_start[segs + 1] - seg_start[segs])
    positions = _ranges(seg_start[segs], span)
    owner = np.repeat(segs, span)
    place = positions - seg_start[owner]
    if dropped.size:
        before = np.searchsorted(dropped, positions)
        place -= before - np.searchsorted(dropped, seg_start[owner])
        at = np.minimum(before, dropped.size - 1)
        keep = dropped[at] != positions
        positions, owner, place = positions[keep], owner[keep], place[keep]
    limit = np.zeros(layout.nseg, dtype=np.int64)
    limit[segs] = wanted
    judged = np.zeros(layout.seg_start[-1], dtype=bool)
    judged[judged_positions] = True
    chosen = (place < limit[owner]) & ~judged[positions]
    return owner[chosen], place[chosen], positions[chosen]


def _scenarios(
    contract: Contract,
    need: I64,
    seg: I64,
    dedup_pos: I64,
    gains: F64,
    returned: I64,
    unjudged_at_k: I64,
    u_seg: I64,
    u_gain: F64,
    nseg: int,
    k: int,
    discounts: F64,
) -> dict[int, tuple[float | None, float | None]]:
    """nDCG if every unjudged document in the top k had the scale's lowest, then
    highest grade (`metrics.unjudged_scenario`), for the segments in ``need``.

    The unjudged places add ``gain`` times their discounts: the discounts of the
    whole top k (a prefix sum) less those of the judged places."""
    judged_top = dedup_pos < k
    top_seg, top_pos = seg[judged_top], dedup_pos[judged_top]
    judged_dcg = _sum_in_order(top_seg, top_pos, gains[judged_top] * discounts[top_pos], nseg)
    prefix = np.concatenate(([0.0], np.cumsum(discounts)))
    unjudged_discounts = prefix[np.minimum(k, returned)] - np.bincount(
        top_seg, weights=discounts[top_pos], minlength=nseg
    )
    extra = np.zeros(nseg, dtype=np.int64)
    extra[need] = unjudged_at_k[need]
    values: list[list[float | None]] = []
    for grade in (contract.scale.minimum, contract.scale.maximum):
        gain = contract.gain_of(grade)
        dcg = judged_dcg + gain * unjudged_discounts if gain > 0 else judged_dcg
        if contract.universe == "judged":
            idcg = _ideal(u_seg, u_gain, nseg, k, discounts, extra, gain)
        else:
            idcg = _ideal(seg, gains, nseg, k, discounts, extra, gain)
        values.append(_normalised(dcg[need], idcg[need], contract.zero_idcg))
    return {
        s: (low, high) for s, low, high in zip(need.tolist(), values[0], values[1], strict=True)
    }


def _tie_range(
    run: _Run,
    layout: _Layout,
    dups: _Duplicates,
    seg: I64,
    positions: I64,
    final_pos: I64,
    gains: F64,
    final_len: I64,
    nseg: int,
    k: int,
    discounts: F64,
    condense: bool,
    rows: I64,
) -> tuple[F64, F64]:
    """DCG@k of the final list with every group of equal scores in its worst and
    in its best order (`metrics.tie_range_gains`)."""
    if condense:
        # final list = the judged lines; groups among consecutive ones
        scores = run.scores[rows]
        equal = (scores[1:] == scores[:-1]) & (seg[1:] == seg[:-1])
        pairs = np.flatnonzero(equal).astype(np.int64)
        index = np.arange(seg.size, dtype=np.int64)
        final_start = np.searchsorted(seg, np.arange(nseg, dtype=np.int64), side="left")
    else:
        dropped = dups.dropped
        seg_start = layout.seg_start[:-1]
        if dropped.size:
            keep = np.ones(run.n, dtype=bool)
            keep[dropped] = False
            kept_positions = np.flatnonzero(keep)
            kept_scores = layout.ordered_scores[kept_positions]
            kept_seg = _segment_of(seg_start, kept_positions)
            equal = (kept_scores[1:] == kept_scores[:-1]) & (kept_seg[1:] == kept_seg[:-1])
            pairs = np.flatnonzero(equal).astype(np.int64)
            index = positions - np.searchsorted(dropped, positions)
            final_start = seg_start - np.searchsorted(dropped, seg_start)
        else:
            pairs = layout.equal_pairs
            index = positions
            final_start = seg_start

    in_top = final_pos < k
    # tie groups: runs of consecutive equal pairs, as [first, last] final indices
    new_group = np.ones(pairs.size, dtype=bool)
    new_group[1:] = pairs[1:] != pairs[:-1] + 1
    group_first = pairs[new_group]
    group_last = (
        pairs[np.append(np.flatnonzero(new_group)[1:] - 1, pairs.size - 1)] + 1
        if pairs.size
        else _EMPTY_I64
    )
    # final_start ascends (empty segments of the condensed list share a start:
    # side="right" picks the last of them, the one the index belongs to)
    group_seg = _segment_of(final_start, group_first)
    group_place = group_first - final_start[group_seg]
    touching = group_place < k
    group_first, group_last, group_seg, group_place = (
        group_first[touching],
        group_last[touching],
        group_seg[touching],
        group_place[touching],
    )
    if group_first.size == 0:
        top_pos = final_pos[in_top]
        base = _sum_in_order(seg[in_top], top_pos, gains[in_top] * discounts[top_pos], nseg)
        return base, base
    # which judged line sits in which (touching) group
    g = np.searchsorted(group_first, index, side="right") - 1
    member = (g >= 0) & (index <= group_last[np.maximum(g, 0)])
    outside = ~member & in_top
    base_groups = seg[outside]
    base_places = final_pos[outside]
    base_terms = gains[outside] * discounts[final_pos[outside]]
    positive = member & (gains > 0)
    mg = g[positive]
    mv = gains[positive]
    by = np.lexsort((mv, mg))
    mg, mv = mg[by], mv[by]
    first_of_group = np.searchsorted(mg, np.arange(group_first.size, dtype=np.int64), side="left")
    rank_up = np.arange(mg.size, dtype=np.int64) - first_of_group[mg]
    positive_count = np.bincount(mg, minlength=group_first.size).astype(np.int64)
    length = group_last - group_first + 1
    worst_place = group_place[mg] + (length[mg] - positive_count[mg]) + rank_up
    best_place = group_place[mg] + (positive_count[mg] - 1 - rank_up)
    results = []
    for place in (worst_place, best_place):
        inside = place < k
        groups = np.concatenate((base_groups, group_seg[mg][inside]))
        places = np.concatenate((base_places, place[inside]))
        terms = np.concatenate((base_terms, mv[inside] * discounts[place[inside]]))
        results.append(_sum_in_order(groups, places, terms, nseg))
    return results[0], results[1]
