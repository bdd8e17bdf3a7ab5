"""Scoring and auditing run files: the use cases behind ``judgepool score`` and
``judgepool audit`` on plain files (the workspace variants build on these).

A `ScoredRun` is an `Evaluation` plus where it came from: the run's name, the
digests of the run and of the judged universe, and the fingerprint over both
and the contract, so a number can always be traced to its inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from judgepool.core.aggregate import evaluate, group_by_query
from judgepool.core.audit import AuditReport, audit_run
from judgepool.core.contract import Contract
from judgepool.core.errors import InputError
from judgepool.core.types import Evaluation, Judgments
from judgepool.formats.trec import read_run
from judgepool.store.open_files import refuse_workspace_file

if TYPE_CHECKING:
    from judgepool.store.workspace import Workspace

ENGINES: Final = ("fast", "reference")

# Called with a short description of the stage being worked on.
ProgressCallback = Callable[[str], None]


@dataclass(frozen=True)
class ScoredRun:
    """One run's evaluation, with the provenance that makes it comparable."""

    run: str
    evaluation: Evaluation
    qrels_digest: str
    run_digest: str
    engine: str = "fast"

    @property
    def contract(self) -> Contract:
        return self.evaluation.contract

    @property
    def fingerprint(self) -> str:
        return self.contract.fingerprint(self.qrels_digest, self.run_digest)

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """The JSON shape of ``--format json``: one object per run."""
        data: dict[str, Any] = {
            "run": self.run,
            "contract": self.contract.to_dict(),
            "qrels_digest": self.qrels_digest,
            "run_digest": self.run_digest,
            "fingerprint": self.fingerprint,
            "summary": self.evaluation.summary.to_dict(),
            "unknown_queries": list(self.evaluation.unknown_queries),
            "missing_queries": list(self.evaluation.missing_queries),
        }
        if per_query:
            data["per_query"] = [r.to_dict() for r in self.evaluation.per_query]
        return data


def _quiet(_: str) -> None:
    pass


def _refuse_empty(lines: int, name: str) -> None:
    """A run without a line would score 0 (or nothing) without a word: refused."""
    if lines == 0:
        raise InputError("has no run lines (qid Q0 docid rank score tag)", name)


def score_run_file(
    path: str | Path,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    engine: str = "fast",
    on_progress: ProgressCallback = _quiet,
) -> ScoredRun:
    """Read and score one run file.

    ``engine="reference"`` reads line by line and scores with the plain
    reference implementation; the default fast engine gives the same numbers
    (tests hold it to the reference) and is the one for large runs.
    """
    name = str(path)
    refuse_workspace_file(path)
    if engine == "fast":
        from judgepool.core.fast import evaluate_columns
        from judgepool.formats.fast_run import read_run_columns

        on_progress(f"reading {name}")
        columns = read_run_columns(path)
        _refuse_empty(len(columns), name)
        on_progress(f"scoring {name}")
        evaluation = evaluate_columns(columns, judgments, contract, source=name)
        digest = columns.digest
    elif engine == "reference":
        on_progress(f"reading {name}")
        run = read_run(path)
        _refuse_empty(len(run.entries), name)
        on_progress(f"scoring {name}")
        evaluation = evaluate(group_by_query(run.entries), judgments, contract, source=name)
        digest = run.digest
    else:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    return ScoredRun(name, evaluation, qrels_digest, digest, engine)


def audit_run_file(
    path: str | Path,
    judgments: Judgments,
    contract: Contract,
    *,
    on_progress: ProgressCallback = _quiet,
) -> AuditReport:
    """Audit one run file, reading past bad lines to list them all."""
    name = str(path)
    refuse_workspace_file(path)
    on_progress(f"reading {name}")
    run = read_run(path, collect_errors=True)
    on_progress(f"auditing {name}")
    return audit_run(
        run.entries,
        judgments,
        contract.k,
        contract,
        run=name,
        bad_lines=run.bad_lines,
        lines=run.lines,
    )


def score_stored_run(
    ws: Workspace,
    name: str,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    engine: str = "fast",
    on_progress: ProgressCallback = _quiet,
) -> ScoredRun:
    """Score a run stored in a workspace (kept as imported, so the same numbers
    as scoring its file)."""
    # Imported here: scoring plain files must not pay for loading SQLite.
    from judgepool.services.workspace import load_run_columns, load_run_entries

    if engine == "fast":
        from judgepool.core.fast import evaluate_columns

        on_progress(f"reading {name}")
        columns = load_run_columns(ws, name)
        on_progress(f"scoring {name}")
        evaluation = evaluate_columns(columns, judgments, contract, source=name)
        digest = columns.digest
    elif engine == "reference":
        on_progress(f"reading {name}")
        entries, stored = load_run_entries(ws, name)
        on_progress(f"scoring {name}")
        evaluation = evaluate(group_by_query(entries), judgments, contract, source=name)
        digest = stored.digest
    else:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    return ScoredRun(name, evaluation, qrels_digest, digest, engine)


def audit_stored_run(
    ws: Workspace,
    name: str,
    judgments: Judgments,
    contract: Contract,
    *,
    on_progress: ProgressCallback = _quiet,
) -> AuditReport:
    """Audit a run stored in a workspace (an import refuses bad lines, so a
    stored run has none)."""
    from judgepool.services.workspace import load_run_entries

    on_progress(f"reading {name}")
    entries, stored = load_run_entries(ws, name)
    on_progress(f"auditing {name}")
    return audit_run(entries, judgments, contract.k, contract, run=name, lines=stored.lines)
