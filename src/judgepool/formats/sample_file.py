"""The sample file: the holes ``holes --sample N`` drew, as ``assign --sample``
and ``compare --sample`` read them back.

One line per sampled hole, eight tab-separated fields:

    query  doc  inclusion  seed  design  size  sampled  frame

``inclusion`` is the hole's inclusion probability π (written with 17
significant digits, so it reads back to the same double); ``seed``,
``design`` and ``size`` (the expected sample size asked for) say how the
sample was drawn; ``sampled`` is how many lines the file has (a file missing
a line is refused, not estimated from: the estimate would no longer be
unbiased); ``frame`` is ``N:DIGEST``, the number of holes drawn from and the
sha256 of their list (`judgepool.core.holes.sample_design.frame_digest`). The last
five are the same on every line. Lines starting with ``#`` are comments (the
file starts with one saying what it is and the columns); blank lines are
skipped. Every refusal names the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from judgepool.core.terms.errors import InputError
from judgepool.core.terms.tokens import parse_decimal, parse_int
from judgepool.formats.ids import id_error
from judgepool.formats.source import listed_lines

COLUMNS: Final = ("query", "doc", "inclusion", "seed", "design", "size", "sampled", "frame")
_FRAME: Final = re.compile(r"([0-9]+):([0-9a-f]{64})")


@dataclass(frozen=True)
class SampledHole:
    """One line: the hole, its inclusion probability, and the line's number."""

    line: int
    query_id: str
    doc_id: str
    inclusion: float


@dataclass(frozen=True)
class SampleFile:
    """A sample as read (or about to be written): how it was drawn, from what
    frame, and its holes in file order."""

    path: str
    design: str
    seed: int
    size: float
    frame_holes: int
    frame_digest: str
    holes: tuple[SampledHole, ...]


def sample_text(sample: SampleFile, note: str) -> str:
    """The file's text: a comment (``note``, then the columns) and one line per hole."""
    frame = f"{sample.frame_holes}:{sample.frame_digest}"
    lines = [f"# {line}" for line in note.splitlines()]
    lines.append("# " + "\t".join(COLUMNS))
    for hole in sample.holes:
        fields = (hole.query_id, hole.doc_id, f"{hole.inclusion!r}", str(sample.seed),
                  sample.design, f"{sample.size:g}", str(len(sample.holes)), frame)  # fmt: skip
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


def read_sample(path: str | Path) -> SampleFile:
    """The sample file at ``path``, every line checked (the module docstring)."""
    name = str(path)
    holes: list[SampledHole] = []
    shared: tuple[str, ...] | None = None
    seen: dict[tuple[str, str], int] = {}
    for number, line in listed_lines(path):
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise InputError(
                f"a sample line has {len(COLUMNS)} tab-separated fields "
                f"({' '.join(COLUMNS)}), not {len(fields)}: is this a file that "
                "'judgepool holes --sample N' wrote?",
                name,
                number,
            )
        query_id, doc_id, inclusion_text = fields[:3]
        for kind, value in (("query", query_id), ("document", doc_id)):
            problem = id_error(kind, value)
            if problem is not None:
                raise InputError(problem, name, number)
        inclusion = parse_decimal(inclusion_text)
        if inclusion is None or not 0 < inclusion <= 1:
            raise InputError(
                f"the inclusion probability must be a number in (0, 1], not {inclusion_text!r}",
                name,
                number,
            )
        rest = tuple(fields[3:])
        if shared is None:
            shared = rest
        elif rest != shared:
            differs = next(c for c, a, b in zip(COLUMNS[3:], rest, shared, strict=True) if a != b)
            raise InputError(
                f"{differs} is {rest[COLUMNS.index(differs) - 3]!r} here but "
                f"{shared[COLUMNS.index(differs) - 3]!r} on the first line: one file holds "
                "one sample",
                name,
                number,
            )
        if (query_id, doc_id) in seen:
            raise InputError(
                f"{query_id!r} {doc_id!r} is listed twice (first on line "
                f"{seen[(query_id, doc_id)]}): a hole is drawn once",
                name,
                number,
            )
        seen[(query_id, doc_id)] = number
        holes.append(SampledHole(number, query_id, doc_id, inclusion))
    if shared is None:
        raise InputError("lists no sampled hole", name)
    first = holes[0].line
    seed, design, size, sampled, frame = _shared_fields(shared, name, first)
    if sampled != len(holes):
        raise InputError(
            f"the sample has {sampled} holes, the file lists {len(holes)}: a sample with a "
            "hole left out is no longer the sample drawn (its estimate would be biased); "
            "use the file as 'judgepool holes --sample' wrote it",
            name,
        )
    return SampleFile(name, design, seed, size, frame[0], frame[1], tuple(holes))


def _shared_fields(
    fields: Sequence[str], name: str, line: int
) -> tuple[int, str, float, int, tuple[int, str]]:
    seed_text, design, size_text, sampled_text, frame_text = fields
    seed = parse_int(seed_text)
    if seed is None or seed < 0:
        raise InputError(f"the seed must be a whole number ≥ 0, not {seed_text!r}", name, line)
    size = parse_decimal(size_text)
    if size is None or size <= 0:
        raise InputError(f"the size must be a positive number, not {size_text!r}", name, line)
    sampled = parse_int(sampled_text)
    if sampled is None or sampled < 1:
        raise InputError(f"'sampled' must be a whole number ≥ 1, not {sampled_text!r}", name, line)
    match = _FRAME.fullmatch(frame_text)
    if match is None:
        raise InputError(
            f"the frame must be N:SHA256 (the holes drawn from and their digest), "
            f"not {frame_text!r}",
            name,
            line,
        )
    return seed, design, size, sampled, (int(match.group(1)), match.group(2))
