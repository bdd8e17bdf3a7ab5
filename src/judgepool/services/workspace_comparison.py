"""Every stored run of a workspace compared with every other, as
``judgepool compare --workspace`` compares them.

`compare_workspace` runs `judgepool.services.verdicts.compare_runs` on the
stored runs and the workspace's judgments (its consensus rule), under a
contract read as the verdicts read it (`verdict_contract`). The app's
verdict views call it in a thread worker, on a borrowed read connection.
"""

from __future__ import annotations

from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.terms.contract import Contract
from judgepool.services.judgments_source import JudgmentsSource, workspace_source
from judgepool.services.runs.sources import run_names, stored_source
from judgepool.services.verdicts import ComparedRuns, compare_runs, verdict_contract
from judgepool.services.workspace import Workspace

# the app's views show p-values as the command line does by default
PERMUTATIONS = 10_000


def compare_workspace(
    ws: Workspace,
    contract: Contract,
    *,
    judged: JudgmentsSource | None = None,
    on_progress: StageCallback = no_stage,
) -> ComparedRuns | None:
    """Every pair of the workspace's runs compared under ``contract`` (see
    `verdict_contract`), on ``judged`` (the workspace's judgments under its
    consensus rule, read now when None: the scores screen gives those of its
    board); None when the workspace holds fewer than two runs."""
    names = run_names(ws)
    if len(names) < 2:
        return None
    if judged is None:
        on_progress("reading judgments")
        judged = workspace_source(ws)
    sources = [stored_source(ws, name) for name in names]
    contract, _ = verdict_contract(contract)
    return compare_runs(
        sources, judged, contract, permutations=PERMUTATIONS, on_progress=on_progress
    )
