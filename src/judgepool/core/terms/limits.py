"""The bounds judgepool puts on the numbers it is given, in one place.

Every number a user or a file gives is read with the one grammar of
`judgepool.core.terms.tokens` and then checked against a bound here, so that a
number too large for what it sizes is refused with a message naming the bound,
rather than failing later (an overflow in numpy or SQLite, gigabytes
allocated, an infinite gain):

- grades, the scale's bounds and ``relevant_from`` lie within
  ``-GRADE_LIMIT..GRADE_LIMIT``: the gain table has one entry per grade of the
  scale, and exponential gain ``2^g - 1`` stays a finite double up to g = 1023;
- ``k`` (and a pool's depth) lie within ``1..MAX_K``: deeper than any run
  judgepool is used with, small enough for every array that k sizes;
- ranks are 64-bit integers, as the fast reader, the run snapshot and SQLite
  store them: a rank outside that range is refused by every reader alike.
"""

from __future__ import annotations

from typing import Final

from judgepool.core.terms.tokens import parse_int

GRADE_LIMIT: Final = 1000
MAX_K: Final = 1_000_000
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

NOT_AN_INTEGER: Final = "is not an integer (ASCII digits, with an optional sign)"


def bounded_int(text: str, low: int, high: int) -> int:
    """The integer ``text`` (the grammar of `tokens.parse_int`) if it lies within
    ``low..high``; else ValueError, whose message completes "<what> '<text>' …"."""
    try:
        value = parse_int(text)
    except ValueError:
        # The grammar matched but int() refuses more than 4300 digits: far
        # outside any bound here.
        raise ValueError(f"is outside {low}..{high}") from None
    if value is None:
        raise ValueError(NOT_AN_INTEGER)
    if not low <= value <= high:
        raise ValueError(f"is outside {low}..{high}")
    return value
