"""The cells a spreadsheet would evaluate are made inert with one leading quote
(OWASP's advice on CSV injection), and one rule reads every cell back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from judgepool.formats.spreadsheet_cells import cell_text, inert_cell


def test_formula_starts_get_a_quote_and_nothing_else_does() -> None:
    for text in ('=HYPERLINK("http://x","y")', "+1", "-1", "@SUM(A1)", "\tx", "\rx", "'x"):
        assert inert_cell(text) == "'" + text
    for text in ("", "q1", "plain = fine", " =not first", "1-2", "£5", "＝full width"):
        assert inert_cell(text) == text


@given(st.text())
def test_every_cell_reads_back(text: str) -> None:
    assert cell_text(inert_cell(text)) == text
    assert not inert_cell(text).startswith(("=", "+", "-", "@", "\t", "\r"))
