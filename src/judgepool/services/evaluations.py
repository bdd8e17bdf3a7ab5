"""Stored evaluations: keeping a score with everything needed to trace it (its
contract, consensus rule, digests and fingerprint), listing them, and saying
whether each is still current.

An evaluation is current while its ``qrels_digest`` is the digest of the
workspace's judgments under its consensus rule; once the judged universe
changes, it is stale, and its numbers no longer compare with a new score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.types import Evaluation
from judgepool.services.consensus import check_rule, split_digest, workspace_consensus
from judgepool.store.evaluations import (
    StoredEvaluation,
    get_stored,
    insert_evaluation,
    list_stored,
    per_query_records,
)
from judgepool.store.workspace import Workspace, WorkspaceReadOnly


def save_evaluation(
    ws: Workspace,
    evaluation: Evaluation,
    *,
    qrels_digest: str,
    run_digest: str,
    consensus: str,
    run_name: str | None = None,
    source: str | None = None,
    implementation: str = "reference",
) -> StoredEvaluation:
    """Store an evaluation with its contract, consensus rule, digests and
    fingerprint (computed here from the three), summary and per-query records."""
    check_rule(consensus)
    with ws.write() as conn:
        evaluation_id = insert_evaluation(
            conn,
            evaluation,
            run_name=run_name,
            source=source,
            consensus=consensus,
            qrels_digest=qrels_digest,
            run_digest=run_digest,
            implementation=implementation,
        )
    stored = get_stored(ws, evaluation_id)
    return replace(stored, current=_is_current(ws, consensus, qrels_digest))


def store_evaluations(
    ws: Workspace, results: Sequence[ScoredRun], kinds: Sequence[str], consensus: str
) -> WorkspaceReadOnly | None:
    """Store what ``judgepool score --workspace`` computed: each result
    (``kinds``: "stored" for a run of the workspace, "file" for a run file).
    On a read-only workspace none is stored, the scores stand all the same,
    and the refusal is returned to say why."""
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


def list_evaluations(ws: Workspace) -> list[StoredEvaluation]:
    """Every stored evaluation, oldest first, each with ``current``: whether its
    ``qrels_digest`` is still the digest of the workspace's judgments under
    its consensus rule (False: the judged universe has changed since)."""
    stored = list_stored(ws)
    # one consensus per rule and model counted, however many evaluations share it
    digests = {(s.consensus, split_digest(s.qrels_digest)[1]): "" for s in stored}
    for rule, model in digests:
        digests[rule, model] = _digest_now(ws, rule, model)
    return [
        replace(s, current=digests[s.consensus, split_digest(s.qrels_digest)[1]] == s.qrels_digest)
        for s in stored
    ]


def _digest_now(ws: Workspace, rule: str, model: str | None) -> str:
    """The digest the judgments have now under ``rule``, ``model``'s labels
    counted where nobody else graded ("" when the workspace no longer holds a
    label of that model: an evaluation that counted it is not current)."""
    try:
        return workspace_consensus(ws, rule, with_model=model).digest
    except InputError:
        return ""


def _is_current(ws: Workspace, rule: str, qrels_digest: str) -> bool:
    """Whether an evaluation's judgments are still the workspace's (under its
    rule, with the model it counted, if any)."""
    return _digest_now(ws, rule, split_digest(qrels_digest)[1]) == qrels_digest


def load_evaluation(
    ws: Workspace, evaluation_id: int
) -> tuple[StoredEvaluation, list[dict[str, Any]]]:
    """One stored evaluation and its per-query records."""
    stored = get_stored(ws, evaluation_id)
    current = _is_current(ws, stored.consensus, stored.qrels_digest)
    return replace(stored, current=current), per_query_records(ws, evaluation_id)
