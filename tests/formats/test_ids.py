"""The readers' fast ways to the ID grammar give `id_problem`'s answer."""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgepool.core.terms.tokens import id_problem
from judgepool.formats.ids import (
    FORBIDDEN_RANGES,
    has_forbidden_utf8,
    id_error,
    ids_may_have_problems,
)


def test_every_code_point_id_problem_refuses_is_in_the_forbidden_ranges() -> None:
    # Fails when a newer Unicode (a newer Python) adds a format character: the
    # ranges must then grow, or the fast reader would let it through.
    listed = {code for low, high in FORBIDDEN_RANGES for code in range(low, high + 1)}
    missing = [
        f"U+{code:04X}"
        for code in range(0x80, sys.maxunicode + 1)
        if not 0xD800 <= code <= 0xDFFF
        and id_problem("x" + chr(code)) is not None
        and code not in listed
    ]
    assert missing == []


def _utf8(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)


def test_the_utf8_search_finds_every_forbidden_code_point_and_nothing_else() -> None:
    for low, high in FORBIDDEN_RANGES:
        for code in range(low, high + 1):
            for text in (chr(code), "ab" + chr(code), chr(code) + "文", "é" + chr(code) + "c"):
                assert has_forbidden_utf8(_utf8(text)), hex(code)
    assert has_forbidden_utf8(_utf8("a\ud800"))  # an encoded surrogate
    # every other code point, each alone and among others: nothing found
    allowed = [
        chr(code)
        for code in range(0x80, sys.maxunicode + 1)
        if not 0xD800 <= code <= 0xDFFF
        and not any(low <= code <= high for low, high in FORBIDDEN_RANGES)
    ]
    assert not has_forbidden_utf8(_utf8("".join(allowed)))
    for text in ("é", "–", "文書", "\u2010", "\u00ae", "\U0001f600", "\u0700", "a\u00bfz"):
        assert not has_forbidden_utf8(_utf8(text)), text


def test_the_ascii_shortcut_agrees_with_id_problem() -> None:
    singles = [chr(code) for code in range(128)]
    for text in singles + [a + b for a in singles for b in singles] + ["", "#", "a#", "#a"]:
        expected = id_problem(text)
        got = id_error("query", text)
        assert (got is None) == (expected is None), repr(text)
        if expected is not None:
            assert got == f"query ID {text!r} cannot be used: {expected}"


_CHARACTERS = st.one_of(
    st.sampled_from([*"ab1#-_.:/é文", "\x00", "\x1b", "\x7f", "\x85", "\u00a0", "\u202e"]),
    st.characters(blacklist_categories=("Cs",)),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(_CHARACTERS, min_size=0, max_size=6), min_size=1, max_size=8))
def test_a_column_is_flagged_whenever_one_of_its_ids_has_a_problem(ids: list[str]) -> None:
    column = pa.array(ids, pa.string())
    if any(id_problem(text) is not None for text in ids):
        assert ids_may_have_problems(column)
    for offset in range(len(ids)):  # slices: the bytes of the slice only
        part = column.slice(offset, 1)
        if ids_may_have_problems(part):
            continue
        assert id_problem(ids[offset]) is None


@pytest.mark.parametrize("large", [False, True])
def test_clean_columns_pass(large: bool) -> None:
    column = pa.array(["q1", "d-2", "é", "文書", "http://x/a#b"], pa.string())
    if large:
        column = column.cast(pa.large_string())
    assert not ids_may_have_problems(column)
    assert ids_may_have_problems(pa.array(["q1", "#d"], pa.string()))
    assert not ids_may_have_problems(pa.array(["q1", "#d"], pa.string()), comment_mark=False)
