"""Bulk inserts: many rows per INSERT statement.

Python's sqlite3 binds parameters one statement at a time; with one row per
statement that per-statement work dominates a bulk import. Binding a flat
list of parameters for ``batch`` rows at once costs a fraction per row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Final

# Rows per statement: x (up to 8) parameters stays far below SQLite's limit of 32766.
BATCH: Final = 100


def insert_flat(
    conn: sqlite3.Connection,
    head: str,
    row: str,
    width: int,
    flat: Sequence[Any],
    batch: int = BATCH,
) -> None:
    """Insert rows given as one flat parameter sequence (``width`` values per row).

    ``head`` is ``INSERT INTO table (columns) VALUES`` and ``row`` one row's
    placeholders, e.g. ``(?, ?, 0, ?)``: constants can sit in it.
    """
    if len(flat) % width:
        raise ValueError(f"{len(flat)} parameters is not a whole number of {width}-value rows")
    step = batch * width
    whole = len(flat) - len(flat) % step
    many = f"{head} {', '.join([row] * batch)}"
    conn.executemany(many, (flat[i : i + step] for i in range(0, whole, step)))
    conn.executemany(f"{head} {row}", (flat[i : i + width] for i in range(whole, len(flat), width)))
