"""Tiers 2 and 3 of the run reader: the file in memory, block by block.

2. The file is taken block by block (about 8 MB of whole lines): the parser
   on the block as it is, with its tabs made spaces, then with every
   separator regularised (runs of blanks made one space, blanks at line ends
   removed: the reference's tokens joined by single spaces). A block it still
   cannot vouch for is split in 16 and each piece tried again, down to 32 kB.
3. Those small pieces are read line by line with the reference's own helpers
   (`iter_data_lines`, `parse_run_line`), into columns. Comments, blank lines
   and every error end up here, so errors carry the reference's message.

The tests shrink `BLOCK_BYTES` and `SMALLEST_SPAN`: they are read at call time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import numpy as np

from judgepool.core.scoring.arrow import arrow_strings
from judgepool.core.terms.errors import InputError
from judgepool.formats.fast_run.columns import Block, ParsedRun, combine, combine_ranks
from judgepool.formats.fast_run.stream import parse_regular
from judgepool.formats.trec import BadLine, iter_data_lines, parse_run_line

BLOCK_BYTES: Final = 8 << 20
SMALLEST_SPAN: Final = 32 << 10


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


def parse_blocks(
    data: bytes | bytearray,
    path: str,
    *,
    fast: bool,
    bad: list[BadLine] | None = None,
    first_line: int = 1,
) -> ParsedRun:
    """Tiers 2 and 3: block by block, the parser where it can vouch for a block,
    the reference's line helpers elsewhere. With a ``bad`` list, a bad line is
    appended to it and skipped (as the reference's ``collect_errors``) rather
    than raised. ``data`` starts at line ``first_line`` of the file (a chunk of
    it: `fast_run.chunks`), which numbers lines and errors."""
    parts: list[Block] = []
    start_line = first_line
    for start, end in _split_blocks(data, 0, len(data), BLOCK_BYTES):
        first_line = _parse_span(data, start, end, first_line, path, fast, parts, bad)
    count = sum(len(part.scores) for part in parts)
    lines = (
        np.concatenate([part.lines for part in parts if part.lines is not None])
        if parts
        else np.zeros(0, dtype=np.int64)
    )
    # line numbers only increase, so first 1 and last `count` mean 1..count exactly
    consecutive = count == 0 or (start_line == 1 and lines[0] == 1 and lines[-1] == count)
    return ParsedRun(
        combine([array for part in parts for array in part.query_ids]),
        combine([array for part in parts for array in part.doc_ids]),
        np.concatenate([part.scores for part in parts]) if parts else np.zeros(0, np.float64),
        combine_ranks([part.ranks for part in parts]),
        None if consecutive else lines,
    )


def _parse_span(
    data: bytes | bytearray,
    start: int,
    end: int,
    first_line: int,
    path: str,
    fast: bool,
    parts: list[Block],
    bad: list[BadLine] | None = None,
) -> int:
    """Append the columns of ``data[start:end]`` (whole lines from ``first_line``)
    to ``parts``, its lines numbered; return the next span's first line.

    The parser is tried on the span as it is, then with its tabs made spaces,
    then fully regularised; a span it still cannot vouch for is split in 16 and
    each piece tried again, down to `SMALLEST_SPAN`, where the reference's
    helpers read it: a comment or a bad line costs the Python reader one small
    piece, not a whole block."""
    block = data[start:end]
    newlines = block.count(b"\n")
    rows = newlines + (0 if block.endswith(b"\n") or not block else 1)
    if fast:
        for candidate in _candidates(block):
            part = parse_regular(candidate)
            if part is not None and len(part.scores) == rows:
                part.lines = np.arange(first_line, first_line + rows, dtype=np.int64)
                parts.append(part)
                return first_line + newlines
        pieces = (
            _split_blocks(data, start, end, (end - start) // 16 + 1)
            if end - start > SMALLEST_SPAN
            else []
        )
        if len(pieces) > 1:  # a single long line cannot be split
            line = first_line
            for low, high in pieces:
                line = _parse_span(data, low, high, line, path, fast, parts, bad)
            return line
    parts.append(_parse_lines(bytes(block), path, first_line - 1, bad))
    return first_line + newlines


def _candidates(block: bytes | bytearray) -> Iterator[bytes | bytearray]:
    """The span as it is, then as regular as the reference's tokens allow."""
    yield block
    if b"\t" in block:
        translated = block.replace(b"\t", b" ")
        yield translated
        block = translated
    # Removing the blanks between a CR and its LF would turn a CR inside the
    # line (refused by the reference) into a CR LF line end: such a span is
    # left to the reference's helpers.
    if b"\r " in block:
        return
    regular = _regularise(block)
    if regular != block:
        yield regular


def _parse_lines(block: bytes, path: str, offset: int, bad: list[BadLine] | None) -> Block:
    """Tier 3: the reference's helpers, line by line, into columns. Line numbers
    (and those of errors) are the block's plus ``offset``. Bad lines go to
    ``bad`` when it is a list, else the first raises."""
    unreadable: list[BadLine] | None = None if bad is None else []
    query_ids: list[str] = []
    doc_ids: list[str] = []
    ranks: list[int] = []
    scores: list[float] = []
    lines: list[int] = []
    add_query, add_doc, add_rank = query_ids.append, doc_ids.append, ranks.append
    add_score, add_line = scores.append, lines.append
    numbered = iter_data_lines(block, path, unreadable)
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
            if bad is None:
                raise InputError(str(exc), path, number + offset) from None
            bad.append(BadLine(number + offset, str(exc)))
            continue
        add_query(query_id)
        add_doc(doc_id)
        add_rank(rank)
        add_score(score)
        add_line(number + offset)
    if bad is not None and unreadable:
        bad.extend(BadLine(b.line + offset, b.message) for b in unreadable)
    return Block(
        [arrow_strings(query_ids)],
        [arrow_strings(doc_ids)],
        np.array(scores, dtype=np.float64),
        ranks,
        np.array(lines, dtype=np.int64),
    )
