"""Reading a TREC run into columns, fast: `RunColumns` and `read_run_columns`.

The reference reader (`formats.trec.read_run`) builds one `RunEntry` per line,
which takes about half a minute on a seven-million-line run. This reader gives
the same lines as columns (pyarrow strings for the IDs, numpy for the numbers)
and accepts exactly what the reference accepts, raising the same `InputError`
(file and line) on the first bad line.

How, in three tiers, each used only when the one before cannot vouch for the
input:

1. The file streams through pyarrow's CSV parser (one space the only
   separator; tabs are handed over as spaces), read by a small file object
   that hashes every byte for the digest and scans for what the parser would
   read differently from the reference: a carriage return not before a
   newline, a byte order mark (the one that starts a file is dropped before
   the parser sees it), comment marks, hexadecimal ranks (pyarrow reads
   ``0x10`` as 16). All six columns are checked: the ``Q0`` and tag columns are
   typed null with the first line's two values as the only null spellings, so
   any other value (an empty one from a doubled or trailing separator
   included) fails the parse for almost nothing. The ID columns are then held
   to the ID grammar all at once (`formats.ids.ids_may_have_problems`: numpy
   on their bytes; a search for the forbidden characters only when they are
   not ASCII). The whole file is never held in memory, and the parser's
   threads overlap reading, hashing and parsing.
2. Otherwise the file is read into memory and taken block by block (about
   8 MB of whole lines): the parser on the block as it is, with its tabs made
   spaces, then with every separator regularised (runs of blanks made one
   space, blanks at line ends removed: the reference's tokens joined by single
   spaces). A block it still cannot vouch for is split in 16 and each piece
   tried again, down to 32 kB.
3. Those small pieces are read line by line with the reference's own helpers
   (`iter_data_lines`, `parse_run_line`), into columns. Comments, blank lines
   and every error end up here, so errors carry the reference's message.

A file that is not a regular file (a FIFO, ``/dev/stdin``, a device) is read
into memory with one open and taken from tier 2: it cannot be opened twice.

pyarrow's own numpy conversions (``pa.array``, ``to_numpy``) are avoided: their
first use imports pandas, a third of a second.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from judgepool.core.arrow import arrow_strings
from judgepool.core.errors import InputError
from judgepool.formats.ids import ids_may_have_problems
from judgepool.formats.source import (
    GZIP_ERRORS,
    GZIP_MAGIC,
    UTF8_BOM,
    is_regular_file,
    read_bytes,
)
from judgepool.formats.trec import iter_data_lines, parse_run_line, run_digest

__all__ = ["ParsedRun", "RunColumns", "parse_run_bytes", "read_run_columns"]

_NAMES: Final = ("query", "q0", "doc", "rank", "score", "tag")
_BLOCK_BYTES: Final = 8 << 20
_SMALLEST_SPAN: Final = 32 << 10
# A string column whose bytes would overflow 32-bit offsets becomes large_string.
_STRING_LIMIT: Final = 2**31 - 1
_CR, _LF, _SPACE, _ZERO = 13, 10, 32, 48


def _reader_pool() -> pa.MemoryPool:
    # jemalloc, where pyarrow has it: after a parse, the default (mimalloc)
    # spent ~0.15 s handing the parser's memory back on the next large
    # allocation; jemalloc does not (measured on the 7-million-line run).
    # (pa.jemalloc_set_decay_ms(0) would lower the peak by ~100 MB, returning
    # freed pages at once, but is process-wide and cost read time here.)
    try:
        return pa.jemalloc_memory_pool()
    except (pa.ArrowNotImplementedError, NotImplementedError):
        return pa.default_memory_pool()


_POOL: Final = _reader_pool()


@dataclass(frozen=True, eq=False)
class RunColumns:
    """A run as read, in source order, one entry per data line.

    ``query_ids`` and ``doc_ids`` are pyarrow string (or, beyond 2 GB of text,
    large_string) arrays without nulls; ``scores`` are finite float64 and
    ``ranks`` int64 numpy arrays (possibly read-only views of arrow memory).
    ``lines`` holds each entry's 1-based line number, or is None when entry
    ``i`` is line ``i + 1`` (no comment or blank lines). ``digest`` is the
    sha256 of the un-gzipped bytes (what `formats.trec.run_digest` gives).
    Every reader refuses a rank outside the int64 range, so the ranks are
    exactly the reference reader's.
    """

    path: str
    query_ids: pa.Array
    doc_ids: pa.Array
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64]
    lines: npt.NDArray[np.int64] | None
    digest: str

    def __len__(self) -> int:
        return len(self.scores)

    def line_numbers(self) -> npt.NDArray[np.int64]:
        """Every entry's 1-based line number (materialised when ``lines`` is None)."""
        if self.lines is not None:
            return self.lines
        return np.arange(1, len(self.scores) + 1, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class ParsedRun:
    """The columns of `RunColumns` without path and digest (see there)."""

    query_ids: pa.Array
    doc_ids: pa.Array
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64]
    lines: npt.NDArray[np.int64] | None


def read_run_columns(path: str | Path) -> RunColumns:
    """Read a run file (plain or gzip) into columns.

    Accepts exactly what `formats.trec.read_run` accepts; the first bad line
    raises the same `InputError` (same message, file and line).
    """
    name = str(path)
    if not is_regular_file(path):
        # a stream (FIFO, device) can be read once: into memory, then tier 2;
        # a missing path or a directory raises the reference's InputError here
        whole = read_bytes(path)
        parsed = parse_run_bytes(whole, name)
        return RunColumns(
            name,
            parsed.query_ids,
            parsed.doc_ids,
            parsed.scores,
            parsed.ranks,
            parsed.lines,
            run_digest(whole),
        )
    streamed = _read_streaming(path)
    if streamed is not None:
        block, digest = streamed
        parsed = _whole(block)
    else:
        data = _read_file(path)
        box: list[str] = []
        # sha256 of the bytes (what `run_digest` computes, typed for bytes only),
        # in a thread: hashlib releases the GIL, and so does pyarrow.
        hasher = threading.Thread(
            target=lambda: box.append(hashlib.sha256(data).hexdigest()), daemon=True
        )
        hasher.start()
        try:
            parsed = _parse_blocks(_without_bom(data), name, fast=True)
        finally:
            hasher.join()
        digest = box[0]
    return RunColumns(
        path=name,
        query_ids=parsed.query_ids,
        doc_ids=parsed.doc_ids,
        scores=parsed.scores,
        ranks=parsed.ranks,
        lines=parsed.lines,
        digest=digest,
    )


def parse_run_bytes(data: bytes | bytearray, path: str, *, fast: bool = True) -> ParsedRun:
    """The run in ``data`` (the un-gzipped bytes of the file ``path``) as columns.

    ``fast=False`` skips the pyarrow tiers and reads every line with the
    reference's helpers: the tests compare the two.
    """
    data = _without_bom(data)
    if fast:
        whole = _parse_regular(data)
        if whole is not None:
            return _whole(whole)
    return _parse_blocks(data, path, fast=fast)


def _without_bom(data: bytes | bytearray) -> bytes | bytearray:
    """``data`` without the byte order mark that may start a file (a copy, when
    there is one: rare enough not to matter)."""
    return data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data


def _whole(block: _Block) -> ParsedRun:
    return ParsedRun(
        _combine_strings(block.query_ids),
        _combine_strings(block.doc_ids),
        block.scores,
        _combine_ranks([block.ranks]),
        None,
    )


def _read_file(path: str | Path) -> bytes | bytearray:
    """The file's bytes, un-gzipped. A plain file is read straight into one
    buffer of its size (``read()`` would briefly hold it twice); gzip, and any
    error, go through the reference's `read_bytes` (same InputError)."""
    try:
        with open(path, "rb") as handle:
            if handle.peek(2)[:2] == GZIP_MAGIC:
                raise OSError("gzip")
            size = os.fstat(handle.fileno()).st_size
            buffer = bytearray(size)
            view = memoryview(buffer)
            filled = 0
            while filled < size:
                count = handle.readinto(view[filled:])
                if not count:
                    break
                filled += count
            view.release()
            rest = handle.read()  # the file grew while being read
    except OSError:
        return read_bytes(path)
    if filled < size:
        del buffer[filled:]
    if rest:
        buffer += rest
    return buffer


# --------------------------------------------------------------------------- tier 1


class _Irregular(Exception):
    """Raised from inside the parser's reads to stop at the first sign that the
    parser would read the file differently from the reference."""


class _Scanner:
    """What tier 1 must know about the bytes the parser sees, chunk by chunk."""

    def __init__(self) -> None:
        self.size = 0
        self.irregular = False
        self.comment_mark = False
        self.ascii = True
        self._tail = b""  # the previous chunk's last two bytes
        self._head = b""  # the first bytes, up to a byte order mark's length

    def feed(self, chunk: bytes | bytearray) -> None:
        if not chunk:
            return
        if self.size < len(UTF8_BOM):
            self._head = (self._head + bytes(chunk[: len(UTF8_BOM)]))[: len(UTF8_BOM)]
            if self._head == UTF8_BOM:
                self.irregular = True  # pyarrow drops it; the reference keeps it
        if b"\t" in chunk:
            self.irregular = True  # a separator for the reference
        if b"#" in chunk:
            self.comment_mark = True
        if self.ascii and not chunk.isascii():
            self.ascii = False
        hex_mark = b"x" in chunk or b"X" in chunk
        if hex_mark or b"\r" in chunk or self._tail.endswith(b"\r"):
            text = np.frombuffer(self._tail + bytes(chunk), dtype=np.uint8)
            skip = len(self._tail)
            if hex_mark:
                # a token starting "0x"/"0X" after a space: pyarrow reads that
                # rank as hexadecimal, the reference refuses it
                at = np.flatnonzero((text[skip:] == ord("x")) | (text[skip:] == ord("X"))) + skip
                at = at[at >= 2]
                if np.any((text[at - 1] == _ZERO) & (text[at - 2] == _SPACE)):
                    self.irregular = True
            # a carriage return not before a newline ends a line for pyarrow,
            # not for the reference (one at the very end of the file is fine)
            at = np.flatnonzero(text[:-1] == _CR)
            if np.any(text[at + 1] != _LF):
                self.irregular = True
        self._tail = bytes(chunk[-2:]) if len(chunk) >= 2 else self._tail[-1:] + bytes(chunk)
        self.size += len(chunk)


class _Stream:
    """A read-only file object for pyarrow that hashes and scans what it reads.

    Tabs reach the parser as spaces: the reference splits at both alike, and
    what the parser then reads as an empty column (a tab next to a space) fails
    the parse as any doubled space does. The digest is of the bytes as read.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self.hash = hashlib.sha256()
        self.scan = _Scanner()
        self.closed = False
        prefix = raw.read(1 << 16)
        while b"\n" not in prefix and len(prefix) < (4 << 20):
            more = raw.read(1 << 16)
            if not more:
                break
            prefix += more
        if prefix.startswith(UTF8_BOM):
            # not part of the first query ID: hashed, never handed to the parser
            self.hash.update(UTF8_BOM)
            prefix = prefix[len(UTF8_BOM) :]
        self._prefix = prefix
        self.tokens = _first_line_tokens(prefix.replace(b"\t", b" "))

    def read(self, size: int = -1) -> bytes:
        if self._prefix:
            cut = len(self._prefix) if size < 0 else min(size, len(self._prefix))
            chunk, self._prefix = self._prefix[:cut], self._prefix[cut:]
        else:
            chunk = self._raw.read(size) if size >= 0 else self._raw.read()
        self.hash.update(chunk)
        if b"\t" in chunk:
            chunk = chunk.replace(b"\t", b" ")
        self.scan.feed(chunk)
        if self.scan.irregular:
            raise _Irregular
        return chunk

    def drain(self) -> None:
        """Read (hash and scan) whatever the parser left."""
        while self.read(1 << 20):
            pass

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def writable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


def _read_streaming(path: str | Path) -> tuple[_Block, str] | None:
    """Tier 1 on a file: its columns and digest, or None."""
    for binary_text in (False, True):
        try:
            with open(path, "rb") as handle:
                raw: IO[bytes] = handle
                if handle.peek(2)[:2] == GZIP_MAGIC:
                    raw = gzip.GzipFile(fileobj=handle)  # type: ignore[assignment]
                stream = _Stream(raw)
                if not binary_text and stream.tokens is None:
                    continue
                table = _arrow_read(stream, None if binary_text else stream.tokens)
                if table is None:
                    continue
                stream.drain()
        except (OSError, ValueError, _Irregular, *GZIP_ERRORS):
            return None  # unreadable, bad gzip: tier 2 reports it as the reference does
        if stream.scan.irregular:
            return None
        holder = [table]
        del table  # `_vouch` frees it column by column
        block = _vouch(holder, stream.scan, binary_text)
        if block is None and not binary_text:
            continue
        return None if block is None else (block, stream.hash.hexdigest())
    return None


def _parse_regular(data: bytes | bytearray) -> _Block | None:
    """Tier 1 on bytes in memory: their columns if the parser reads them exactly
    as the reference would, else None (nothing wrong is implied)."""
    scan = _Scanner()
    scan.feed(data)
    if scan.irregular or not data:
        return None
    tokens = _first_line_tokens(data)
    for binary_text in (False, True):
        if not binary_text and tokens is None:
            continue
        table = _arrow_read(pa.py_buffer(data), None if binary_text else tokens)
        if table is None:
            continue
        holder = [table]
        del table  # `_vouch` frees it column by column
        block = _vouch(holder, scan, binary_text)
        if block is not None:
            return block
    return None


def _first_line_tokens(data: bytes | bytearray) -> tuple[bytes, bytes] | None:
    """The Q0 and tag values of the first line, if it is a plain six-column line."""
    end = data.find(b"\n")
    first = data if end < 0 else data[:end]
    if first.endswith(b"\r"):
        first = first[:-1]
    parts = first.split(b" ")
    if len(parts) != 6 or not all(parts):
        return None
    try:
        parts[1].decode("utf-8")
        parts[5].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return bytes(parts[1]), bytes(parts[5])


def _arrow_read(source: Any, q0_tag: tuple[bytes, bytes] | None) -> pa.Table | None:
    """pyarrow's parse of ``source`` as single-space separated six-column lines.

    With ``q0_tag``, the Q0 and tag columns are typed null with those two values
    as the only null spellings: a line with any other value (an empty one from a
    doubled or trailing space included) fails the parse. Without, they are read
    as binary, for `_vouch` to check.
    """
    text_columns = pa.binary() if q0_tag is None else pa.null()
    convert = pa_csv.ConvertOptions(
        include_columns=list(_NAMES),
        column_types={
            "query": pa.string(),
            "q0": text_columns,
            "doc": pa.string(),
            "rank": pa.int64(),
            "score": pa.float64(),
            "tag": text_columns,
        },
        null_values=[] if q0_tag is None else [t.decode("utf-8") for t in q0_tag],
        true_values=[],
        false_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        check_utf8=True,
    )
    try:
        return pa_csv.read_csv(
            source,
            memory_pool=_POOL,
            read_options=pa_csv.ReadOptions(column_names=list(_NAMES), use_threads=True),
            parse_options=pa_csv.ParseOptions(
                delimiter=" ",
                quote_char=False,
                escape_char=False,
                double_quote=False,
                newlines_in_values=False,
                ignore_empty_lines=False,
            ),
            convert_options=convert,
        )
    except (pa.ArrowException, ValueError, OSError, _Irregular, *GZIP_ERRORS):
        return None


def _vouch(holder: list[pa.Table], scan: _Scanner, binary_text: bool) -> _Block | None:
    """The parsed table (taken out of ``holder``, so that its memory goes as soon
    as each column is copied out) as contiguous columns, if nothing shows that
    it differs from the reference's reading; else None."""
    table = holder.pop()
    if table.column("score").null_count or table.column("rank").null_count:
        # the null spellings apply to the numeric columns too: a score or rank
        # spelled like the Q0 or tag value read as null
        return None
    if binary_text:
        for column in ("q0", "tag"):
            values = table.column(column)
            if len(values) and pc.min(pc.binary_length(values)).as_py() == 0:
                return None
            if not scan.ascii:
                try:
                    values.cast(pa.string())
                except (pa.ArrowException, ValueError):
                    return None
    for column in ("query", "doc"):
        ids = table.column(column)
        if len(ids) and pc.min(pc.binary_length(ids)).as_py() == 0:
            return None  # a leading space (empty first column) or a doubled one
    if scan.comment_mark and pc.any(pc.starts_with(table.column("query"), "#")).as_py():
        return None  # comment lines: the reference skips them
    chunks = {name: table.column(name).chunks for name in ("query", "doc", "score", "rank")}
    del table
    # One contiguous buffer per column, each copied out before the next so the
    # parsed pieces can go back to the system in between.
    scores = _numeric(chunks.pop("score"), np.float64)
    if not np.isfinite(scores).all():
        return None
    ranks = _numeric(chunks.pop("rank"), np.int64)
    query_ids = _combine_strings(chunks.pop("query"))
    _release()
    doc_ids = _combine_strings(chunks.pop("doc"))
    _release()
    # IDs the grammar refuses: the reference's helpers name the line
    if ids_may_have_problems(query_ids, comment_mark=False) or ids_may_have_problems(
        doc_ids, comment_mark=scan.comment_mark
    ):
        return None
    return _Block([query_ids], [doc_ids], scores, ranks, None)


def _release() -> None:
    """Ask the reader's pool to hand freed memory back to the system (mimalloc
    does so at once; jemalloc after its decay time)."""
    _POOL.release_unused()


def _numeric(chunks: list[pa.Array], dtype: type[np.generic]) -> npt.NDArray[Any]:
    """A null-free numeric column as one numpy array (a view of arrow memory)."""
    if not chunks:
        return np.zeros(0, dtype=dtype)
    whole = chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks, memory_pool=_POOL)
    chunks.clear()
    if len(whole) == 0:
        return np.zeros(0, dtype=dtype)
    _release()
    # np.frombuffer, not Array.to_numpy: the same zero-copy view, but pyarrow's
    # conversions load pandas on first use (a third of a second)
    values = np.frombuffer(whole.buffers()[1], dtype=dtype)
    return values[whole.offset : whole.offset + len(whole)]


# --------------------------------------------------------------------------- tiers 2, 3


@dataclass(eq=False)
class _Block:
    """Columns of one stretch of the file; ``lines`` None means consecutive
    lines from the stretch's first line."""

    query_ids: Sequence[pa.Array]
    doc_ids: Sequence[pa.Array]
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64] | list[int]
    lines: npt.NDArray[np.int64] | None


def _regularise(block: bytes | bytearray) -> bytes | bytearray:
    """``block`` with every separator a single space and no blank at either end of
    a line: the tokens the reference splits each line into, joined by spaces.
    Newlines and carriage returns are kept, so lines keep their numbers."""
    if b"\t" in block:
        block = block.replace(b"\t", b" ")
    while b"  " in block:
        block = block.replace(b"  ", b" ")
    block = block.replace(b"\n ", b"\n").replace(b" \r\n", b"\r\n").replace(b" \n", b"\n")
    if block.startswith(b" "):
        block = block[1:]
    if block.endswith(b" "):
        block = block[:-1]
    return block


def _split_blocks(
    data: bytes | bytearray, start: int, stop: int, size: int
) -> list[tuple[int, int]]:
    """(start, end) byte ranges of ``data[start:stop]`` of about ``size`` bytes,
    each ending after a newline (or at ``stop``)."""
    ranges: list[tuple[int, int]] = []
    while start < stop:
        end = data.find(b"\n", min(start + size, stop) - 1, stop)
        end = stop if end < 0 else end + 1
        ranges.append((start, end))
        start = end
    return ranges


def _parse_blocks(data: bytes | bytearray, path: str, *, fast: bool) -> ParsedRun:
    """Tiers 2 and 3: block by block, the parser where it can vouch for a block,
    the reference's line helpers elsewhere."""
    parts: list[_Block] = []
    first_line = 1
    for start, end in _split_blocks(data, 0, len(data), _BLOCK_BYTES):
        first_line = _parse_span(data, start, end, first_line, path, fast, parts)
    count = sum(len(part.scores) for part in parts)
    lines = (
        np.concatenate([part.lines for part in parts if part.lines is not None])
        if parts
        else np.zeros(0, dtype=np.int64)
    )
    # line numbers only increase, so first 1 and last `count` mean 1..count exactly
    consecutive = count == 0 or (lines[0] == 1 and lines[-1] == count)
    return ParsedRun(
        _combine_strings([a for part in parts for a in part.query_ids]),
        _combine_strings([a for part in parts for a in part.doc_ids]),
        np.concatenate([part.scores for part in parts]) if parts else np.zeros(0, np.float64),
        _combine_ranks([part.ranks for part in parts]),
        None if consecutive else lines,
    )


def _parse_span(
    data: bytes | bytearray,
    start: int,
    end: int,
    first_line: int,
    path: str,
    fast: bool,
    parts: list[_Block],
) -> int:
    """Append the columns of ``data[start:end]`` (whole lines from ``first_line``)
    to ``parts``, its lines numbered; return the next span's first line.

    The parser is tried on the span as it is, then with its tabs made spaces,
    then fully regularised; a span it still cannot vouch for is split in 16 and
    each piece tried again, down to `_SMALLEST_SPAN`, where the reference's
    helpers read it: a comment or a bad line costs the Python reader one small
    piece, not a whole block."""
    block = data[start:end]
    newlines = block.count(b"\n")
    rows = newlines + (0 if block.endswith(b"\n") or not block else 1)
    if fast:
        for candidate in _candidates(block):
            part = _parse_regular(candidate)
            if part is not None and len(part.scores) == rows:
                part.lines = np.arange(first_line, first_line + rows, dtype=np.int64)
                parts.append(part)
                return first_line + newlines
        pieces = (
            _split_blocks(data, start, end, (end - start) // 16 + 1)
            if end - start > _SMALLEST_SPAN
            else []
        )
        if len(pieces) > 1:  # a single long line cannot be split
            line = first_line
            for low, high in pieces:
                line = _parse_span(data, low, high, line, path, fast, parts)
            return line
    parts.append(_parse_lines(bytes(block), path, first_line - 1))
    return first_line + newlines


def _candidates(block: bytes | bytearray) -> Iterator[bytes | bytearray]:
    """The span as it is, then as regular as the reference's tokens allow."""
    yield block
    if b"\t" in block:
        translated = block.replace(b"\t", b" ")
        yield translated
        block = translated
    regular = _regularise(block)
    if regular != block:
        yield regular


def _parse_lines(block: bytes, path: str, offset: int) -> _Block:
    """Tier 3: the reference's helpers, line by line, into columns. Line numbers
    (and those of errors) are the block's plus ``offset``."""
    query_ids: list[str] = []
    doc_ids: list[str] = []
    ranks: list[int] = []
    scores: list[float] = []
    lines: list[int] = []
    add_query, add_doc, add_rank = query_ids.append, doc_ids.append, ranks.append
    add_score, add_line = scores.append, lines.append
    numbered = iter_data_lines(block, path)
    while True:
        try:
            number, columns = next(numbered)
        except StopIteration:
            break
        except InputError as exc:  # not UTF-8: numbered within the block
            line = None if exc.line is None else exc.line + offset
            raise InputError(exc.message, path, line) from None
        try:
            query_id, doc_id, rank, score = parse_run_line(columns)
        except ValueError as exc:
            raise InputError(str(exc), path, number + offset) from None
        add_query(query_id)
        add_doc(doc_id)
        add_rank(rank)
        add_score(score)
        add_line(number + offset)
    return _Block(
        [arrow_strings(query_ids)],
        [arrow_strings(doc_ids)],
        np.array(scores, dtype=np.float64),
        ranks,
        np.array(lines, dtype=np.int64),
    )


def _combine_strings(parts: Sequence[pa.Array] | pa.ChunkedArray) -> pa.Array:
    """One contiguous string array from parts (large_string beyond 2 GB of text)."""
    chunks = list(parts.chunks) if isinstance(parts, pa.ChunkedArray) else list(parts)
    if not chunks:
        return arrow_strings([])
    size = sum(_text_bytes(chunk) for chunk in chunks)
    if size > _STRING_LIMIT:
        chunks = [chunk.cast(pa.large_string()) for chunk in chunks]
    if len(chunks) == 1:
        return chunks[0]
    return pa.concat_arrays(chunks, memory_pool=_POOL)


def _text_bytes(array: pa.Array) -> int:
    if len(array) == 0:
        return 0
    offsets = array.buffers()[1]
    width = 8 if pa.types.is_large_string(array.type) else 4
    view = np.frombuffer(offsets, dtype=np.int64 if width == 8 else np.int32)
    return int(view[array.offset + len(array)] - view[array.offset])


def _combine_ranks(parts: Sequence[npt.NDArray[np.int64] | list[int]]) -> npt.NDArray[np.int64]:
    """The rank column as one int64 array (every reader refuses a rank beyond int64)."""
    arrays = [np.asarray(part, dtype=np.int64) for part in parts]
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
