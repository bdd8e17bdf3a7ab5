"""Long stored texts in bounded parts, split at characters, never inside one.

A document (or a query's text, its narrative, a document's title) may be
megabytes long. The app shows a `TextPart` of it at a time: at most
`PART_CHARACTERS` of a document's text, `PREVIEW_CHARACTERS` of the others.
A part is read as bytes of the text's UTF-8 (`judgepool.store.corpus.read_text`:
only those bytes leave SQLite), at most 4 bytes per character wanted, and
decoded up to the last whole character. A part remembers where it begins and
ends both in characters (what the screen says) and in bytes (where the next
and previous parts are read from), so paging never reads the text before it.

The whole text's length in characters is counted in SQLite's bytes a chunk at
a time (`judgepool.store.corpus.text_characters`), once per text shown, and
only when the part is not the whole text.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Final, Literal

from judgepool.store import corpus
from judgepool.store.corpus import TextBytes, TextField
from judgepool.store.workspace import Workspace

PART_CHARACTERS: Final = 20_000
"""The most characters of a document's text shown at once."""
PREVIEW_CHARACTERS: Final = 1_000
"""The most characters shown of a query's text, of its narrative and of a document's title."""
MAX_UTF8: Final = 4
"""Bytes one character takes in UTF-8, at most."""

_CONTINUATION_BYTES: Final = bytes(range(0x80, 0xC0))  # the bytes inside a character
# Bytes that are not UTF-8 (only another program could have stored them) decode
# to U+DC80..U+DCFF, so byte counts stay exact, and are shown as U+FFFD.
_NOT_UTF8: Final = {code: 0xFFFD for code in range(0xDC80, 0xDD00)}

PartWhere = Literal["first", "next", "previous", "last", "again"]


@dataclass(frozen=True)
class TextPart:
    """Characters ``start`` to `end` (0-based, end excluded) of a text of ``length``
    characters, and bytes ``byte_start`` to ``byte_end`` of its UTF-8."""

    text: str
    start: int
    length: int
    byte_start: int
    byte_end: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def is_first(self) -> bool:
        return self.start == 0

    @property
    def is_last(self) -> bool:
        return self.end >= self.length

    @property
    def is_whole(self) -> bool:
        return self.is_first and self.is_last


def whole_text(text: str) -> TextPart:
    """A short text held whole, as its one part."""
    return TextPart(text, 0, len(text), 0, _utf8_size(text))


def text_part(
    ws: Workspace,
    field: TextField,
    identifier: str,
    where: PartWhere = "first",
    current: TextPart | None = None,
    limit: int = PART_CHARACTERS,
) -> TextPart | None:
    """A part of at most ``limit`` characters of a stored text: the first or the
    last one; or, from the ``current`` part, the next, the previous, or the same
    one read again (the text may have changed, so its length is counted
    afresh). The next of the last part and the previous of the first are that
    part again. None without the row or the text."""
    if where == "last":
        whole = corpus.read_text(ws, field, identifier, 0, 0)
        if whole is None:
            return None
        known = None if current is None else current.length
        return _part_until(ws, field, identifier, whole.size, None, known, limit)
    if current is None or where == "first":
        return _part_from(ws, field, identifier, 0, 0, None, limit)
    if where == "next" and not current.is_last:
        return _part_from(
            ws, field, identifier, current.byte_end, current.end, current.length, limit
        )
    if where == "previous" and not current.is_first:
        return _part_until(
            ws, field, identifier, current.byte_start, current.start, current.length, limit
        )
    again = _part_from(ws, field, identifier, current.byte_start, current.start, None, limit)
    if again is not None and not again.text and again.start:
        # The text became shorter than where the part began: its first part instead.
        return _part_from(ws, field, identifier, 0, 0, again.length, limit)
    return again


def preview(ws: Workspace, field: TextField, identifier: str, head: TextBytes) -> TextPart:
    """The first `PREVIEW_CHARACTERS` of a text whose first bytes (``head``, at
    least `MAX_UTF8` per character of the preview) were read already."""
    final = len(head.data) >= head.size
    text = _first_characters(_decode(head.data, final), PREVIEW_CHARACTERS)
    length = _length(ws, field, identifier, text, 0, head.size)
    return TextPart(_shown(text), 0, length, 0, _utf8_size(text))


def _part_from(
    ws: Workspace,
    field: TextField,
    identifier: str,
    byte_start: int,
    start: int,
    length: int | None,
    limit: int,
) -> TextPart | None:
    """The part that begins at byte ``byte_start``, character ``start``."""
    read = corpus.read_text(ws, field, identifier, byte_start, limit * MAX_UTF8)
    if read is None:
        return None
    # Skipping bytes inside a character only happens when the text changed
    # since ``byte_start`` was taken: the part then begins at the next character.
    inside = _inside_character(read.data)
    data, byte_start = read.data[inside:], byte_start + inside
    text = _first_characters(_decode(data, byte_start + len(data) >= read.size), limit)
    if length is None:
        length = _length(ws, field, identifier, text, byte_start, read.size)
    return TextPart(_shown(text), start, length, byte_start, byte_start + _utf8_size(text))


def _part_until(
    ws: Workspace,
    field: TextField,
    identifier: str,
    byte_end: int,
    end: int | None,
    length: int | None,
    limit: int,
) -> TextPart | None:
    """The part that ends at byte ``byte_end``, character ``end`` (None: the end)."""
    first = max(0, byte_end - limit * MAX_UTF8)
    read = corpus.read_text(ws, field, identifier, first, byte_end - first)
    if read is None:
        return None
    # The bytes read may begin inside a character: it belongs to the part before.
    text = _last_characters(_decode(read.data[_inside_character(read.data) :], True), limit)
    byte_start = byte_end - _utf8_size(text)
    if length is None:
        length = _length(ws, field, identifier, text, byte_start, read.size)
    start = 0 if byte_start == 0 else (length if end is None else end) - len(text)
    return TextPart(_shown(text), start, length, byte_start, byte_end)


def _first_characters(text: str, limit: int) -> str:
    """At most ``limit`` characters from the start of ``text``, ending after its
    last space or line break in their last tenth, if there is one there."""
    if len(text) <= limit:
        return text
    text = text[:limit]
    floor = limit - limit // 10
    cut = max(text.rfind(" ", floor), text.rfind("\n", floor))
    return text if cut < 0 else text[: cut + 1]


def _last_characters(text: str, limit: int) -> str:
    """At most ``limit`` characters from the end of ``text``, beginning after its
    first space or line break in their first tenth, if there is one there."""
    if len(text) <= limit:
        return text
    text = text[-limit:]
    ceiling = limit // 10
    found = [at for at in (text.find(" ", 0, ceiling), text.find("\n", 0, ceiling)) if at >= 0]
    return text if not found else text[min(found) + 1 :]


def _length(
    ws: Workspace, field: TextField, identifier: str, text: str, byte_start: int, size: int
) -> int:
    """The whole text's length in characters, given a part ``text`` of it that
    begins at byte ``byte_start`` of ``size``."""
    if byte_start == 0 and _utf8_size(text) >= size:
        return len(text)  # the part is the whole text
    counted = corpus.text_characters(ws, field, identifier)
    return len(text) if counted is None else counted


def _inside_character(data: bytes) -> int:
    """How many bytes at the start of ``data`` continue a character begun before it."""
    return min(len(data) - len(data.lstrip(_CONTINUATION_BYTES)), MAX_UTF8 - 1)


def _decode(data: bytes, final: bool) -> str:
    """``data`` as text; unless ``final``, a character cut off at its end is left out."""
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    return str(decoder.decode(data, final))


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogateescape"))


def _shown(text: str) -> str:
    return text.translate(_NOT_UTF8)
