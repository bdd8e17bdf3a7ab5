"""Showing text from data in a terminal: one function per kind of text.

Data may hold anything: terminal escapes, invisible characters, mojibake,
characters a terminal draws at a width nobody can predict. Every view of the
app and every line of the command line shows data text through one of these:

- `shown_id`: a query or document ID. Never repaired (an ID is a key), and
  no two IDs look alike: every character below that is not shown as itself
  is a visible escape, and a backslash is doubled, so an escape is never
  mistaken for typed text (``d1\\ufe0f`` is a document whose ID ends in a
  variation selector; ``d1\\\\ufe0f`` one whose ID has a backslash).
- `literal`: a name (annotator, run, label), a message, a path: as `shown_id`,
  the backslash kept as it is.
- `reading`: text to read (a document, a query, a narrative, a note):
  repaired (`judgepool.core.readable`: MS MARCO's mojibake undone), the
  characters that draw nothing dropped, the rest as in `literal`, line
  breaks kept.
- `one_line`: a label made from such text (a title, the start of a
  document in a list): as `reading`, every run of whitespace one space.
- `literal_lines`: `literal` with its line breaks: text to read, shown raw.

What a character becomes:

1. Characters that act on a terminal or cannot be written to one: C0
   controls, DEL and the C1 range (ESC becomes ``\\x1b``), the line and
   paragraph separators, lone surrogates (what a non-UTF-8 byte in a file
   name becomes in Python, ``\\udc80``). Always a visible escape.
2. Characters that draw nothing (Unicode's Default_Ignorable_Code_Point):
   zero-width spaces and joiners, the word joiner, the byte order mark, the
   soft hyphen, the bidirectional marks, embeddings, overrides and isolates,
   variation selectors, the Hangul fillers, tags. Dropped from text to read:
   they carry no words, and shown as an escape they break the words they sit
   in (``visceral \\u200e(comparative``). Dropping the bidi controls also
   leaves nothing that could reorder the text in a terminal that applies
   them: it shows in the order it is stored. In an ID, a name or raw text
   they are escapes: ``d1`` and ``d1`` with a zero-width character must
   never look alike.
3. Characters whose width in a terminal is uncertain: where the width the
   app lays text out with (Rich's `cell_len`) differs from what the Unicode
   data says a terminal gives it. Spacing combining marks (Unicode category
   Mc: the Tamil vowel signs ா ி ு ூ ெ ே ை ொ ோ ௌ ௗ, and those of every Indic
   script) are 0 cells for Rich, 1 for glibc's ``wcwidth`` and so for tmux,
   xterm.js (the browser of ``judgepool serve``), VTE and most terminals, 0
   for kitty, foot or WezTerm: a line of Tamil drawn with them pushes the
   panel's right border one cell out per mark, and nothing can say which
   way. So too characters newer than this Python's Unicode data, symbols
   that became wide in a later Unicode version (U+2630 ☰) and the emoji
   skin-tone modifiers. Always a visible escape, whose width every terminal
   agrees on. East Asian ambiguous characters (``·``, ``é``) are taken as
   narrow, as every terminal does by default.
4. Everything else is shown as itself, markup included: the app renders data
   through `rich.text.Text`, never through markup strings.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from enum import Enum
from typing import Final

from judgepool.core.readable import readable

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, 15.1).
_DRAWS_NOTHING: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
# C0 and DEL: the only ASCII that is not shown as itself.
_ASCII_CONTROL: Final = re.compile("[\x00-\x1f\x7f]")
_ASCII_CONTROL_BUT_LF: Final = re.compile("[\x00-\x09\x0b-\x1f\x7f]")
_WHITESPACE: Final = re.compile(r"\s+")  # Unicode's whitespace, as str.split sees it


class _Shown(Enum):
    """What a character becomes (see the module's docstring)."""

    ITSELF = 1
    NOTHING = 2  # dropped from text to read, an escape elsewhere
    ESCAPE = 3


def _escape(char: str) -> str:
    """``char`` as a visible escape: ``\\x1b``, ``\\u200e``, ``\\U0001f3fd``."""
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unicode_width(char: str) -> int:
    """The cells the Unicode data of this Python gives ``char`` in a terminal."""
    code = ord(char)
    if 0x1160 <= code <= 0x11FF or 0xD7B0 <= code <= 0xD7FF:
        return 0  # Hangul vowels and finals join the syllable's first cell
    if unicodedata.category(char) in ("Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


@functools.lru_cache(maxsize=16384)
def _shown_as(char: str) -> _Shown:
    """What ``char`` becomes on screen (remembered: a text holds few distinct characters)."""
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF:
        return _Shown.ESCAPE
    if any(low <= code <= high for low, high in _DRAWS_NOTHING):
        return _Shown.NOTHING
    if unicodedata.category(char) in ("Cf", "Zl", "Zp", "Cn"):
        # format characters that draw something, line separators, and
        # characters newer than this Python's Unicode data: their width too
        # depends on how new the terminal's tables are
        return _Shown.ESCAPE
    # Rich is imported here, not with the module: the command line imports
    # this module at every start and only needs it for text beyond ASCII.
    from rich.cells import get_character_cell_size

    if get_character_cell_size(char) != _unicode_width(char):
        return _Shown.ESCAPE
    return _Shown.ITSELF


def _show(text: str, *, drop_invisible: bool, line_breaks: bool) -> str:
    """``text`` with every character that is not shown as itself dropped or escaped."""
    if line_breaks:
        text = text.replace("\r\n", "\n")
    if text.isascii():  # the common case: only controls to escape
        control = _ASCII_CONTROL_BUT_LF if line_breaks else _ASCII_CONTROL
        return control.sub(lambda match: _escape(match.group()), text)
    table: dict[int, str | None] = {}
    for char in set(text):
        shown = _shown_as(char)
        if shown is _Shown.ITSELF or (char == "\n" and line_breaks):
            continue
        table[ord(char)] = None if shown is _Shown.NOTHING and drop_invisible else _escape(char)
    return text.translate(table) if table else text


def _show_visible(text: str) -> str:
    """``text`` without the characters that draw nothing (the rest untouched)."""
    if text.isascii():
        return text
    table = {ord(char): None for char in set(text) if _shown_as(char) is _Shown.NOTHING}
    return text.translate(table) if table else text


def literal(text: str) -> str:
    """A name, message or path: every character that acts on a terminal, draws
    nothing or has an uncertain width shown as a visible escape."""
    return _show(text, drop_invisible=False, line_breaks=False)


def literal_lines(text: str) -> str:
    """`literal`, but a line break (LF or CR LF) stays a line break: text to
    read shown raw, where a line break only starts a new line."""
    return _show(text, drop_invisible=False, line_breaks=True)


def shown_id(text: str) -> str:
    """A query or document ID: `literal`, with a backslash doubled, so that
    distinct IDs always look distinct. Never repaired."""
    return literal(text.replace("\\", "\\\\"))


def reading(text: str) -> str:
    """Text to read: repaired for reading, what draws nothing dropped, the rest
    as in `literal`, line breaks kept."""
    return _show(readable(text), drop_invisible=True, line_breaks=True)


def one_line(text: str) -> str:
    """A label made from text to read: as `reading`, each run of whitespace
    (line breaks and tabs too) one space."""
    return literal(_WHITESPACE.sub(" ", _show_visible(readable(text))))


def quoted(text: str) -> str:
    """``text`` in single quotes for a message, shown literally (see `literal`).

    A quote or backslash in the text is escaped too, so where the quoted part
    ends is never in doubt."""
    return "'" + literal(text.replace("\\", "\\\\").replace("'", "\\'")) + "'"
