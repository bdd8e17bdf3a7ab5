"""The judged universe of a workspace: one grade per (query, document) under a
consensus rule, with its digest, and the disagreements the rules resolve.

The store reads every item's current grades (`judgepool.store.ledger.item_grades`),
the rules decide (`judgepool.core.consensus`), and this module adds the
digest: it equals that of the qrels ``judgepool export`` writes, so scoring a
workspace and scoring its exported qrels are traced to the same universe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from judgepool.core import consensus as rules
from judgepool.core.consensus import CONSENSUS_RULES, Disagreement, Rule
from judgepool.core.errors import InputError
from judgepool.display import quoted
from judgepool.formats.trec import qrels_digest
from judgepool.store import ledger
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class WorkspaceConsensus(rules.Consensus):
    """A workspace's consensus with its digest (`judgepool.formats.trec.qrels_digest`
    of the judgments), which changes when and only when the judged universe
    (which items, which grades) changes."""

    digest: str


def check_rule(rule: str) -> Rule:
    """``rule`` as a consensus rule; refused naming the rules otherwise."""
    if rule not in CONSENSUS_RULES:
        raise InputError(
            f"unknown consensus rule {quoted(rule)}; choose one of {', '.join(CONSENSUS_RULES)}"
        )
    return cast(Rule, rule)


def workspace_consensus(
    ws: Workspace, rule: str | None = None, *, leave_out_source: str | None = None
) -> WorkspaceConsensus:
    """The judged universe under ``rule`` (the workspace's default when None):
    judgments, digest, disagreements and what the rule left unresolved.
    ``leave_out_source``: a model's grades (``model:NAME``) kept out of it, as
    when they are the evidence the judgments calibrate."""
    chosen = check_rule(rule if rule is not None else ws.default_consensus())
    items = ledger.item_grades(ws, leave_out_source=leave_out_source)
    decided = rules.consensus(items, chosen)
    return WorkspaceConsensus(
        rule=decided.rule,
        judgments=decided.judgments,
        disagreements=decided.disagreements,
        unresolved=decided.unresolved,
        digest=qrels_digest(decided.judgments),
    )


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
    consensus rule resolves it (the same under every rule: ``latest`` reads them)."""
    return list(workspace_consensus(ws, "latest").disagreements)
