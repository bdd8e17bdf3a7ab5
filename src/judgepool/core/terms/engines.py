"""The two engines that score and audit a run, by the names every layer uses.

``fast`` is vectorised, over a run's columns (`judgepool.core.fast`);
``reference`` is the plain implementation over its lines that the fast one is
tested against (`judgepool.core.scoring.aggregate`, `judgepool.core.auditing.audit`). Both give
the same numbers and reports; the name travels from ``--engine`` to the
`ScoredRun` that records which one computed a result.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

Engine = Literal["fast", "reference"]

# in the order ``--engine`` lists them
ENGINES: Final[tuple[Engine, ...]] = get_args(Engine)
