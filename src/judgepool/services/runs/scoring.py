"""Scoring one run here, from a file or stored in a workspace: what compare,
holes, the app's scores and audit screens ask (``judgepool score`` reads its
runs through `parallel_runs.map_runs`, which reads with the same `read`).

Each is `passes.read` of the run, asked to score it (and to give the top k of
each judged query it returned, for `score_run_with_tops`); the result is a
`judgepool.core.scoring.scored_run.ScoredRun`: the evaluation with the digests that
trace it. Either engine gives the same numbers (`judgepool.core.terms.engines`;
tests hold the fast one to the reference). A run without a line is refused,
and so is a run the contract refuses (its `PolicyError`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.engines import Engine
from judgepool.services.runs.passes import Against, Wanted, read
from judgepool.services.runs.sources import RunSource

if TYPE_CHECKING:
    from judgepool.core.comparing.bounds import TopK
    from judgepool.services.judgments_source import JudgmentsSource


def score_run(
    source: RunSource,
    judged: JudgmentsSource,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> ScoredRun:
    """Read and score one run with ``engine``."""
    against = Against(judged, contract, engine)
    return read(against, source, Wanted(), on_progress=on_progress).scored_run()


def score_run_with_tops(
    source: RunSource,
    judged: JudgmentsSource,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> tuple[ScoredRun, dict[str, TopK]]:
    """`score_run`, and the run's top k of every judged query it returned
    (`judgepool.core.comparing.bounds.TopK`: what ``compare`` and ``holes`` read). Both
    engines give the same lists."""
    against = Against(judged, contract, engine)
    outcome = read(against, source, Wanted(tops=True), on_progress=on_progress)
    return outcome.scored_run(), outcome.tops
