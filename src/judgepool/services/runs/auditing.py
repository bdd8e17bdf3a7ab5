"""Auditing runs on the fast engine, and scoring and auditing in one pass:
what ``judgepool audit``, ``judgepool score --audit`` and the app's audit
screen run with ``--engine fast`` (the default).

The columnar audit (`judgepool.core.fast.audit`) gives the reference audit's
report item for item (`judgepool.services.runs.scoring.audit_run_file` with
``engine="reference"`` computes that one); only the reading and the
computing differ: the run is read into columns, collecting its bad lines
(`read_run_columns_collecting`), and audited with array operations. A file
large enough to be scored in chunks (`services.runs.streaming.streams`) is audited
in chunks too (`services.runs.streamed_audit`), in bounded memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from judgepool.core.audit import AuditReport
from judgepool.core.contract import Contract
from judgepool.core.engines import Engine
from judgepool.core.errors import InputError, PolicyError, UnjudgedEntry
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scored_run import ScoredRun
from judgepool.core.types import Judgments
from judgepool.store.open_files import refuse_workspace_file

if TYPE_CHECKING:
    from judgepool.formats.fast_run import RunColumns
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


def fast_audit_file(
    path: str | Path,
    judgments: Judgments,
    contract: Contract,
    *,
    on_progress: StageCallback = no_stage,
) -> AuditReport:
    """Audit one run file at the contract's k, reading past bad lines to list them all."""
    from judgepool.core.fast.audit import audit_columns
    from judgepool.formats.fast_run.collecting import read_run_columns_collecting

    name = str(path)
    refuse_workspace_file(path)
    on_progress(f"reading {name}")
    if _streams(path):
        from judgepool.services.runs.streamed_audit import audit_in_chunks

        return audit_in_chunks(path, judgments, contract, on_progress=on_progress)
    collected = read_run_columns_collecting(path)
    on_progress(f"auditing {name}")
    return audit_columns(
        collected.columns,
        judgments,
        contract.k,
        contract,
        run=name,
        bad_lines=collected.bad_lines,
        lines=collected.lines,
    )


def score_and_audit_file(
    path: str | Path,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    on_progress: StageCallback = no_stage,
) -> AuditedRun:
    """Score one run file and audit it at the contract's k, in one pass.

    Scoring refuses a bad line, so a file with one is refused here as
    ``judgepool score`` refuses it (the same `InputError`, naming the first).
    """
    from judgepool.formats.fast_run.collecting import read_run_columns_collecting

    name = str(path)
    refuse_workspace_file(path)
    on_progress(f"reading {name}")
    if _streams(path):
        from judgepool.services.runs.streamed_audit import score_and_audit_in_chunks

        return score_and_audit_in_chunks(
            path, judgments, qrels_digest, contract, on_progress=on_progress
        )
    collected = read_run_columns_collecting(path)
    if collected.bad_lines:
        first = collected.bad_lines[0]
        raise InputError(first.message, name, first.line)
    return _score_and_audit(
        collected.columns, name, collected.lines, judgments, qrels_digest, contract, on_progress
    )


def _streams(path: str | Path) -> bool:
    """Whether the run file is large enough to be read in chunks."""
    from judgepool.services.runs.streaming import streams

    return streams(path)


def score_and_audit_stored(
    ws: Workspace,
    name: str,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    on_progress: StageCallback = no_stage,
) -> AuditedRun:
    """Score a run stored in a workspace and audit it at the contract's k, in
    one pass (an import refuses bad lines, so a stored run has none)."""
    from judgepool.store import runs as run_store

    on_progress(f"reading {name}")
    stored = run_store.get_run(ws, name)
    columns = run_store.run_columns(ws, name)
    return _score_and_audit(
        columns, name, stored.lines, judgments, qrels_digest, contract, on_progress
    )


def _score_and_audit(
    columns: RunColumns,
    name: str,
    lines: int,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    on_progress: StageCallback,
) -> AuditedRun:
    from judgepool.core.fast.audit import evaluate_and_audit, finish_audit

    if len(columns) == 0:
        raise InputError("has no run lines (qid Q0 docid rank score tag)", name)
    on_progress(f"scoring and auditing {name}")
    part, outcome = evaluate_and_audit(columns, judgments, contract, source=name)
    report = finish_audit([part], judgments, contract.k, contract, run=name, lines=lines)
    if isinstance(outcome, PolicyError):
        return AuditedRun(report, None, outcome, part.unknown_holes)
    scored = ScoredRun(name, outcome, qrels_digest, columns.digest, "fast")
    return AuditedRun(report, scored, None, part.unknown_holes)


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
    by the name ``ref``, or the file ``ref`` when ``ws`` is None. One pass on
    the fast engine; the reference engine scores, then audits with the
    reference audit. A contract's refusal is raised, as scoring alone raises it."""
    from judgepool.services.runs.scoring import (
        audit_run_file,
        audit_stored_run,
        file_source,
        score_run,
        stored_source,
    )

    judgments = judged.judgments
    if engine == "fast":
        if ws is not None:
            audited = score_and_audit_stored(
                ws, ref, judgments, judged.digest, contract, on_progress=on_progress
            )
        else:
            audited = score_and_audit_file(
                ref, judgments, judged.digest, contract, on_progress=on_progress
            )
        if audited.refusal is not None:
            raise audited.refusal
        assert audited.scored is not None
        return audited.scored, audited.report
    if ws is not None:
        source = stored_source(ws, ref)
        audit_report = audit_stored_run(
            ws, ref, judgments, contract, engine=engine, on_progress=on_progress
        )
    else:
        source = file_source(ref)
    scored = score_run(source, judged, contract, engine=engine, on_progress=on_progress)
    if ws is None:
        audit_report = audit_run_file(
            ref, judgments, contract, engine=engine, on_progress=on_progress
        )
    return scored, audit_report
