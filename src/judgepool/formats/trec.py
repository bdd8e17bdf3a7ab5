"""Reading TREC runs and qrels: the plain, line-by-line reference reader.

Runs are ``qid Q0 docid rank score tag`` (columns after the sixth ignored, as
trec_eval does); qrels are ``qid iteration docid grade``. Columns are separated
by any run of spaces or tabs; CRLF line ends are accepted; blank lines and lines
whose first non-blank character is ``#`` are skipped; gzip is recognised by its
magic bytes, whatever the file is called. Every error names the file and the
1-based line. `fast_run.py` reads well-formed runs faster and falls back here.
"""

from __future__ import annotations

import gzip
import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from judgepool.core.contract import Scale
from judgepool.core.errors import InputError
from judgepool.core.types import RunEntry

GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class BadLine:
    """A line the reader could not use, for an audit that lists them all."""

    line: int
    message: str


@dataclass
class RunFile:
    """A run as read: its lines in source order, and a digest of its content."""

    path: str
    entries: list[RunEntry]
    digest: str
    bad_lines: list[BadLine] = field(default_factory=list)
    lines: int = 0  # physical lines read, comments and blanks included


@dataclass
class QrelsFile:
    """Judgments as read: query -> doc -> grade, and the digest of that set."""

    path: str
    judgments: dict[str, dict[str, int]]
    digest: str


def open_text_bytes(path: str | Path) -> IO[bytes]:
    """Open a file for reading bytes, transparently un-gzipping it."""
    raw = open(path, "rb")  # noqa: SIM115 - handed to the caller, who closes it
    if raw.peek(2)[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    return raw


def read_bytes(path: str | Path) -> bytes:
    """The file's content, un-gzipped; an unreadable file is an InputError."""
    try:
        with open_text_bytes(path) as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError("no such file", str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", str(path)) from None
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise InputError(f"cannot read: {exc}", str(path)) from None


def split_columns(text: str) -> list[str]:
    """Columns separated by any run of spaces or tabs (and nothing else)."""
    if "\t" in text:
        text = text.replace("\t", " ")
    return [part for part in text.split(" ") if part]


def iter_data_lines(
    data: bytes, path: str, bad: list[BadLine] | None = None
) -> Iterator[tuple[int, list[str]]]:
    """(1-based line number, columns) of every non-blank, non-comment line.

    A line that is not UTF-8 raises InputError, or is appended to ``bad`` and
    skipped when a list is given (an audit reads past every bad line).
    """
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"not valid UTF-8 ({exc.reason} at byte {exc.start})"
            if bad is None:
                raise InputError(message, path, number) from None
            bad.append(BadLine(number, message))
            continue
        columns = split_columns(text)
        if not columns or columns[0].startswith("#"):
            continue
        yield number, columns


def parse_int(text: str) -> int | None:
    """An integer written plainly (optional sign, ASCII digits), else None."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    return int(text)


def parse_score(text: str) -> float | None:
    """A finite decimal number, else None (NaN and infinities are refused)."""
    if "_" in text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_run_line(columns: list[str]) -> tuple[str, str, int, float]:
    """(query, doc, rank, score) of a run line's columns; ValueError says what is wrong."""
    if len(columns) < 6:
        raise ValueError(f"expected 6 columns (qid Q0 docid rank score tag), found {len(columns)}")
    rank = parse_int(columns[3])
    if rank is None:
        raise ValueError(f"rank {columns[3]!r} is not an integer")
    score = parse_score(columns[4])
    if score is None:
        raise ValueError(f"score {columns[4]!r} is not a finite number")
    return columns[0], columns[2], rank, score


def read_run(path: str | Path, *, collect_errors: bool = False) -> RunFile:
    """Read a run file. The first bad line raises InputError, unless
    ``collect_errors`` asks to list every bad line and keep the good ones."""
    name = str(path)
    data = read_bytes(path)
    entries: list[RunEntry] = []
    bad: list[BadLine] = []
    for number, columns in iter_data_lines(data, name, bad if collect_errors else None):
        try:
            query_id, doc_id, rank, score = parse_run_line(columns)
        except ValueError as exc:
            if not collect_errors:
                raise InputError(str(exc), name, number) from None
            bad.append(BadLine(number, str(exc)))
            continue
        entries.append(RunEntry(query_id, doc_id, rank, score, number))
    bad.sort(key=lambda b: b.line)
    return RunFile(
        name, entries, run_digest(data), bad, data.count(b"\n") + (not data.endswith(b"\n"))
    )


def run_digest(data: bytes) -> str:
    """sha256 of the run's (un-gzipped) bytes."""
    return hashlib.sha256(data).hexdigest()


def qrels_digest(judgments: dict[str, dict[str, int]]) -> str:
    """sha256 of the sorted judgment set: the version of the judged universe.

    Equal for equal sets of (query, doc, grade), whatever file or order they came from.
    """
    digest = hashlib.sha256()
    for query_id in sorted(judgments):
        for doc_id, grade in sorted(judgments[query_id].items()):
            digest.update(f"{query_id}\t{doc_id}\t{grade}\n".encode())
    return digest.hexdigest()


def read_qrels_rows(
    path: str | Path, scale: Scale, scale_advice: str | None = None
) -> list[tuple[str, str, int]]:
    """A qrels file's (query, doc, grade) in file order. Grades must be integers
    inside ``scale``, and a (query, doc) judged twice is an error naming both
    lines. ``scale_advice`` ends the out-of-scale message (default: how to widen
    the scale with ``--scale``)."""
    name = str(path)
    data = read_bytes(path)
    rows: list[tuple[str, str, int]] = []
    first_line: dict[tuple[str, str], int] = {}
    for number, columns in iter_data_lines(data, name):
        if len(columns) != 4:
            raise InputError(
                f"expected 4 columns (qid iteration docid grade), found {len(columns)}",
                name,
                number,
            )
        query_id, _, doc_id, grade_text = columns
        grade = parse_int(grade_text)
        if grade is None:
            raise InputError(f"grade {grade_text!r} is not an integer", name, number)
        if grade not in scale:
            lo, hi = min(scale.minimum, grade), max(scale.maximum, grade)
            advice = scale_advice or f"widen it with --scale {lo}..{hi}"
            raise InputError(f"grade {grade} is outside the scale {scale}; {advice}", name, number)
        key = (query_id, doc_id)
        if key in first_line:
            raise InputError(
                f"query {query_id!r} doc {doc_id!r} is judged twice "
                f"(first at line {first_line[key]})",
                name,
                number,
            )
        first_line[key] = number
        rows.append((query_id, doc_id, grade))
    return rows


def read_qrels(path: str | Path, scale: Scale) -> QrelsFile:
    """Read a qrels file into query -> doc -> grade (see `read_qrels_rows`)."""
    judgments: dict[str, dict[str, int]] = {}
    for query_id, doc_id, grade in read_qrels_rows(path, scale):
        judgments.setdefault(query_id, {})[doc_id] = grade
    return QrelsFile(str(path), judgments, qrels_digest(judgments))
