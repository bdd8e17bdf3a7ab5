"""Text from data and users as the command line shows it: every character
that could act on a terminal, or cannot be written to one, as a visible escape."""

from __future__ import annotations

from judgepool.display import literal, quoted


def test_literal_shows_every_dangerous_character_as_an_escape() -> None:
    assert literal("a\x1b]0;t\x07b") == "a\\x1b]0;t\\x07b"
    assert literal("x\x7f\x85\x9b") == "x\\x7f\\x85\\x9b"
    assert literal("\u202eevil\u2066\u200f") == "\\u202eevil\\u2066\\u200f"
    assert literal("bad\udc80byte") == "bad\\udc80byte"
    assert (
        literal("d\u00e9j\u00e0 \u6587\u66f8 \U0001f600")
        == "d\u00e9j\u00e0 \u6587\u66f8 \U0001f600"
    )
    # whatever goes in, the result can be written as UTF-8 (no lone surrogate left)
    every = "".join(chr(c) for c in range(0x3000)) + "\ud800\udfff"
    literal(every).encode("utf-8")


def test_quoted_marks_where_a_name_ends() -> None:
    assert quoted("alice") == "'alice'"
    assert quoted("o'brien") == "'o\\'brien'"
    assert quoted("a\\x1b") == "'a\\\\x1b'"  # a backslash typed, not an escape
    assert quoted("a\x1b") == "'a\\x1b'"
    assert quoted("") == "''"
