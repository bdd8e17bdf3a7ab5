"""Auditing runs, and scoring and auditing them in one pass: what ``judgepool
audit``, ``judgepool score --audit`` and the app's audit screen run.

Every function here reads its run along the one path of `passes.read_run_pass`
(a file or a stored run, whole or in chunks, on either engine): only what is
asked differs. An audit reads past bad lines to list them all; scoring and
auditing together refuse a bad line as ``judgepool score`` refuses it (the
same `InputError`, naming the first), and keep the contract's refusal beside
the audit report (`AuditedRun`), which says what it refuses and more. Both
engines give the same report, item for item.

The ``*_in_chunks`` functions read a file in chunks whatever its size (in
reads of ``chunk_bytes``): the tests hold them to the whole-file reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from judgepool.core.audit import AuditReport
from judgepool.core.contract import Contract
from judgepool.core.engines import Engine
from judgepool.core.errors import PolicyError, UnjudgedEntry
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scored_run import ScoredRun
from judgepool.core.types import Judgments
from judgepool.services.runs.passes import Wanted, read_run_pass
from judgepool.services.runs.sources import RunSource, file_source, stored_source

if TYPE_CHECKING:
    from judgepool.services.judgments_source import JudgmentsSource
    from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class AuditedRun:
    """A run's audit report; its score under the contract when it was scored
    too (``scored``, or the contract's ``refusal``); and the top k of each of
    its unknown queries (every document a hole), for the audit screen."""

    report: AuditReport
    scored: ScoredRun | None = None
    refusal: PolicyError | None = None
    unknown_holes: dict[str, tuple[UnjudgedEntry, ...]] = field(default_factory=dict)


def audit_source(
    source: RunSource,
    judgments: Judgments,
    contract: Contract,
    *,
    engine: Engine = "fast",
    in_chunks: bool | None = None,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback | None = None,
) -> AuditReport:
    """The audit of one run at the contract's k (bad lines listed, not raised)."""
    outcome = read_run_pass(
        source, judgments, "", contract, Wanted(score=False, audit=True), engine=engine,
        in_chunks=in_chunks, chunk_bytes=chunk_bytes, on_progress=on_progress, on_note=on_note,
    )  # fmt: skip
    return outcome.audit_report()


def score_and_audit_source(
    source: RunSource,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    engine: Engine = "fast",
    in_chunks: bool | None = None,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback | None = None,
) -> AuditedRun:
    """One run scored and audited at the contract's k, from one reading."""
    outcome = read_run_pass(
        source, judgments, qrels_digest, contract, Wanted(score=True, audit=True), engine=engine,
        in_chunks=in_chunks, chunk_bytes=chunk_bytes, on_progress=on_progress, on_note=on_note,
    )  # fmt: skip
    return AuditedRun(
        outcome.audit_report(), outcome.scored, outcome.refusal, outcome.unknown_holes
    )


def audit_run_file(
    path: str | Path,
    judgments: Judgments,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> AuditReport:
    """Audit one run file, reading past bad lines to list them all."""
    return audit_source(
        file_source(path), judgments, contract, engine=engine, on_progress=on_progress
    )


def audit_stored_run(
    ws: Workspace,
    name: str,
    judgments: Judgments,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> AuditReport:
    """Audit a run stored in a workspace (an import refuses bad lines, so a
    stored run has none)."""
    return audit_source(
        stored_source(ws, name), judgments, contract, engine=engine, on_progress=on_progress
    )


def score_and_audit_file(
    path: str | Path,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    on_progress: StageCallback = no_stage,
) -> AuditedRun:
    """Score one run file and audit it at the contract's k, in one pass."""
    return score_and_audit_source(
        file_source(path), judgments, qrels_digest, contract, on_progress=on_progress
    )


def score_and_audit_stored(
    ws: Workspace,
    name: str,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> AuditedRun:
    """Score a run stored in a workspace and audit it at the contract's k, in one pass."""
    return score_and_audit_source(
        stored_source(ws, name), judgments, qrels_digest, contract,
        engine=engine, on_progress=on_progress,
    )  # fmt: skip


def audit_in_chunks(
    path: str | Path,
    judgments: Judgments,
    contract: Contract,
    *,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback | None = None,
) -> AuditReport:
    """`audit_run_file` on the fast engine, the file read in chunks whatever its size."""
    return audit_source(
        file_source(path), judgments, contract, in_chunks=True, chunk_bytes=chunk_bytes,
        on_progress=on_progress, on_note=on_note,
    )  # fmt: skip


def score_and_audit_in_chunks(
    path: str | Path,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback | None = None,
) -> AuditedRun:
    """`score_and_audit_file`, the file read in chunks whatever its size."""
    return score_and_audit_source(
        file_source(path), judgments, qrels_digest, contract, in_chunks=True,
        chunk_bytes=chunk_bytes, on_progress=on_progress, on_note=on_note,
    )  # fmt: skip


def score_and_audit_run(
    ws: Workspace | None,
    ref: str,
    judged: JudgmentsSource,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> tuple[ScoredRun, AuditReport]:
    """Score one run and audit it (``score --audit``): the run stored in ``ws``
    by the name ``ref``, or the file ``ref`` when ``ws`` is None. A contract's
    refusal is raised, as scoring alone raises it."""
    source = file_source(ref) if ws is None else stored_source(ws, ref)
    audited = score_and_audit_source(
        source, judged.judgments, judged.digest, contract, engine=engine, on_progress=on_progress
    )
    if audited.refusal is not None:
        raise audited.refusal
    assert audited.scored is not None
    return audited.scored, audited.report
