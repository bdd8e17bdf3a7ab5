"""The two ways long work reports progress, named apart.

- `StageCallback` is called with a short description of the stage now under
  way ("reading bm25.trec", "scoring bm25"): for work done in a few long
  steps (reading and scoring a run, auditing, building the demo).
- `LinesCallback` is called with (done, total) counted in lines: for work that
  goes line by line and can say how far it is (writing an import's rows).

`no_stage` is the stage callback that says nothing, the default where no one listens.
"""

from __future__ import annotations

from collections.abc import Callable

StageCallback = Callable[[str], None]
LinesCallback = Callable[[int, int], None]


def no_stage(_: str) -> None:
    """A `StageCallback` that ignores every stage."""
