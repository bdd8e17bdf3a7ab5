"""Reading a run file in chunks of whole queries: `RunChunks`.

The whole-file reader (`read_run_columns`) holds every line of a run at once;
this one reads the file (plain or gzip) about `CHUNK_BYTES` at a time, cuts
each read after its last whole line, parses that block with the same tiers
(`parse_regular`, then `parse_blocks`: the same columns, the same errors),
and hands out the rows of every query that is complete, carrying the rows of
the last query read (it may go on in the next block) over to the next chunk.
So a run whose lines keep each query together (the TREC convention) comes out
as chunks of whole queries, and the memory held is that of a chunk, not of
the file.

Every chunk's ``lines`` are the file's own line numbers, and the first bad
line raises the `InputError` the whole-file reader raises (same message, file
and line); a gzip file that is damaged further on is reported as damaged
first, as the whole-file reader (which reads it all before parsing) does.
Given a ``bad`` list (an audit's reading), the bad lines go there instead,
as `read_run_columns_collecting` collects them, and the reading goes on;
``physical_lines`` then counts the file's lines as that reader does.

Whether queries really are kept together is for the reader of the chunks to
check (`core.fast.chunked`): a query that comes back after another one spans
two chunks. `RunBlocks` gives the same rows without the cutting at query
boundaries, for a pass that does not need it (`services.runs.streaming`'s
external grouping).
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from judgepool.core.scoring.arrow import numpy_of
from judgepool.core.terms.errors import InputError
from judgepool.formats.fast_run.blocks import parse_blocks
from judgepool.formats.fast_run.columns import block_as_run, combine, combine_ranks
from judgepool.formats.fast_run.prefetch import prefetched
from judgepool.formats.fast_run.stream import parse_regular
from judgepool.formats.source import GZIP_ERRORS, GZIP_MAGIC, UTF8_BOM, read_error
from judgepool.formats.trec import BadLine

# Read at call time: the tests shrink it to force many cuts.
CHUNK_BYTES = 8 << 20
# A read this long or longer is hashed in a thread while it is parsed; a
# shorter one is hashed on the spot: starting a thread costs about what
# hashing 64 KiB does, and the tests' reads of a few bytes would each start one.
HASH_IN_THREAD_FROM = 1 << 16


@dataclass(frozen=True, eq=False)
class RunChunk:
    """Some rows of a run, in source order: the columns of `RunColumns`, with
    ``lines`` always given (the file's 1-based line numbers)."""

    query_ids: pa.Array
    doc_ids: pa.Array
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64]
    lines: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.scores)

    def slice(self, start: int, stop: int) -> RunChunk:
        """Rows ``start`` to ``stop`` (views, not copies)."""
        return RunChunk(
            self.query_ids.slice(start, stop - start),
            self.doc_ids.slice(start, stop - start),
            self.scores[start:stop],
            self.ranks[start:stop],
            self.lines[start:stop],
        )


def join_chunks(parts: list[RunChunk]) -> RunChunk:
    """One chunk of the rows of ``parts``, in order (contiguous columns)."""
    if len(parts) == 1:
        return parts[0]
    return RunChunk(
        combine([part.query_ids for part in parts]),
        combine([part.doc_ids for part in parts]),
        np.concatenate([part.scores for part in parts]),
        combine_ranks([part.ranks for part in parts]),
        np.concatenate([part.lines for part in parts]),
    )


class RunBlocks:
    """The rows of a run file, block by block (about ``chunk_bytes`` of whole
    lines each), with the digest of its bytes once read to the end.

    ``bytes_read`` and ``raw_position`` (how far into the file on disk, which
    differs for gzip) tell how much is read so far.
    """

    def __init__(
        self, path: str | Path, chunk_bytes: int | None = None, bad: list[BadLine] | None = None
    ) -> None:
        self.path = str(path)
        self.chunk_bytes = chunk_bytes or CHUNK_BYTES
        self.bad = bad
        self.bytes_read = 0
        self.raw_position = 0
        self._newlines = 0
        self._last_byte = b""
        self._hash = hashlib.sha256()
        self._hasher: threading.Thread | None = None
        self._digest: str | None = None

    @property
    def digest(self) -> str:
        """The sha256 of the file's (un-gzipped) bytes: read to the end first."""
        if self._digest is None:
            raise RuntimeError("the digest is known once the file is read to the end")
        return self._digest

    @property
    def physical_lines(self) -> int:
        """The file's lines once read (comments, blank and bad lines
        included; a last line without its newline counts), as
        `read_run_columns_collecting` counts them."""
        return self._newlines + (self._last_byte != b"\n")

    def __iter__(self) -> Generator[RunChunk]:
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 (closed below, after the reads)
        except OSError as exc:
            raise read_error(exc, self.path) from None
        with handle:
            raw: IO[bytes] = handle
            if handle.peek(2)[:2] == GZIP_MAGIC:
                raw = gzip.GzipFile(fileobj=handle)  # type: ignore[assignment]
            try:
                yield from self._blocks(raw, handle)
            finally:
                self._hashed()

    def _hashed(self) -> None:
        """Wait for the last read's bytes to be hashed."""
        if self._hasher is not None:
            self._hasher.join()
            self._hasher = None

    def _read(self, raw: IO[bytes], handle: IO[bytes]) -> bytes:
        self._hashed()
        try:
            data = raw.read(self.chunk_bytes)
        except (OSError, EOFError, *GZIP_ERRORS) as exc:
            raise read_error(exc, self.path) from None
        if len(data) >= HASH_IN_THREAD_FROM:
            # hashed in a thread while the block is parsed (both release the GIL)
            self._hasher = threading.Thread(target=self._hash.update, args=(data,), daemon=True)
            self._hasher.start()
        else:
            self._hash.update(data)
        self.bytes_read += len(data)
        if data:
            self._last_byte = data[-1:]
        self.raw_position = handle.tell()
        return data

    def _blocks(self, raw: IO[bytes], handle: IO[bytes]) -> Iterator[RunChunk]:
        pending = b""
        next_line = 1
        first = True
        while True:
            data = self._read(raw, handle)
            end = not data
            if first:
                # a byte order mark starts the file, not its first query ID
                while len(data) < len(UTF8_BOM) and (more := self._read(raw, handle)):
                    data += more
                if data.startswith(UTF8_BOM):
                    data = data[len(UTF8_BOM) :]
                first = False
            block = pending + data if pending else data
            if end:
                pending = b""
            else:
                cut = block.rfind(b"\n") + 1
                if cut == 0:  # no whole line yet: one line longer than a read
                    pending = block
                    continue
                block, pending = block[:cut], block[cut:]
            if block:
                try:
                    chunk = self._parse(block, next_line)
                except InputError:
                    self._check_rest(raw, handle)
                    raise
                newlines = block.count(b"\n")
                next_line += newlines
                self._newlines += newlines
                del block
                if len(chunk):
                    yield chunk
            if end:
                self._hashed()
                self._digest = self._hash.hexdigest()
                return

    def _parse(self, block: bytes, first_line: int) -> RunChunk:
        """The rows of ``block`` (whole lines from ``first_line``): tier 1 when
        it vouches for every line, else the tiers 2 and 3 (`parse_blocks`)."""
        rows = block.count(b"\n") + (0 if block.endswith(b"\n") else 1)
        regular = parse_regular(block)
        if regular is not None and len(regular.scores) == rows:
            parsed = block_as_run(regular)
        else:
            parsed = parse_blocks(block, self.path, fast=True, first_line=first_line, bad=self.bad)
        lines = parsed.lines
        if lines is None:
            lines = np.arange(first_line, first_line + len(parsed.scores), dtype=np.int64)
        return RunChunk(parsed.query_ids, parsed.doc_ids, parsed.scores, parsed.ranks, lines)

    def _check_rest(self, raw: IO[bytes], handle: IO[bytes]) -> None:
        """Before a bad line is reported: read (not parse) the rest of a gzip
        file, whose damage the whole-file reader would report first."""
        if raw is handle:
            return
        while self._read(raw, handle):
            pass


class RunChunks:
    """The rows of a run file in chunks that end at a query boundary: every
    query whose lines are together in the file is whole in one chunk.

    Iterate once; then ``digest`` is the file's and ``lines`` the number of
    rows read.
    """

    def __init__(
        self, path: str | Path, chunk_bytes: int | None = None, bad: list[BadLine] | None = None
    ) -> None:
        self.blocks = RunBlocks(path, chunk_bytes, bad)
        self.rows = 0

    @property
    def digest(self) -> str:
        """The sha256 of the file's (un-gzipped) bytes, once read."""
        return self.blocks.digest

    def __iter__(self) -> Generator[RunChunk]:
        carried: list[RunChunk] = []  # the rows of the last query seen so far
        for block in prefetched(self.blocks):
            self.rows += len(block)
            last = block.query_ids[len(block) - 1]
            # the rows after the last change of query ID: that query may go on
            others = np.flatnonzero(numpy_of(pc.not_equal(block.query_ids, last)))
            start = int(others[-1]) + 1 if others.size else 0
            if start == 0:
                carried.append(block)
                continue
            yield join_chunks([*carried, block.slice(0, start)])
            carried = [block.slice(start, len(block))]
        if carried:
            yield join_chunks(carried)
