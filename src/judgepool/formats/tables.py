"""Reading queries and documents from TSV or JSONL files (plain or gzip).

TSV lines are ``id<TAB>text`` with an optional third column (a query's
narrative, a document's title). JSONL lines are objects with ``id`` (or
BEIR's ``_id``), ``text``, and optionally ``narrative`` (queries) or ``title``
(documents); other keys are ignored. Blank lines are skipped; CRLF and a
UTF-8 byte order mark are accepted; gzip is recognised by its magic bytes.
The format is chosen by the file name (``.jsonl``, ``.ndjson``, ``.json``,
with or without ``.gz``), else by the first non-blank line: a line starting
with ``{`` means JSONL.

Every error names the file and the 1-based line; the whole file is checked
before anything is returned, so a caller never acts on half a file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from judgepool.core.errors import InputError
from judgepool.formats.trec import read_bytes

TableKind = Literal["queries", "documents"]

# The name of the optional third field, per kind.
EXTRA_FIELD: Final[dict[str, str]] = {"queries": "narrative", "documents": "title"}
_JSON_SUFFIXES: Final = (".jsonl", ".ndjson", ".json")
_UTF8_BOM: Final = b"\xef\xbb\xbf"


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
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path, number
        ) from None


def _tsv_row(text: str, path: str, number: int) -> TableRow:
    columns = text.split("\t")
    if len(columns) not in (2, 3):
        raise InputError(
            f"expected 2 or 3 tab-separated columns (id, text[, narrative or title]), "
            f"found {len(columns)}",
            path,
            number,
        )
    identifier = columns[0].strip()
    if not identifier:
        raise InputError("the id column is empty", path, number)
    extra = columns[2] if len(columns) == 3 and columns[2] != "" else None
    return TableRow(identifier, columns[1], extra, number)


def _string_field(record: dict[str, object], key: str, path: str, number: int) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"{key!r} must be a string, got {type(value).__name__}", path, number)
    return str(value)


def _jsonl_row(text: str, kind: TableKind, path: str, number: int) -> TableRow:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, number) from None
    if not isinstance(record, dict):
        raise InputError("expected a JSON object per line", path, number)
    identifier = _string_field(record, "id", path, number)
    if identifier is None:
        identifier = _string_field(record, "_id", path, number)
    if identifier is None or not identifier.strip():
        raise InputError("the object has no non-empty 'id'", path, number)
    body = _string_field(record, "text", path, number)
    if body is None:
        raise InputError("the object has no 'text'", path, number)
    extra = _string_field(record, EXTRA_FIELD[kind], path, number)
    return TableRow(identifier.strip(), body, extra or None, number)


def read_table(path: str | Path, kind: TableKind) -> list[TableRow]:
    """Every row of a queries or documents file, in file order.

    An ID given twice in one file is an error naming both lines: which of the
    two texts was meant cannot be decided here.
    """
    if kind not in EXTRA_FIELD:
        raise ValueError(f"unknown table kind {kind!r}")
    name = str(path)
    data = read_bytes(path)
    jsonl = _is_jsonl(Path(path), data)
    rows: list[TableRow] = []
    first_line: dict[str, int] = {}
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        text = _decode(raw, name, number)
        if not text.strip():
            continue
        row = _jsonl_row(text, kind, name, number) if jsonl else _tsv_row(text, name, number)
        if row.id in first_line:
            raise InputError(
                f"id {row.id!r} appears twice (first at line {first_line[row.id]})", name, number
            )
        first_line[row.id] = number
        rows.append(row)
    return rows
