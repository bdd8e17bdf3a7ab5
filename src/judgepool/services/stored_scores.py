"""Storing the evaluations ``judgepool score --workspace`` computed, unless the
workspace is read-only: then none is stored, and the scores stand all the same."""

from __future__ import annotations

from collections.abc import Sequence

from judgepool.services.scoring import ScoredRun
from judgepool.services.workspace import Workspace, WorkspaceReadOnly, save_evaluation


def store_evaluations(
    ws: Workspace, results: Sequence[ScoredRun], kinds: Sequence[str], consensus: str
) -> WorkspaceReadOnly | None:
    """Store each result (``kinds``: "stored" for a run of the workspace, "file"
    for a run file); on a read-only workspace store none and return why."""
    try:
        if ws.read_only:
            raise WorkspaceReadOnly(ws.path)
        for result, kind in zip(results, kinds, strict=True):
            save_evaluation(
                ws,
                result.evaluation,
                qrels_digest=result.qrels_digest,
                run_digest=result.run_digest,
                consensus=consensus,
                run_name=result.run if kind == "stored" else None,
                source=result.run if kind == "file" else None,
                implementation=result.engine,
            )
    except WorkspaceReadOnly as refused:
        return refused
    return None
