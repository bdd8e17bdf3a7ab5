"""Text from data and users as the command line shows it: every character
that could act on a terminal, or cannot be written to one, as a visible escape."""

from __future__ import annotations

import pytest
import wcwidth
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from judgepool.display import literal, literal_lines, one_line, quoted, reading, shown_id


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


# -- the three kinds of text (judgepool.display) -----------------------------------

TAMIL = "தமிழ் நாடு கௌரவம் ஸ்ரீ க்ஷ"


def test_text_to_read_is_repaired_and_leaves_out_what_draws_nothing() -> None:
    # MS MARCO passage 7685383: its repair holds a LEFT-TO-RIGHT MARK, which
    # an escape would show in the middle of the words
    assert reading("visceral \u00e2\u0080\u008e(comparative") == "visceral (comparative"
    assert reading("vis\u00c2\u00b7cer\u00c2\u00b7al") == "vis·cer·al"
    assert reading("en\u200b.wikipedia\u200b.org \u202egnp.exe\u202c ❤\ufe0f") == (
        "en.wikipedia.org gnp.exe ❤"
    )
    assert reading("one\r\ntwo\x1b[2J\tthree\rfour") == "one\ntwo\\x1b[2J\\x09three\\x0dfour"
    # a label: the same, on one line
    assert one_line("  a\u200b\n\tb  \u2028 c") == " a b c"
    assert one_line("vis\u00c2\u00b7cer\u00c2\u00b7al\x1b") == "vis·cer·al\\x1b"


def test_names_ids_and_raw_text_show_what_draws_nothing_as_escapes() -> None:
    assert literal("d1\ufe0f \u3164 \u00ad \U000e0041") == "d1\\ufe0f \\u3164 \\xad \\U000e0041"
    assert literal_lines("a\u200e\nb") == "a\\u200e\nb"
    # an ID is never repaired: it is a key
    assert shown_id("vis\u00c2\u00b7cer") == "vis\u00c2\u00b7cer"


def test_no_two_ids_look_alike() -> None:
    ids = ["look-d1", "look-d1\ufe0f", "look-d1\u3164", "look-d1\u034f", "look-d1\\ufe0f"]
    assert len({shown_id(doc) for doc in ids}) == len(ids)
    assert shown_id("look-d1\\ufe0f") == "look-d1\\\\ufe0f"  # a backslash typed: doubled


@given(st.lists(st.sampled_from([*"\\uxfe01aé", "\ufe0f", "\u200b", "\x1b", "\U0001f3fd"])))
def test_distinct_ids_are_shown_distinct(chars: list[str]) -> None:
    # every escape starts with a backslash and a typed backslash is doubled,
    # so the shown ID can be read back: shown_id is one to one
    text = "".join(chars)
    assert _read_back(shown_id(text)) == text


def _read_back(shown: str) -> str:
    """The ID ``shown`` stands for (the inverse of `shown_id`)."""
    out, at = [], 0
    while at < len(shown):
        if shown[at] != "\\":
            out.append(shown[at])
            at += 1
            continue
        kind = shown[at + 1]
        if kind == "\\":
            out.append("\\")
            at += 2
            continue
        digits = {"x": 2, "u": 4, "U": 8}[kind]
        out.append(chr(int(shown[at + 2 : at + 2 + digits], 16)))
        at += 2 + digits
    return "".join(out)


def test_tamil_vowel_signs_are_escapes_and_the_rest_stays_tamil() -> None:
    # the spacing vowel signs (Mc) take no cell in Rich's layout and one in
    # glibc's wcwidth (tmux, xterm.js, VTE): shown, they moved the border
    assert literal(TAMIL) == "தம\\u0bbfழ் ந\\u0bbeட\\u0bc1 க\\u0bccரவம் ஸ்ரீ க்ஷ"
    assert cell_len(TAMIL) != wcwidth.wcswidth(TAMIL)
    assert cell_len(literal(TAMIL)) == wcwidth.wcswidth(literal(TAMIL))
    # wide and combining characters, emoji and right-to-left text are certain
    for text in ("漢字 ＡＢ 한국어", "😀🎉 👨👩", "café cafe\u0301", "שלום مرحبا", "ภาษาไทย"):
        assert literal(text) == text


@pytest.mark.slow
def test_every_character_shown_as_itself_is_laid_out_as_a_terminal_draws_it() -> None:
    """Over every code point: what the app shows as itself takes as many cells
    in Rich's layout as `wcwidth` (glibc's widths, measured on terminals by
    ucs-detect) says a terminal gives it after a letter."""
    # Regional indicators: one alone is 1 cell for Rich, 2 for wcwidth, and a
    # pair (a flag) 2 for both: kept. U+1171E became a spacing mark in
    # Unicode 16, after the Unicode data of the Pythons this runs on.
    kept_apart = {*range(0x1F1E6, 0x1F200), 0x1171E}
    # The widths are compared first and `literal` asked only where they
    # differ (1,523 code points): the same code points are found, in 5.8 s of
    # CPU rather than 9.3 s with `literal` asked of all 1.1 million first.
    wrong = [
        f"U+{code:04X}"
        for code in range(0x20, 0x110000)
        if not 0xD800 <= code <= 0xDFFF
        and code not in kept_apart
        and cell_len("a" + chr(code)) != wcwidth.wcswidth("a" + chr(code))
        and literal(chr(code)) == chr(code)
    ]
    assert wrong == []
