"""The consensus rules: how one grade per (query, document) is chosen when
annotators disagree.

When the annotators holding a grade for an item all give the same grade
(in particular when only one annotator graded it), that grade, under every
rule. Otherwise:

- ``latest``: the grade of the most recent event among the annotators'
  current grades (events are ordered by their ledger ID, which never goes back).
- ``median``: the median of the annotators' current grades. With an even
  count the two middle grades may differ; the lower one is taken (the "low
  median"): grades are integers, and the lower choice never makes a document
  look more relevant than half of its annotators said.
- ``adjudicated``: the grade of an annotator recorded as adjudicator
  overrides the others (the most recent, when several adjudicators graded
  it); a disagreement no adjudicator has settled is left out of the judged
  universe.

This module holds the rules' names and the arithmetic, importable without
loading SQLite (the command line builds its options from `CONSENSUS_RULES`
at start-up); `judgepool.store.ledger.consensus` reads the grades and applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

CONSENSUS_RULES: Final = ("latest", "median", "adjudicated")


def low_median(grades: Sequence[int]) -> int:
    """The median of integer grades; with an even count, the lower middle grade."""
    ordered = sorted(grades)
    return ordered[(len(ordered) - 1) // 2]
