"""A file listing items, a query ID and a document ID per line
(``prelabel --items FILE``).

The two IDs are separated by whitespace (a tab or spaces); more fields are
allowed and ignored only when the line is a qrels line (``QUERY 0 DOC GRADE``)
or a run line (``QUERY Q0 DOC RANK SCORE TAG``), so a qrels or run file serves
as it is. Blank lines and lines starting with ``#`` are skipped; a bad line is
refused naming file and line. A repeated item is kept once.
"""

from __future__ import annotations

from pathlib import Path

from judgepool.core.terms.errors import InputError
from judgepool.formats.ids import id_error
from judgepool.formats.source import listed_lines


def _ids(fields: list[str]) -> tuple[str, str] | None:
    if len(fields) == 2:
        return fields[0], fields[1]
    if len(fields) == 4:  # qrels: query, iteration, document, grade
        return fields[0], fields[2]
    if len(fields) == 6:  # run: query, Q0, document, rank, score, tag
        return fields[0], fields[2]
    return None


def read_item_list(path: str | Path) -> list[tuple[str, str]]:
    """(query ID, document ID) of every item line, in file order, each once."""
    if not Path(path).is_file():
        raise InputError("no such file", str(path))
    found: dict[tuple[str, str], None] = {}
    for number, line in listed_lines(path):
        ids = _ids(line.split())
        if ids is None:
            raise InputError(
                "an item line is 'QUERY DOC' (or a qrels or run line), "
                f"not {len(line.split())} fields",
                str(path),
                number,
            )
        for kind, value in zip(("query", "document"), ids, strict=True):
            problem = id_error(kind, value)
            if problem is not None:
                raise InputError(problem, str(path), number)
        found[ids] = None
    if not found:
        raise InputError("lists no item (QUERY DOC per line)", str(path))
    return list(found)
