"""The run reader's entry points: `read_run_columns` (a file) and
`parse_run_bytes` (bytes in memory), each trying the tiers in turn."""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from judgepool.formats.fast_run.blocks import parse_blocks
from judgepool.formats.fast_run.columns import ParsedRun, block_as_run
from judgepool.formats.fast_run.stream import parse_regular, read_streaming
from judgepool.formats.source import GZIP_MAGIC, UTF8_BOM, is_regular_file, read_bytes
from judgepool.formats.trec import run_digest


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
    streamed = read_streaming(path)
    if streamed is not None:
        block, digest = streamed
        parsed = block_as_run(block)
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
            parsed = parse_blocks(_without_bom(data), name, fast=True)
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
        block = parse_regular(data)
        if block is not None:
            return block_as_run(block)
    return parse_blocks(data, path, fast=fast)


def _without_bom(data: bytes | bytearray) -> bytes | bytearray:
    """``data`` without the byte order mark that may start a file (a copy, when
    there is one: rare enough not to matter)."""
    return data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data


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
