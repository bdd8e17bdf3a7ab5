"""Readable text: mojibake repaired for display, with ftfy.

MS MARCO passages were decoded with the wrong encoding before they were
published: ``company’s`` is stored as ``companyâ\\x80\\x99s``. ftfy undoes such
double decoding. Only the encoding is repaired: quotes stay curly, HTML
entities, terminal escapes and control characters stay as they are (the app
shows those literally), and nothing is normalised, so a reader sees what the
document says. The stored text is never changed: this is for display only.
"""

from __future__ import annotations

import re
from typing import Final

import ftfy

_ENCODING_ONLY: Final = ftfy.TextFixerConfig(
    unescape_html=False,
    remove_terminal_escapes=False,
    uncurl_quotes=False,
    fix_latin_ligatures=False,
    fix_character_width=False,
    fix_line_breaks=False,
    remove_control_chars=False,
    normalization=None,
    explain=False,
)


# A C1 control that does not follow a character UTF-8 mojibake is made of (a
# lead byte read as latin-1, U+00C2..U+00F4, or a continuation, U+0080..U+00BF)
# cannot be part of mojibake: it is a control (an 8-bit CSI, \x9b), and the
# app shows it as an escape. ftfy would "repair" it into the windows-1252
# character it would be ('›'), so the text is fixed around it, piece by piece.
_LONE_C1: Final = re.compile("(?<![\u00c2-\u00f4\u0080-\u00bf])([\u0080-\u009f])")


def readable(text: str) -> str:
    """``text`` with its mojibake repaired (the same string when there is none)."""
    if text.isascii():  # ASCII holds no mojibake: the common case costs nothing
        return text
    pieces = _LONE_C1.split(text)  # odd indices: the lone controls, kept
    return "".join(
        piece if index % 2 else ftfy.fix_text(piece, _ENCODING_ONLY)
        for index, piece in enumerate(pieces)
    )
