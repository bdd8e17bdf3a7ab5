"""Reading queries and documents from TSV or JSONL files (plain or gzip).

TSV lines are ``id<TAB>text`` with an optional third column (a query's
narrative, a document's title). JSONL lines are objects with ``id`` (or
BEIR's ``_id``), ``text``, and optionally ``narrative`` (queries) or ``title``
(documents); other keys are ignored. Blank lines are skipped; CRLF and a
UTF-8 byte order mark are accepted, a carriage return anywhere else is refused
as in the TREC readers (see `formats.trec`); gzip is recognised by its magic
bytes. IDs must be tokens the TREC formats can carry
(`judgepool.core.terms.tokens.id_problem`; spaces around an ID are dropped).
A JSON object naming a key twice is refused (JSON leaves it open which
value counts), and so is a text holding a lone surrogate (an escape such as
``\\ud800`` that is no character and cannot be stored as UTF-8). Integers are
kept as written: an ID written as a number is the same token either way.
The format is chosen by the file name (``.jsonl``, ``.ndjson``, ``.json``,
with or without ``.gz``), else by the first non-blank line: a line starting
with ``{`` means JSONL.

Every error names the file and the 1-based line; the whole file is checked
before anything is returned, so a caller never acts on half a file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from judgepool.core.terms.errors import InputError
from judgepool.formats.ids import id_error
from judgepool.formats.source import read_bytes, strip_bom
from judgepool.formats.trec import CR_INSIDE_A_LINE

TableKind = Literal["queries", "documents"]

_ID_KIND: Final[dict[str, str]] = {"queries": "query", "documents": "document"}
# The name of the optional third field, per kind.
EXTRA_FIELD: Final[dict[str, str]] = {"queries": "narrative", "documents": "title"}
_JSON_SUFFIXES: Final = (".jsonl", ".ndjson", ".json")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class TableRow:
    """One query or document as read. ``extra`` is the narrative or title, if any."""

    id: str
    text: str
    extra: str | None
    line: int


def _is_jsonl(path: Path, data: bytes) -> bool:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(_JSON_SUFFIXES):
        return True
    if name.endswith((".tsv", ".txt", ".tab")):
        return False
    for raw in data.split(b"\n", 50):
        stripped = raw.strip()
        if stripped:
            return stripped.startswith(b"{")
    return False


def _decode(raw: bytes, path: str, number: int) -> str:
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if b"\r" in raw:
        raise InputError(CR_INSIDE_A_LINE, path, number)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path, number
        ) from None


def _tsv_row(text: str, kind: TableKind, path: str, number: int) -> TableRow:
    columns = text.split("\t")
    if len(columns) not in (2, 3):
        raise InputError(
            f"expected 2 or 3 tab-separated columns (id, text[, narrative or title]), "
            f"found {len(columns)}",
            path,
            number,
        )
    identifier = columns[0].strip(" ")
    if not identifier:
        raise InputError("the id column is empty", path, number)
    problem = id_error(_ID_KIND[kind], identifier)
    if problem is not None:
        raise InputError(problem, path, number)
    extra = columns[2] if len(columns) == 3 and columns[2] != "" else None
    return TableRow(identifier, columns[1], extra, number)


def _string_field(record: dict[str, object], key: str, path: str, number: int) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"{key!r} must be a string, got {type(value).__name__}", path, number)
    return str(value)


class _DuplicateKey(Exception):
    """Raised from inside the JSON parser on an object that names a key twice."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


def _parse_json(text: str, path: str, number: int) -> Any:
    try:
        # parse_int=str: integers kept as written; int() refuses more than 4300 digits
        return json.loads(text, object_pairs_hook=_object, parse_int=str)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, number) from None
    except _DuplicateKey as exc:
        raise InputError(
            f"the object names the key {exc.args[0]!r} twice; which value is meant cannot "
            "be decided",
            path,
            number,
        ) from None
    except RecursionError:
        raise InputError(
            "not readable JSON: arrays or objects are nested too deeply", path, number
        ) from None


def _jsonl_row(text: str, kind: TableKind, path: str, number: int) -> TableRow:
    record = _parse_json(text, path, number)
    if not isinstance(record, dict):
        raise InputError("expected a JSON object per line", path, number)
    identifier = _string_field(record, "id", path, number)
    if identifier is None:
        identifier = _string_field(record, "_id", path, number)
    if identifier is None or not identifier.strip(" "):
        raise InputError("the object has no non-empty 'id'", path, number)
    identifier = identifier.strip(" ")
    problem = id_error(_ID_KIND[kind], identifier)
    if problem is not None:
        raise InputError(problem, path, number)
    body = _string_field(record, "text", path, number)
    if body is None:
        raise InputError("the object has no 'text'", path, number)
    extra = _string_field(record, EXTRA_FIELD[kind], path, number)
    if "\\u" in text:  # only an escape can make a lone surrogate
        for key, value in (("text", body), (EXTRA_FIELD[kind], extra)):
            found = _SURROGATE.search(value or "")
            if found is not None:
                raise InputError(
                    f"{key!r} holds a lone surrogate (\\u{ord(found.group()):04x}), an escape "
                    "that is no character and cannot be stored; fix it in the file",
                    path,
                    number,
                )
    return TableRow(identifier, body, extra or None, number)


def read_table(path: str | Path, kind: TableKind) -> list[TableRow]:
    """Every row of a queries or documents file, in file order.

    An ID given twice in one file is an error naming both lines: which of the
    two texts was meant cannot be decided here.
    """
    if kind not in EXTRA_FIELD:
        raise ValueError(f"unknown table kind {kind!r}")
    name = str(path)
    data = strip_bom(read_bytes(path))
    jsonl = _is_jsonl(Path(path), data)
    rows: list[TableRow] = []
    first_line: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        text = _decode(raw, name, number)
        if not text.strip():
            continue
        row = _jsonl_row(text, kind, name, number) if jsonl else _tsv_row(text, kind, name, number)
        if row.id in first_line:
            raise InputError(
                f"id {row.id!r} appears twice (first at line {first_line[row.id]})", name, number
            )
        first_line[row.id] = number
        rows.append(row)
    return rows
