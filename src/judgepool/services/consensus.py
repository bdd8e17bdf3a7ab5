"""The judged universe of a workspace: one grade per (query, document) under a
consensus rule (`judgepool.core.consensus`), with its digest, and the
disagreements the rules resolve.

The digest equals that of the qrels ``judgepool export`` writes, so scoring a
workspace and scoring its exported qrels are traced to the same universe.
"""

from __future__ import annotations

from judgepool.store import ledger
from judgepool.store.ledger import Consensus, Disagreement
from judgepool.store.workspace import Workspace


def workspace_consensus(ws: Workspace, rule: str | None = None) -> Consensus:
    """The judged universe under ``rule`` (the workspace's default when None):
    judgments, digest, disagreements and what the rule left unresolved."""
    return ledger.consensus(ws, rule if rule is not None else ws.default_consensus())


def workspace_judgments(
    ws: Workspace, rule: str | None = None
) -> tuple[dict[str, dict[str, int]], str]:
    """(query -> doc -> grade, qrels_digest) under the consensus ``rule``
    (``latest``, ``median`` or ``adjudicated``; None: the workspace's default,
    ``latest`` unless changed). The digest equals that of the exported qrels."""
    chosen = workspace_consensus(ws, rule)
    return chosen.judgments, chosen.digest


def disagreements(ws: Workspace) -> list[Disagreement]:
    """Every item whose annotators currently hold different grades, with how each
    consensus rule resolves it."""
    return ledger.list_disagreements(ws)
