"""Reading a run for an audit, fast: `read_run_columns_collecting`.

An audit reads past every bad line and lists them all, with the file's
physical line count (the reference: `formats.trec.read_run` with
``collect_errors``). The columns come from the same tiers as
`read_run_columns`: a file that tier 1 vouches for has no bad line and one
data line per physical line; any other is read into memory and taken by
tiers 2 and 3, which hand every bad line to the list instead of raising.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from judgepool.formats.fast_run.blocks import parse_blocks
from judgepool.formats.fast_run.columns import block_as_run
from judgepool.formats.fast_run.reader import RunColumns, _read_file, _without_bom
from judgepool.formats.fast_run.stream import read_streaming
from judgepool.formats.source import is_regular_file, read_bytes
from judgepool.formats.trec import BadLine


@dataclass(frozen=True, eq=False)
class CollectedRun:
    """A run read for an audit: its usable lines as columns, the lines the
    reader could not use (by line number) and its physical line count
    (comments, blank and bad lines included), as `trec.RunFile` counts them."""

    columns: RunColumns
    bad_lines: tuple[BadLine, ...]
    lines: int


def read_run_columns_collecting(path: str | Path) -> CollectedRun:
    """Read a run file (plain or gzip) into columns, collecting its bad lines.

    The lines, bad lines and line count are exactly those of
    ``formats.trec.read_run(path, collect_errors=True)``; an unreadable file
    (missing, a directory, broken gzip) raises the same `InputError`.
    """
    name = str(path)
    if is_regular_file(path):
        streamed = read_streaming(path)
        if streamed is not None and len(streamed[0].scores):
            block, digest = streamed
            parsed = block_as_run(block)
            columns = RunColumns(
                name, parsed.query_ids, parsed.doc_ids, parsed.scores, parsed.ranks, None, digest
            )
            # tier 1 vouches for one six-column line per physical line
            return CollectedRun(columns, (), len(columns))
        data = _read_file(path)
    else:
        data = read_bytes(path)  # a stream can be read once
    bad: list[BadLine] = []
    parsed = parse_blocks(_without_bom(data), name, fast=True, bad=bad)
    columns = RunColumns(
        name,
        parsed.query_ids,
        parsed.doc_ids,
        parsed.scores,
        parsed.ranks,
        parsed.lines,
        hashlib.sha256(data).hexdigest(),
    )
    bad.sort(key=lambda b: b.line)
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    return CollectedRun(columns, tuple(bad), lines)
