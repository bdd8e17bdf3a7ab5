"""Tier 1 of the run reader: the whole file streamed through pyarrow's CSV parser.

One space is the only separator (tabs are handed over as spaces), read by a
small file object (`_Stream`) that hashes every byte for the digest and scans
(`Scanner`) for what the parser would read differently from the reference: a
carriage return not before a newline, a byte order mark (the one that starts
a file is dropped before the parser sees it), comment marks, hexadecimal
ranks (pyarrow reads ``0x10`` as 16). All six columns are checked: the ``Q0``
and tag columns are typed null with the first line's two values as the only
null spellings, so any other value (an empty one from a doubled or trailing
separator included) fails the parse for almost nothing. The ID columns are
then held to the ID grammar all at once (`formats.ids.ids_may_have_problems`:
numpy on their bytes; a search for the forbidden characters only when they
are not ASCII). The whole file is never held in memory, and the parser's
threads overlap reading, hashing and parsing.

A file this tier cannot vouch for is not wrong: it goes to tiers 2 and 3
(`fast_run.blocks`), which say what is wrong with it, if anything.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
import time
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from judgepool.formats.fast_run.columns import POOL, Block, combine, numeric, release
from judgepool.formats.ids import ids_may_have_problems
from judgepool.formats.source import GZIP_ERRORS, GZIP_MAGIC, UTF8_BOM

_NAMES: Final = ("query", "q0", "doc", "rank", "score", "tag")

# How long a parse waits for pyarrow's threads to let go of the Python object
# they read from (see `_let_go`); they take milliseconds, this bounds a stall.
_RELEASE_WAIT_SECONDS: Final = 10.0
_CR, _LF, _SPACE, _ZERO = 13, 10, 32, 48


class _Irregular(Exception):
    """Raised from inside the parser's reads to stop at the first sign that the
    parser would read the file differently from the reference."""


class Scanner:
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
        self.scan = Scanner()
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


def read_streaming(path: str | Path) -> tuple[Block, str] | None:
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


def parse_regular(data: bytes | bytearray) -> Block | None:
    """Tier 1 on bytes in memory: their columns if the parser reads them exactly
    as the reference would, else None (nothing wrong is implied)."""
    scan = Scanner()
    scan.feed(data)
    if scan.irregular or not data:
        return None
    tokens = _first_line_tokens(data)
    for binary_text in (False, True):
        if not binary_text and tokens is None:
            continue
        table = _arrow_read_bytes(data, None if binary_text else tokens)
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

    The parse returns only once pyarrow's threads let go of ``source`` (a
    file object), `_LetGo`.
    """
    with _LetGo(source):
        return _parse(source, q0_tag)


def _arrow_read_bytes(
    data: bytes | bytearray, q0_tag: tuple[bytes, bytes] | None
) -> pa.Table | None:
    """`_arrow_read` of bytes in memory. The buffer pyarrow reads holds ``data``:
    it is made inside the wait (`_LetGo`), so that the wait counts its reference."""
    with _LetGo(data):
        return _parse(pa.py_buffer(data), q0_tag)


class _LetGo:
    """On leaving, waits until pyarrow's I/O threads have dropped the references
    they took to ``held`` since entering.

    The parser reads a Python file object (or buffer) from pyarrow's own
    threads, and the last of them may drop its reference a moment after
    ``read_csv`` returns. Dropping it takes the interpreter lock; if that
    happens while the interpreter is exiting, the thread is ended by force
    inside C++ code and the process aborts ("terminate called without an
    active exception", exit 134) after the command's work is done: seen in
    3 of 60 ``judgepool score`` runs on a loaded two-core machine (as in
    apache/arrow#50482). Waiting here, with the lock released between looks,
    lets them finish while the interpreter is alive.
    """

    def __init__(self, held: object) -> None:
        self._held = held
        self._references = 0

    def __enter__(self) -> None:
        # Counted the same way on entering and leaving (this object's own
        # reference included), so the two counts compare.
        self._references = sys.getrefcount(self._held)

    def __exit__(self, *_: object) -> None:
        deadline = time.monotonic() + _RELEASE_WAIT_SECONDS
        while sys.getrefcount(self._held) > self._references and time.monotonic() < deadline:
            time.sleep(0.0005)


def _parse(source: Any, q0_tag: tuple[bytes, bytes] | None) -> pa.Table | None:
    """The parse itself (`_arrow_read`): a table, or None where pyarrow refuses."""
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
            memory_pool=POOL,
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


def _vouch(holder: list[pa.Table], scan: Scanner, binary_text: bool) -> Block | None:
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
    scores = numeric(chunks.pop("score"), np.float64)
    if not np.isfinite(scores).all():
        return None
    ranks = numeric(chunks.pop("rank"), np.int64)
    query_ids = combine(chunks.pop("query"))
    release()
    doc_ids = combine(chunks.pop("doc"))
    release()
    # IDs the grammar refuses: the reference's helpers name the line
    if ids_may_have_problems(query_ids, comment_mark=False) or ids_may_have_problems(
        doc_ids, comment_mark=scan.comment_mark
    ):
        return None
    return Block([query_ids], [doc_ids], scores, ranks, None)
