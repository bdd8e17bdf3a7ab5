"""Text cells a spreadsheet would evaluate, made inert for TSV and CSV output.

A spreadsheet that opens a TSV or CSV file evaluates a cell that starts with
``=``, ``+``, ``-`` or ``@`` as a formula (``=HYPERLINK(...)`` becomes a live
link, DDE formulas can run commands), and a leading tab or carriage return can
hide such a start. OWASP's advice on CSV injection is to prefix those cells
with a single quote, which every spreadsheet shows as text. `inert_cell` does
that to one cell of text from data (IDs, names, notes); numbers the program
writes (a grade of -1) are not text and are written as they are.

A cell that starts with a single quote gets one more, so that one rule reads
every cell back: drop one leading quote if there is one (`cell_text`).
"""

from __future__ import annotations

from typing import Final

FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")
QUOTE: Final = "'"


def inert_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it without evaluating it."""
    return QUOTE + text if text.startswith((*FORMULA_STARTS, QUOTE)) else text


def cell_text(cell: str) -> str:
    """The text an `inert_cell` was made from."""
    return cell[1:] if cell.startswith(QUOTE) else cell
