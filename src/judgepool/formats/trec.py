"""Reading TREC runs and qrels: the plain, line-by-line reference reader.

Runs are ``qid Q0 docid rank score tag`` (columns after the sixth ignored, as
trec_eval does); qrels are ``qid iteration docid grade``. Columns are separated
by any run of spaces or tabs; blank lines and lines whose first non-blank
character is ``#`` are skipped; a UTF-8 byte order mark at the start of the
file is dropped (it is not part of the first query ID); gzip is recognised by
its magic bytes, whatever the file is called. Every error names the file and
the 1-based line. `fast_run.py` reads well-formed runs faster and falls back
here.

What the readers accept, in one grammar: query and document IDs are tokens
the TREC formats can carry (`judgepool.core.terms.tokens.id_problem`); ranks and
grades are ASCII integers (ranks within 64 bits, grades within the bounds of
`judgepool.core.terms.limits`); scores are finite ASCII decimals.

Line ends are LF or CR LF. A carriage return anywhere else is refused (exit
2): a file with CR-only line ends (classic Mac OS) would otherwise read as one
long line and score 0 without a word, and trec_eval refuses such a file as
malformed too; reading CR as a line end instead would accept files that
trec_eval does not. The message says how to convert the file. (A CR as the
very last byte is a CR LF cut short and ends the last line.)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from judgepool.core.terms.contract import Scale
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.limits import (
    GRADE_LIMIT,
    INT64_MAX,
    INT64_MIN,
    NOT_AN_INTEGER,
    bounded_int,
)
from judgepool.core.terms.tokens import parse_decimal
from judgepool.core.terms.types import RunEntry
from judgepool.formats.ids import id_error
from judgepool.formats.source import GZIP_MAGIC, open_text_bytes, read_bytes, strip_bom

__all__ = [
    "GZIP_MAGIC",
    "BadLine",
    "QrelsFile",
    "RunFile",
    "iter_data_lines",
    "open_text_bytes",
    "parse_rank",
    "parse_run_line",
    "parse_score",
    "qrels_digest",
    "read_bytes",
    "read_qrels",
    "read_qrels_rows",
    "read_run",
    "run_digest",
    "split_columns",
]

CR_INSIDE_A_LINE: Final = (
    "a carriage return (CR) inside the line: lines must end with LF or CR LF; "
    "a file with CR-only line ends (classic Mac OS) can be converted with: "
    "tr '\\r' '\\n' < FILE > NEW"
)


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


def split_columns(text: str) -> list[str]:
    """Columns separated by any run of spaces or tabs (and nothing else)."""
    if "\t" in text:
        text = text.replace("\t", " ")
    return [part for part in text.split(" ") if part]


def iter_data_lines(
    data: bytes, path: str, bad: list[BadLine] | None = None
) -> Iterator[tuple[int, list[str]]]:
    """(1-based line number, columns) of every non-blank, non-comment line.

    A line that is not UTF-8, or holds a carriage return that does not end it,
    raises InputError, or is appended to ``bad`` and skipped when a list is
    given (an audit reads past every bad line). ``data`` is a file's content
    without its byte order mark (see `strip_bom`).
    """
    carriage_returns = b"\r" in data
    for number, raw in enumerate(data.split(b"\n"), start=1):
        message = None
        if carriage_returns:
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if b"\r" in raw:
                message = CR_INSIDE_A_LINE
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"not valid UTF-8 ({exc.reason} at byte {exc.start})"
        if message is not None:
            if bad is None:
                raise InputError(message, path, number) from None
            bad.append(BadLine(number, message))
            continue
        columns = split_columns(text)
        if not columns or columns[0].startswith("#"):
            continue
        yield number, columns


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, cut after ``limit`` characters (a number
    of 5,000 digits says no more in full)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def parse_rank(text: str) -> int:
    """A rank: an integer of the one grammar within int64; ValueError says why not.

    Plain ASCII digits of at most 18 (the most a run has) are read at once:
    the grammar's answer for them, without its regular expression."""
    if len(text) <= 18 and text.isdigit() and text.isascii():
        return int(text)
    try:
        return bounded_int(text, INT64_MIN, INT64_MAX)
    except ValueError as exc:
        detail = (
            str(exc)
            if str(exc) == NOT_AN_INTEGER
            else f"is outside the range of a 64-bit integer ({INT64_MIN}..{INT64_MAX})"
        )
        raise ValueError(f"rank {shown(text)} {detail}") from None


def parse_score(text: str) -> float | None:
    """A score: `tokens.parse_decimal`'s finite ASCII decimal, or None.

    For printable ASCII without a space or an underscore, Python's ``float()``
    takes exactly that grammar's decimals, and otherwise only NaN and the
    infinities, which are not finite: its answer is the grammar's, without
    the regular expression (a test holds the two together)."""
    if text.isascii() and text.isprintable() and " " not in text and "_" not in text:
        try:
            value = float(text)
        except ValueError:
            return None
        return value if math.isfinite(value) else None
    return parse_decimal(text)


def parse_run_line(columns: list[str]) -> tuple[str, str, int, float]:
    """(query, doc, rank, score) of a run line's columns; ValueError says what is wrong."""
    if len(columns) < 6:
        raise ValueError(f"expected 6 columns (qid Q0 docid rank score tag), found {len(columns)}")
    query_id, doc_id = columns[0], columns[2]
    # the common case at once: printable ASCII (the columns hold no space) and
    # no leading '#' has nothing `id_error` would refuse
    plain = query_id.isascii() and doc_id.isascii() and query_id.isprintable()
    if not (plain and doc_id.isprintable() and doc_id[:1] != "#" and query_id[:1] != "#"):
        problem = id_error("query", query_id) or id_error("document", doc_id)
        if problem is not None:
            raise ValueError(problem)
    rank = parse_rank(columns[3])
    score = parse_score(columns[4])
    if score is None:
        raise ValueError(f"score {shown(columns[4])} is not a finite number")
    return query_id, doc_id, rank, score


def read_run(path: str | Path, *, collect_errors: bool = False) -> RunFile:
    """Read a run file. The first bad line raises InputError, unless
    ``collect_errors`` asks to list every bad line and keep the good ones."""
    name = str(path)
    data = read_bytes(path)
    entries: list[RunEntry] = []
    bad: list[BadLine] = []
    lines = iter_data_lines(strip_bom(data), name, bad if collect_errors else None)
    for number, columns in lines:
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
    the scale with ``--scale``). A file without a judgment is an error: scoring
    against nothing would give every run 0, or nothing, without a word."""
    name = str(path)
    data = strip_bom(read_bytes(path))
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
        problem = id_error("query", query_id) or id_error("document", doc_id)
        if problem is not None:
            raise InputError(problem, name, number)
        try:
            grade = bounded_int(grade_text, -GRADE_LIMIT, GRADE_LIMIT)
        except ValueError as exc:
            if str(exc) == NOT_AN_INTEGER:
                raise InputError(f"grade {shown(grade_text)} {exc}", name, number) from None
            raise InputError(
                f"grade {shown(grade_text)} is outside the scale {scale}, and outside what any "
                f"scale can hold ({-GRADE_LIMIT}..{GRADE_LIMIT})",
                name,
                number,
            ) from None
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
    if not rows:
        what = "is empty" if not data.strip() else "holds only comments and blank lines"
        raise InputError(
            f"has no judgments: it {what}; qrels lines are 'qid iteration docid grade'", name
        )
    return rows


def read_qrels(path: str | Path, scale: Scale) -> QrelsFile:
    """Read a qrels file into query -> doc -> grade (see `read_qrels_rows`)."""
    judgments: dict[str, dict[str, int]] = {}
    for query_id, doc_id, grade in read_qrels_rows(path, scale):
        judgments.setdefault(query_id, {})[doc_id] = grade
    return QrelsFile(str(path), judgments, qrels_digest(judgments))
