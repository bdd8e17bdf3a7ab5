"""`JudgmentsSource`: the judgments runs are scored against, read once, with
where they came from: a qrels file, or a workspace under a consensus rule.

Every use case that reads runs against judgments (scoring, auditing,
comparing, listing holes) takes one, beside the contract it scores under: the
judgments do not depend on the contract (a qrels file is only checked against
its scale), so the app scores one source under each contract it is asked for.
A source holds plain values (the workspace by its path, not a connection), so
it crosses to the worker processes of `judgepool.services.runs.parallel_runs` as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from judgepool.core.team.consensus import Provenance, file_provenance
from judgepool.core.terms.contract import Scale
from judgepool.core.terms.types import Judgments
from judgepool.formats.trec import read_qrels

if TYPE_CHECKING:
    from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class JudgmentsSource:
    """The judgments (query -> doc -> grade), their digest, and what they are."""

    judgments: Judgments
    digest: str
    # what every result names them by: the qrels path, or the workspace and its
    # rule (empty for judgments made in memory, which no command prints)
    label: str = ""
    # the workspace they were chosen from (its path), and under which consensus rule
    workspace: str | None = None
    consensus: str | None = None
    # (query, doc) the consensus rule left out of the judgments, with why
    left_out: Mapping[tuple[str, str], str] = field(default_factory=dict)
    # what the judgments rest on: people's, imports', adjudications' and
    # models' grades, and the models' labels left out
    provenance: Provenance = field(default_factory=Provenance)

    @property
    def with_model(self) -> str | None:
        """The model whose labels count (on items nobody else graded), if any."""
        return self.provenance.with_model


def qrels_source(path: str | Path, scale: Scale) -> JudgmentsSource:
    """The judgments of a qrels file (plain or gzip), its grades on ``scale``."""
    read = read_qrels(path, scale)
    grades = sum(len(docs) for docs in read.judgments.values())
    return JudgmentsSource(
        read.judgments, read.digest, str(path), provenance=file_provenance(grades)
    )


def workspace_source(
    ws: Workspace, rule: str | None = None, *, with_model: str | None = None
) -> JudgmentsSource:
    """The workspace's judgments under the consensus ``rule`` (None: the
    workspace's default); each item the rule leaves out (a disagreement no
    adjudicator resolved) is kept with the annotators' grades, to explain a run
    refused for "unjudged" documents that were in fact graded. Models' labels
    are not judgments: ``with_model`` (``NAME``) counts that model's on the
    items nobody else graded."""
    # Imported here: scoring plain files must not pay for loading SQLite.
    from judgepool.services.consensus import workspace_consensus

    chosen_rule = rule or ws.default_consensus()
    chosen = workspace_consensus(ws, chosen_rule, with_model=with_model)
    left_out = {
        (item.query_id, item.doc_id): "an unresolved disagreement (no adjudicator's grade; "
        + ", ".join(f"{who}={grade}" for who, grade in item.grades)
        + ")"
        for item in chosen.unresolved
    }
    model = chosen.with_model
    counted = "" if model is None else f", with model:{model}'s labels where nobody else graded"
    return JudgmentsSource(
        chosen.judgments, chosen.digest, f"workspace {ws.path} ({chosen_rule}{counted})",
        str(ws.path), chosen_rule, left_out, chosen.provenance,
    )  # fmt: skip
