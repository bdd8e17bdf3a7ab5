"""A file listing query IDs, one per line (``assign --queries FILE``).

A line holds an ID; when it has a tab, the ID is its first field, so a
queries TSV (``id<TAB>text``) serves as it is. Blank lines are skipped. The
IDs follow `judgepool.core.terms.tokens` (a line starting with ``#`` is a comment,
as in TREC files); a bad line is refused naming file and line.
"""

from __future__ import annotations

from pathlib import Path

from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.formats.ids import id_error
from judgepool.formats.source import listed_lines


def read_id_list(path: str | Path) -> list[tuple[int, str]]:
    """(line number, ID) of every ID line, in file order; a repeated ID is refused."""
    found: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for number, line in listed_lines(path):
        text = line.split("\t", 1)[0]
        problem = id_error("query", text)
        if problem is not None:
            raise InputError(problem, str(path), number)
        if text in seen:
            raise InputError(
                f"query {quoted(text)} is listed again (first on line {seen[text]})",
                str(path),
                number,
            )
        seen[text] = number
        found.append((number, text))
    if not found:
        raise InputError("lists no query ID", str(path))
    return found
