"""Names that look alike: a skeleton in the manner of Unicode TR39 (section 4,
"Confusable Detection"), for the scripts annotator names are written in here.

Two names are confusable when their skeletons are equal: ``alicе`` with a
Cyrillic ``е`` (U+0435) and ``alice`` both have the skeleton ``alice``, though
they are different names to the workspace. TR39's skeleton is: decompose
(NFD), replace each character by its prototype from the Unicode consortium's
table of confusables, decompose again. The full table has some 6,000 rows over
every script; this one is written here for the letters that pass for Latin
ones in Cyrillic and Greek, and the lookalikes among Latin letters and
digits themselves (``I``, ``1``, ``|`` and ``l``; ``0`` and ``O``; ``rn`` and
``m``), each mapped to the Latin text it passes for, as TR39's table maps it
(letters whose lookalike is no plain Latin letter, such as Cyrillic ``м``,
are left out). The first decomposition is NFKD rather than
NFD, so full-width and mathematical letters (``ａ``, ``𝐚``) fall to their plain
letters, as the full table would take them. Case is kept, as in TR39:
``Alice`` and ``alice`` look different and are different names. Accents are
kept too (``é`` is not ``e``).

No package was taken for this: the ones on PyPI that carry the table either
do not compute TR39's skeleton (``confusable-homoglyphs`` flags characters of
mixed scripts; ``confusables`` matches with a regular expression) or are new
and little used; the few dozen rows that matter here are kept here instead.
"""

from __future__ import annotations

import unicodedata
from typing import Final

# Each character that passes for Latin, with the Latin text it passes for
# (TR39's prototype): Cyrillic, then Greek, then Latin and digits.
_PROTOTYPES: Final[dict[str, str]] = {
    # Cyrillic small letters
    "а": "a",  # U+0430 A
    "е": "e",  # U+0435 IE
    "һ": "h",  # U+04BB SHHA
    "і": "i",  # U+0456 BYELORUSSIAN-UKRAINIAN I
    "ј": "j",  # U+0458 JE
    "о": "o",  # U+043E O
    "р": "p",  # U+0440 ER
    "с": "c",  # U+0441 ES
    "у": "y",  # U+0443 U
    "х": "x",  # U+0445 HA
    "ѕ": "s",  # U+0455 DZE
    "ԁ": "d",  # U+0501 KOMI DE
    "ԛ": "q",  # U+051B QA
    "ԝ": "w",  # U+051D WE
    "ӏ": "l",  # U+04CF PALOCHKA
    # Cyrillic capital letters
    "А": "A",
    "В": "B",
    "Е": "E",
    "Ѕ": "S",
    "І": "l",  # as Latin I: TR39 takes l for both
    "Ј": "J",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "У": "Y",
    "Х": "X",
    "Ԛ": "Q",
    "Ԝ": "W",
    "Ӏ": "l",  # PALOCHKA
    "Һ": "h",
    # Greek small letters
    "α": "a",
    "ο": "o",
    "ν": "v",
    "ρ": "p",
    "ι": "i",
    "υ": "u",
    "γ": "y",
    "χ": "x",
    "ϲ": "c",  # lunate sigma
    "ϳ": "j",  # yot
    # Greek capital letters
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "l",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    "Ϲ": "C",
    # Latin lookalikes of Latin letters, and digits
    "ı": "i",  # dotless i
    "ɩ": "i",  # iota
    "ɑ": "a",  # alpha
    "ɡ": "g",  # script g
    "I": "l",
    "1": "l",
    "|": "l",
    "ǀ": "l",  # dental click
    "0": "O",
    "m": "rn",
}
# TR39 takes "rn" as m's prototype: m becomes rn, and rn stays rn.


def skeleton(text: str) -> str:
    """TR39's skeleton of ``text`` over this module's table: equal skeletons
    mean the two texts can pass for each other."""
    decomposed = unicodedata.normalize("NFKD", text)
    mapped = "".join(_PROTOTYPES.get(char, char) for char in decomposed)
    return unicodedata.normalize("NFD", mapped)


def confusable(one: str, other: str) -> bool:
    """Whether two different texts look alike (the same skeleton)."""
    return one != other and skeleton(one) == skeleton(other)


def lookalike_characters(text: str) -> list[str]:
    """The characters of ``text`` that pass for others, named (``U+0435
    CYRILLIC SMALL LETTER IE``): what a message shows, since on screen
    they look like the letters they stand in for."""
    named = []
    for char in dict.fromkeys(text):
        if char.isascii() and char not in "I1|0m":
            continue
        if skeleton(char) != char or unicodedata.normalize("NFKD", char) != char:
            named.append(f"U+{ord(char):04X} {unicodedata.name(char, 'UNNAMED')}")
    return named
