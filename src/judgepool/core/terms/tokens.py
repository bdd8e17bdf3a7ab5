"""What judgepool accepts as an ID, a name and a number: one grammar everywhere.

Every place where an ID, a name or a number enters (file readers, ``judge``,
command-line options, the app) asks this module, so a value accepted in one
place is never refused, or read differently, in another.

- An **ID** (query or document) must be a token the TREC formats can carry:
  non-empty, no whitespace of any kind (a space or newline would split a qrels
  line on export), no control or format character (C0, DEL, C1, bidi
  overrides, zero-width marks, a byte order mark: they act on a terminal or
  hide in plain sight), no lone surrogate (what a non-UTF-8 byte in argv
  becomes), and not starting with ``#`` (a line starting with it is a comment).
- A **name** (annotator, run, pool) is text for people: spaces inside are
  fine, but not around it, and never a control or format character. Names
  starting with ``import:`` or ``model:`` are reserved for provenance (see
  `reserved_name`).
- A **number** is ASCII only: ``parse_int`` takes an optional sign and ASCII
  digits; ``parse_decimal`` a finite decimal with an optional exponent. Full
  width digits (``１``), Arabic-Indic digits and ``1_0`` are refused
  everywhere, though Python's ``int()`` and ``float()`` take them.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Final

# Unicode categories never allowed in IDs or names: control, format (bidi
# overrides, zero-width marks, BOM, soft hyphen) and surrogates.
_FORBIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs"})
RESERVED_PREFIXES: Final = ("import:", "model:")
_DECIMAL: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER: Final = re.compile(r"[+-]?[0-9]+")


def _bad_character(text: str, *, space_allowed: bool) -> str | None:
    """A description of the first character not allowed, or None."""
    for char in text:
        if char == " " and space_allowed:
            continue
        if char.isspace() or unicodedata.category(char) in _FORBIDDEN_CATEGORIES:
            return f"U+{ord(char):04X}" + (" (a space)" if char == " " else "")
    return None


def id_problem(text: str) -> str | None:
    """Why ``text`` cannot be a query or document ID, or None if it can."""
    if not text:
        return "it is empty"
    bad = _bad_character(text, space_allowed=False)
    if bad is not None:
        return (
            f"it holds the character {bad}; IDs are tokens without whitespace or control characters"
        )
    if text.startswith("#"):
        return "it starts with '#', which marks a comment line in TREC files"
    return None


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a name (annotator, run, pool), or None if it can."""
    if not text:
        return "it is empty"
    if text != text.strip(" "):
        return "it has spaces around it"
    bad = _bad_character(text, space_allowed=True)
    if bad is not None:
        return f"it holds the character {bad}; names cannot hold control characters"
    return None


def reserved_name(text: str) -> bool:
    """True for names that would pass for provenance (``import:…``, ``model:…``)."""
    return text.startswith(RESERVED_PREFIXES)


def parse_int(text: str) -> int | None:
    """An integer written plainly (optional sign, ASCII digits), else None."""
    return int(text) if _INTEGER.fullmatch(text) else None


def parse_decimal(text: str) -> float | None:
    """A finite decimal number in ASCII (``-1.5``, ``.5``, ``2e-3``), else None.

    NaN, infinities and numbers too large for a double are refused."""
    if not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None
