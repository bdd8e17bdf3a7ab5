"""Every line's (query, document) key as a 64-bit hash, sorted: duplicates meet,
and judged pairs find their lines by binary search.

Each line's hash of (query, document or entity) has its row index packed into
the low bits. Sorting them (in parts that split no query, in parallel: numpy
releases the GIL) puts equal hashes side by side (duplicate candidates) and
lets every judged (query, document) pair find its lines by binary search. A
hash only proposes: every match is verified exactly afterwards, so a
collision costs time, never correctness.

Why hash rather than let Arrow match the keys exactly: on the 6.98 M-line run,
joining the keys and ``pyarrow.compute.index_in`` took 0.45 to 0.8 s, more
than the whole evaluation (0.33 s), and the hashes are needed anyway for
duplicates (Arrow's ``value_counts`` took 4.6 s there).

The tests shrink `CHUNK_ROWS` and `PARALLEL_ROWS`, replace `workers`,
`code_hash` and `StringHasher.hash`: every use reads them from this module at
call time, and every hash of the engine (the run's and the judgments') is
computed here.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judgepool.core.fast.arrays import EMPTY_INTS, HashArray, IntArray
from judgepool.core.fast.layout import Queries
from judgepool.core.fast.run import Run
from judgepool.core.scoring.arrow import numpy_of, string_buffers
from judgepool.core.terms.contract import Contract

# Odd 64-bit multipliers (from splitmix64 and the golden ratio): multiplying by
# an odd number is a bijection on 64-bit words, so it loses no input bit.
_FINAL_MIX: Final = np.uint64(0x9E3779B97F4A7C15)
_CODE_MIX: Final = np.uint64(0xBF58476D1CE4E5B9)
_SEGMENT_MIX: Final = np.uint64(0x94D049BB133111EB)
_LENGTH_MIX: Final = np.uint64(0xD6E8FEB86659FD93)
_SALT_OFFSET: Final = np.uint64(0xD6E8FEB86659FD93)
# (1 << 8 * i) - 1: the low i bytes of a word, for i = 0..8.
_BYTE_MASKS: Final = np.array([(1 << (8 * size)) - 1 for size in range(9)], dtype=np.uint64)

# Rows hashed at a time: bounds the temporary arrays of one hashing step.
CHUNK_ROWS: Final = 1 << 18
# Below this many lines, threads cost more than they save.
PARALLEL_ROWS: Final = 1 << 17


def _word_factor(word: int) -> np.uint64:
    """A distinct odd multiplier for word ``word`` of a value (see StringHasher)."""
    return np.uint64((0x9E3779B97F4A7C15 * (2 * word + 3)) % 2**64 | 1)


class StringHasher:
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
        self.offsets, data = string_buffers(values)
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

    def _words(self, at: IntArray) -> HashArray:
        """The 8-byte words starting at byte offsets ``at`` (each < the data's size)."""
        if at.size == 0 or int(at.max()) <= self.limit:
            found: HashArray = self.words[at]
            return found
        result = np.empty(at.size, dtype=np.uint64)
        inside = at <= self.limit
        result[inside] = self.words[at[inside]]
        outside = ~inside
        result[outside] = self.tail_words[at[outside] - self.tail_base]
        return result

    def hash(self, low: int, high: int, salt: HashArray) -> HashArray:
        """Hashes of rows ``low..high - 1``, each mixed with its ``salt``."""
        bounds = self.offsets[low : high + 1].astype(np.int64)
        starts = bounds[:-1]
        lengths = bounds[1:] - starts
        hashes = lengths.astype(np.uint64) * _LENGTH_MIX
        # the rows still read (None: all); an empty value reads no byte, since
        # its start may be the data's end
        rows = np.flatnonzero(lengths > 0) if not lengths.all() else None
        word = 0
        while True:
            at = starts if rows is None else starts[rows]
            rest = lengths if rows is None else lengths[rows]
            if word:
                at = at + 8 * word
                rest = rest - 8 * word
            mixed = self._words(at)
            mixed &= _BYTE_MASKS[np.minimum(rest, 8)]
            mixed *= _word_factor(word)
            if rows is None:
                hashes ^= mixed
            else:
                hashes[rows] ^= mixed
            longer = rest > 8
            if not longer.any():
                break
            if rows is None:
                rows = None if longer.all() else np.flatnonzero(longer)
            else:
                rows = rows[longer]
            word += 1
        hashes ^= salt
        hashes *= _FINAL_MIX
        return hashes


def segment_salt(segments: IntArray) -> HashArray:
    """What each key's segment (its query) mixes into its hash."""
    salt: HashArray = segments.astype(np.uint64) * _SEGMENT_MIX + _SALT_OFFSET
    return salt


def code_hash(codes: IntArray, salt: HashArray) -> HashArray:
    """Hashes of entity codes (entity mode), each mixed with its ``salt``."""
    hashes = codes.astype(np.uint64) * _CODE_MIX
    hashes ^= salt
    hashes *= _FINAL_MIX
    return hashes


@dataclass(frozen=True, eq=False)
class Keys:
    """Each row's (query, entity) hash with the row index packed into its low
    bits, sorted within parts: row ranges that split no query, each sorted on
    its own (in parallel), so equal keys of one query always meet.

    Entity mode also keeps each row's entity code (exact) and the entity strings.
    """

    row_bits: int
    packed: HashArray  # packed[low:high] sorted for every part (low, high)
    parts: list[tuple[int, int]]
    # indices i where sorted entries i and i + 1 of one part share their hash
    equal_neighbours: IntArray
    part_of_segment: IntArray
    entity_codes: IntArray | None
    entity_names: list[str] | None
    entity_index: dict[str, int] | None

    @property
    def row_mask(self) -> np.uint64:
        return np.uint64((1 << self.row_bits) - 1)

    def rows_of(self, at: IntArray) -> IntArray:
        """The rows of sorted entries ``at``."""
        return (self.packed[at] & self.row_mask).astype(np.int64)

    def find_ids(self, doc_ids: pa.Array, segments: IntArray) -> tuple[IntArray, IntArray]:
        """`find` for document IDs of the given segments, hashed as the run's are."""
        hashes = StringHasher(doc_ids).hash(0, len(doc_ids), segment_salt(segments))
        return self.find(hashes, segments)

    def find_codes(self, codes: IntArray, segments: IntArray) -> tuple[IntArray, IntArray]:
        """`find` for entity codes of the given segments, hashed as the run's are."""
        return self.find(code_hash(codes, segment_salt(segments)), segments)

    def find(self, hashes: HashArray, segments: IntArray) -> tuple[IntArray, IntArray]:
        """For each hash (of a key of the given segment), the range of sorted
        entries holding it, as (first index, count)."""
        first = hashes & ~self.row_mask
        last = first | self.row_mask
        low = np.zeros(hashes.size, dtype=np.int64)
        high = np.zeros(hashes.size, dtype=np.int64)
        part = self.part_of_segment[segments]
        for index, (part_low, part_high) in enumerate(self.parts):
            mine = np.flatnonzero(part == index)
            if mine.size == 0:
                continue
            sorted_part = self.packed[part_low:part_high]
            low[mine] = np.searchsorted(sorted_part, first[mine], side="left") + part_low
            high[mine] = np.searchsorted(sorted_part, last[mine], side="right") + part_low
        return low, high - low


def workers() -> int:
    """Threads for hashing and sorting: the machine's cores, at most two (one
    part per thread; more parts gained nothing measurable)."""
    return max(1, min(2, os.cpu_count() or 1))


Work = Callable[[int, int], None]
Submit = Callable[[Work, int, int], "Future[None]"]
Result = TypeVar("Result")


def _run_now(work: Work, low: int, high: int) -> Future[None]:
    """`Executor.submit` without an executor: run now, return the finished future."""
    done: Future[None] = Future()
    work(low, high)
    done.set_result(None)
    return done


def keys_alongside(
    run: Run, queries: Queries, contract: Contract, work_here: Callable[[], Result]
) -> tuple[Keys, Result]:
    """The run's sorted keys, and the result of ``work_here``: on a large run
    the keys are hashed and sorted in worker threads while ``work_here`` runs
    in this one."""
    if run.size >= PARALLEL_ROWS:
        with ThreadPoolExecutor(max_workers=workers()) as pool:
            finish = _start_keys(run, queries, contract, pool.submit)
            result = work_here()
            return finish(), result
    keys = _start_keys(run, queries, contract, _run_now)()
    return keys, work_here()


def _parts(queries: Queries, size: int, count: int) -> list[tuple[int, int]]:
    """``count`` row ranges of about equal size, cut at segment starts so that no
    query is split (one range when the run splits queries)."""
    if not (queries.grouped and size and count > 1):
        return [(0, size)]
    wanted = np.array([size * i // count for i in range(1, count)], dtype=np.int64)
    at = np.maximum(np.searchsorted(queries.starts, wanted, side="right") - 1, 0)
    cuts = sorted(set(queries.starts[at].tolist()) - {0})
    bounds = [0, *cuts, size]
    return [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


def _start_keys(
    run: Run, queries: Queries, contract: Contract, submit: Submit
) -> Callable[[], Keys]:
    """Start hashing and sorting each part with ``submit`` (a thread pool's, or
    `_run_now`); the returned function waits for the result."""
    size = run.size
    row_bits = max(1, (size - 1).bit_length())
    row_mask = np.uint64((1 << row_bits) - 1)
    packed = np.empty(size, dtype=np.uint64)
    parts = _parts(queries, size, workers() if submit is not _run_now else 1)
    part_of_segment = np.zeros(queries.count, dtype=np.int64)
    if queries.grouped and len(parts) > 1:
        part_starts = np.array([low for low, _ in parts], dtype=np.int64)
        part_of_segment = np.searchsorted(part_starts, queries.starts, side="right") - 1
    hasher: StringHasher | None = None
    entity_codes: IntArray | None = None
    entity_names: list[str] | None = None
    entity_index: dict[str, int] | None = None
    if contract.entity_pattern is None:
        hasher = StringHasher(run.doc_ids)
    else:
        # the pattern runs once per distinct document ID, in Arrow's RE2
        # kernel (what `Contract.entity_of` gives, for all of them at once)
        encoded = pc.dictionary_encode(run.doc_ids)
        doc_codes = numpy_of(encoded.indices).astype(np.int64)
        pattern, replacement = contract.entity_pattern.arrow_rewrite()
        entities = pc.replace_substring_regex(
            encoded.dictionary, pattern, replacement, max_replacements=1
        )
        # codes in the order entities first appear, as the distinct IDs are
        by_entity = pc.dictionary_encode(entities)
        code_of_unique = numpy_of(by_entity.indices).astype(np.int64)
        entity_names = by_entity.dictionary.to_pylist()
        entity_index = {name: code for code, name in enumerate(entity_names)}
        entity_codes = code_of_unique[doc_codes] if size else EMPTY_INTS

    equal_in_part: dict[int, IntArray] = {}  # each part's equal neighbours, by its first row

    def fill(low: int, high: int) -> None:
        for start in range(low, high, CHUNK_ROWS):
            end = min(start + CHUNK_ROWS, high)
            salt = segment_salt(queries.segment_ids(start, end))
            if hasher is not None:
                hashes = hasher.hash(start, end, salt)
            else:
                assert entity_codes is not None
                hashes = code_hash(entity_codes[start:end], salt)
            hashes &= ~row_mask
            hashes |= np.arange(start, end, dtype=np.uint64)
            packed[start:end] = hashes
        part = packed[low:high]
        part.sort()
        if part.size > 1:
            # equal hashes differ only in the row bits
            close = part[1:] ^ part[:-1]
            equal_in_part[low] = np.flatnonzero(close <= row_mask).astype(np.int64) + low

    futures = [submit(fill, low, high) for low, high in parts]

    def result() -> Keys:
        for future in futures:
            future.result()
        neighbours = [equal_in_part[low] for low, _ in parts if low in equal_in_part]
        return Keys(
            row_bits,
            packed,
            parts,
            np.concatenate(neighbours) if neighbours else EMPTY_INTS,
            part_of_segment,
            entity_codes,
            entity_names,
            entity_index,
        )

    return result
