"""Cells for the audit and scores screens: numbers, flags and data text as Rich `Text`.

A `DataTable` parses a plain string cell as markup, so every cell made here is
a `Text`: keys (query and document IDs, run names: a run is named by its name
as a document by its ID) go through `data`, shown as IDs
(`judgepool.display.shown_id`: every character as it is, no two alike); text
to read through `label_cell` (repaired, on one line). Numbers use the command
line's format (4 decimals, ``-`` when undefined) so the app and ``judgepool
score`` print the same digits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets import DataTable

from judgepool.display import literal
from judgepool.tui.widgets.highlight import id_text, label_text, literal_text

PLACES = 4


def number(value: float | None, places: int = PLACES, style: str = "") -> Text:
    """A number right-aligned, ``-`` when it is not defined (left out of the mean)."""
    shown = "-" if value is None else f"{value:.{places}f}"
    return Text(shown, style=style if value is not None else "dim", justify="right")


def signed(value: float | None, places: int = PLACES) -> Text:
    """A difference with its sign, green above zero and red below."""
    if value is None:
        return Text("-", style="dim", justify="right")
    style = "green" if value > 0 else "red" if value < 0 else ""
    return Text(f"{value:+.{places}f}", style=style, justify="right")


def count(value: int, warn: bool = True) -> Text:
    """A count, in warning colour when non-zero and ``warn``."""
    return Text(str(value), style="yellow" if warn and value else "", justify="right")


def flag(value: bool, label: str = "yes") -> Text:
    return Text(label if value else "", style="yellow" if value else "")


def grade(value: int | None) -> Text:
    """A grade, or ``unjudged`` in warning colour."""
    if value is None:
        return Text("unjudged", style="bold red")
    return Text(str(value), justify="right")


def data(text: str, style: str = "") -> Text:
    """An ID or a run's name in a cell, cut with an ellipsis when too long
    (see `judgepool.tui.widgets.highlight.id_text`)."""
    return _cell(id_text(text, style))


def label_cell(text: str, style: str = "") -> Text:
    """Text to read in a cell (the start of a document), on one line and
    repaired, cut with an ellipsis (see `judgepool.tui.widgets.highlight.label_text`)."""
    return _cell(label_text(text, style))


def _cell(shown: Text) -> Text:
    shown.no_wrap = True
    shown.overflow = "ellipsis"
    return shown


def plain(text: str, style: str = "") -> Text:
    """Fixed text of ours (labels, messages) that may contain data: never markup."""
    return literal_text(text, style)


def message(text: str, style: str = "") -> Text:
    """A message of several lines (an error naming IDs): each line shown
    literally, the line breaks kept."""
    return Text("\n".join(literal(line) for line in text.splitlines()), style=style)


# The widest a column grows; longer data is cut with an ellipsis.
MAX_COLUMN_WIDTH = 40


def fill_table(
    table: DataTable[Text],
    columns: Sequence[tuple[str, Text]],
    rows: Iterable[tuple[str, Sequence[Text]]],
    *,
    height: int = 1,
) -> None:
    """Replace a table's columns and rows, each column as wide as its widest
    cell (a cell of several lines, in rows of ``height`` lines: its widest line).

    The widths are computed here rather than left to the table: a table
    refilled while hidden under a dialog may otherwise render (and cache)
    cells at the width of their header before it measures them.
    """
    materialised = [(key, list(cells)) for key, cells in rows]
    widths = [_width(label) for _, label in columns]
    for _, cells in materialised:
        for index, cell in enumerate(cells):
            widths[index] = max(widths[index], _width(cell))
    table.clear(columns=True)
    for (key, label), width in zip(columns, widths, strict=True):
        table.add_column(label, key=key, width=min(width, MAX_COLUMN_WIDTH))
    for key, cells in materialised:
        table.add_row(*cells, key=key, height=height)


def _width(cell: Text) -> int:
    """The cells the widest line of ``cell`` takes."""
    if "\n" not in cell.plain:
        return cell.cell_len  # nearly every cell: no split for a table of many rows
    return max((line.cell_len for line in cell.split("\n")), default=0)
