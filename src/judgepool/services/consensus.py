"""The judged universe of a workspace: one grade per (query, document) under a
consensus rule, with its digest, and the disagreements the rules resolve.

The store reads every item's current grades (`judgepool.store.ledger.item_grades`),
the rules decide (`judgepool.core.team.consensus`), and this module adds the
digest: it equals that of the qrels ``judgepool export`` writes, so scoring a
workspace and scoring its exported qrels are traced to the same universe.

A model's labels are evidence, not judgments: they are in the universe only
when a command is asked to count one model's (``--with-model NAME``), and
then only on items nobody else graded; the digest then ends in
``+model:NAME``, so every evaluation, fingerprint and stored score names the
model it rests on (`with_model_digest`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from judgepool.core.team import consensus as rules
from judgepool.core.team.consensus import CONSENSUS_RULES, Disagreement, Provenance, Rule
from judgepool.core.team.raters import MODEL_PREFIX
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.formats.trec import qrels_digest
from judgepool.store import ledger
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class WorkspaceConsensus(rules.Consensus):
    """A workspace's consensus with its digest (`judgepool.formats.trec.qrels_digest`
    of the judgments), which changes when and only when the judged universe
    (which items, which grades) changes, and names the model counted, if any."""

    digest: str = ""

    @property
    def with_model(self) -> str | None:
        return self.provenance.with_model


def model_name(name: str | None) -> str | None:
    """A model as ``--with-model`` takes it: ``NAME`` or ``model:NAME``, as NAME."""
    if name is None:
        return None
    bare = name[len(MODEL_PREFIX) :] if name.startswith(MODEL_PREFIX) else name
    if not bare:
        raise InputError("--with-model needs a model's name (model:NAME or NAME)")
    return bare


def with_model_digest(digest: str, with_model: str | None) -> str:
    """The digest of a universe that counts ``with_model``'s labels: the
    judgments' digest and ``+model:NAME``, so a universe that rests on a
    model is never taken for one of people's and imports' grades alone."""
    return digest if with_model is None else f"{digest}+{MODEL_PREFIX}{with_model}"


def split_digest(digest: str) -> tuple[str, str | None]:
    """(the judgments' digest, the model counted or None) of a stored digest."""
    plain, mark, model = digest.partition("+" + MODEL_PREFIX)
    return (plain, model) if mark else (digest, None)


def check_rule(rule: str) -> Rule:
    """``rule`` as a consensus rule; refused naming the rules otherwise."""
    if rule not in CONSENSUS_RULES:
        raise InputError(
            f"unknown consensus rule {quoted(rule)}; choose one of {', '.join(CONSENSUS_RULES)}"
        )
    return cast(Rule, rule)


def workspace_consensus(
    ws: Workspace, rule: str | None = None, *, with_model: str | None = None
) -> WorkspaceConsensus:
    """The judged universe under ``rule`` (the workspace's default when None):
    judgments, digest, disagreements, what the rule left unresolved and what
    the universe rests on. Models' labels are not judgments; ``with_model``
    (``NAME`` or ``model:NAME``) counts that model's on items nobody else
    graded, and is refused when the workspace holds no label of it."""
    chosen = check_rule(rule if rule is not None else ws.default_consensus())
    model = model_name(with_model)
    items = ledger.item_grades(ws)
    if model is not None and not any(held.model == model for item in items for held in item.grades):
        known = sorted({held.model for item in items for held in item.grades if held.model})
        raise InputError(
            f"--with-model: the workspace holds no label of {quoted(MODEL_PREFIX + model)}; "
            + (
                "models with labels: " + ", ".join(quoted(MODEL_PREFIX + m) for m in known)
                if known
                else "no model has labelled an item (judgepool prelabel records them)"
            )
        )
    decided = rules.consensus(items, chosen, with_model=model)
    return WorkspaceConsensus(
        rule=decided.rule,
        judgments=decided.judgments,
        disagreements=decided.disagreements,
        unresolved=decided.unresolved,
        provenance=decided.provenance,
        digest=with_model_digest(qrels_digest(decided.judgments), model),
    )


def workspace_judgments(
    ws: Workspace, rule: str | None = None, *, with_model: str | None = None
) -> tuple[dict[str, dict[str, int]], str]:
    """(query -> doc -> grade, qrels_digest) under the consensus ``rule``
    (``latest``, ``median`` or ``adjudicated``; None: the workspace's default,
    ``latest`` unless changed), ``with_model``'s labels counted where nobody
    else graded. The digest equals that of the exported qrels."""
    chosen = workspace_consensus(ws, rule, with_model=with_model)
    return chosen.judgments, chosen.digest


def provenance(ws: Workspace, rule: str | None = None) -> Provenance:
    """What the workspace's judged universe under ``rule`` rests on."""
    return workspace_consensus(ws, rule).provenance


def disagreements(ws: Workspace) -> list[Disagreement]:
    """Every item whose raters (models included) currently hold different
    grades, with how each consensus rule resolves it (the same under every
    rule: ``latest`` reads them)."""
    return list(workspace_consensus(ws, "latest").disagreements)
