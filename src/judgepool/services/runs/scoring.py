"""Scoring runs, from files or stored in a workspace: the use cases behind
``judgepool score``, compare and holes, and the app's scores screen.

A run is read from its `sources.RunSource` and scored against a
`judgepool.services.judgments_source.JudgmentsSource` by either engine
(`judgepool.core.engines`) along the one path every reading of a run takes
(`passes.read_run_pass`). The result is a `judgepool.core.scored_run.ScoredRun`:
the evaluation with the digests that trace it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgepool.core.contract import Contract
from judgepool.core.engines import Engine
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scored_run import ScoredRun
from judgepool.services.runs.passes import Wanted, read_run_pass
from judgepool.services.runs.sources import RunSource

if TYPE_CHECKING:
    from judgepool.core.bounds import TopK
    from judgepool.services.judgments_source import JudgmentsSource


def score_run(
    source: RunSource,
    judged: JudgmentsSource,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> ScoredRun:
    """Read and score one run with ``engine``.

    ``reference`` reads line by line and scores with the plain reference
    implementation; the default fast engine gives the same numbers (tests
    hold it to the reference) and is the one for large runs. A run without
    a line is refused, and so is a run the contract refuses (its `PolicyError`).
    """
    outcome = read_run_pass(
        source, judged.judgments, judged.digest, contract, Wanted(),
        engine=engine, on_progress=on_progress,
    )  # fmt: skip
    return outcome.scored_run()


def score_run_with_tops(
    source: RunSource,
    judged: JudgmentsSource,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> tuple[ScoredRun, dict[str, TopK]]:
    """`score_run`, and the run's top k of every judged query it returned
    (`judgepool.core.bounds.TopK`: what ``compare`` and ``holes`` read). Both
    engines give the same lists."""
    outcome = read_run_pass(
        source, judged.judgments, judged.digest, contract, Wanted(tops=True),
        engine=engine, on_progress=on_progress,
    )  # fmt: skip
    return outcome.scored_run(), outcome.tops
