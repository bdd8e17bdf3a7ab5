"""Showing text from data (IDs, queries, documents, names, paths) literally.

Data may hold anything, including terminal escape sequences. Before such text
reaches a terminal, every character that could act on it or cannot be
written to it is replaced by a visible escape, so it shows as characters and
never acts:

- C0 controls, DEL and the C1 range (ESC becomes ``\\x1b``): they move the
  cursor, clear the screen, set the window title;
- the bidirectional embedding, override and isolate marks (U+202E becomes
  ``\\u202e``): they reorder what follows, so text could show as something
  it is not;
- lone surrogates (what a non-UTF-8 byte in a file name or argv becomes in
  Python, ``\\udc80``): no terminal encoding can write them.

`quoted` is the same for a name or ID set in a message, in quotes. Rich
markup is a separate matter for the app, which renders data through
`rich.text.Text` and never through markup strings.
"""

from __future__ import annotations

import re
from typing import Final

# C0, DEL, C1; the bidi marks (ALM, LRM/RLM, embeddings and overrides,
# isolates); every surrogate code point (only lone ones exist in a str).
_UNSAFE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def literal(text: str) -> str:
    """``text`` with every control, bidi or surrogate character shown as a visible escape."""
    return _UNSAFE.sub(_escape, text)


def literal_lines(text: str) -> str:
    """`literal`, but a line break (LF or CR LF) stays a line break: for the
    text of documents and queries shown in a view of their own, where a line
    break only starts a new line and a passage should read as written."""
    return "\n".join(literal(line) for line in text.replace("\r\n", "\n").split("\n"))


def quoted(text: str) -> str:
    """``text`` in single quotes for a message, shown literally (see `literal`).

    A quote or backslash in the text is escaped too, so where the quoted part
    ends is never in doubt."""
    return "'" + literal(text.replace("\\", "\\\\").replace("'", "\\'")) + "'"
