"""Scoring and auditing runs, from files or stored in a workspace: the use cases
behind ``judgepool score`` and ``judgepool audit``, and behind the app's review
screens.

A run is scored by one of two engines on the same judgments and contract:
``fast`` (vectorised, over the run's columns) or ``reference`` (the plain
implementation the fast one is tested against, over its lines). Whether the
run comes from a file or a workspace changes only how its columns or lines
are read (`RunSource`); `score_run` is the one place that picks the engine.
The result is a `judgepool.core.scored_run.ScoredRun`: the evaluation with the
digests that trace it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgepool.core.aggregate import evaluate, group_by_query
from judgepool.core.audit import AuditReport, audit_run
from judgepool.core.contract import Contract
from judgepool.core.engines import ENGINES, Engine
from judgepool.core.errors import InputError
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scored_run import ScoredRun
from judgepool.core.types import Judgments, RunEntry
from judgepool.formats.trec import read_run
from judgepool.store.open_files import refuse_workspace_file

if TYPE_CHECKING:
    from judgepool.core.bounds import TopK
    from judgepool.formats.fast_run import RunColumns
    from judgepool.services.judgments_source import JudgmentsSource
    from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class RunSource:
    """Where a run's lines come from, read the way each engine wants them:
    ``columns`` for the fast engine, ``entries`` (the lines and the run's
    digest) for the reference one. Each reads only when called. ``path``: a
    run file's, which the fast engine may read in chunks (`services.runs.streaming`)."""

    name: str
    columns: Callable[[], RunColumns]
    entries: Callable[[], tuple[list[RunEntry], str]]
    path: str | None = None


def file_source(path: str | Path) -> RunSource:
    """A run file (plain or gzip). Refused here when it is a workspace's own file."""
    refuse_workspace_file(path)

    def columns() -> RunColumns:
        from judgepool.formats.fast_run import read_run_columns

        return read_run_columns(path)

    def entries() -> tuple[list[RunEntry], str]:
        run = read_run(path)
        return run.entries, run.digest

    return RunSource(str(path), columns, entries, str(path))


def stored_source(ws: Workspace, name: str) -> RunSource:
    """A run stored in a workspace, kept as imported: the same numbers as its file."""
    # Imported here: scoring plain files must not pay for loading SQLite.
    from judgepool.store import runs as run_store

    def entries() -> tuple[list[RunEntry], str]:
        return run_store.run_entries(ws, name), run_store.get_run(ws, name).digest

    return RunSource(name, lambda: run_store.run_columns(ws, name), entries)


def score_run(
    source: RunSource,
    judged: JudgmentsSource,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> ScoredRun:
    """Read and score one run with ``engine``.

    ``reference`` reads line by line and scores with the plain reference
    implementation; the default fast engine gives the same numbers (tests
    hold it to the reference) and is the one for large runs. A run without
    a line is refused: it would score 0 (or nothing) without a word.
    """
    scored, _ = _score(source, judged, contract, engine, on_progress, False)
    return scored


def score_run_with_tops(
    source: RunSource,
    judged: JudgmentsSource,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> tuple[ScoredRun, dict[str, TopK]]:
    """`score_run`, and the run's top k of every judged query it returned
    (`judgepool.core.bounds.TopK`: what ``compare`` and ``holes`` read). Both
    engines give the same lists."""
    scored, tops = _score(source, judged, contract, engine, on_progress, True)
    assert tops is not None
    return scored, tops


def _score(
    source: RunSource,
    judged: JudgmentsSource,
    contract: Contract,
    engine: Engine,
    on_progress: StageCallback,
    with_tops: bool,
) -> tuple[ScoredRun, dict[str, TopK] | None]:
    """The one place that picks the engine."""
    name, judgments = source.name, judged.judgments
    _check_engine(engine)
    on_progress(f"reading {name}")
    tops: dict[str, TopK] | None = None
    if engine == "fast" and source.path is not None and _streams(source.path):
        from judgepool.services.runs.streaming import score_in_chunks

        merged, digest = score_in_chunks(
            source.path, name, judgments, contract, with_tops=with_tops, on_progress=on_progress
        )
        _refuse_empty(merged.rows, name)
        evaluation = merged.evaluation(name)
        tops = merged.tops if with_tops else None
    elif engine == "fast":
        from judgepool.core.fast import evaluate_columns, evaluate_columns_with_tops

        columns = source.columns()
        _refuse_empty(len(columns), name)
        on_progress(f"scoring {name}")
        if with_tops:
            evaluation, tops = evaluate_columns_with_tops(columns, judgments, contract, source=name)
        else:
            evaluation = evaluate_columns(columns, judgments, contract, source=name)
        digest = columns.digest
    else:
        entries, digest = source.entries()
        _refuse_empty(len(entries), name)
        on_progress(f"scoring {name}")
        grouped = group_by_query(entries)
        evaluation = evaluate(grouped, judgments, contract, source=name)
        if with_tops:
            from judgepool.core.top_k import reference_tops

            tops = reference_tops(grouped, judgments, contract)
    return ScoredRun(name, evaluation, judged.digest, digest, engine), tops


def _check_engine(engine: Engine) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")


def _streams(path: str) -> bool:
    """Whether the run file is large enough to be read in chunks (see there)."""
    from judgepool.services.runs.streaming import streams

    return streams(path)


def _refuse_empty(lines: int, name: str) -> None:
    if lines == 0:
        raise InputError("has no run lines (qid Q0 docid rank score tag)", name)


def audit_run_file(
    path: str | Path,
    judgments: Judgments,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> AuditReport:
    """Audit one run file, reading past bad lines to list them all, with
    ``engine`` (both give the same report; see `services.runs.auditing`)."""
    _check_engine(engine)
    if engine == "fast":
        from judgepool.services.runs.auditing import fast_audit_file

        return fast_audit_file(path, judgments, contract, on_progress=on_progress)
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


def audit_stored_run(
    ws: Workspace,
    name: str,
    judgments: Judgments,
    contract: Contract,
    *,
    engine: Engine = "fast",
    on_progress: StageCallback = no_stage,
) -> AuditReport:
    """Audit a run stored in a workspace with ``engine`` (an import refuses
    bad lines, so a stored run has none)."""
    from judgepool.store import runs as run_store

    _check_engine(engine)
    on_progress(f"reading {name}")
    stored = run_store.get_run(ws, name)
    if engine == "fast":
        from judgepool.core.fast.audit import audit_columns

        columns = run_store.run_columns(ws, name)
        on_progress(f"auditing {name}")
        return audit_columns(columns, judgments, contract.k, contract, run=name, lines=stored.lines)
    entries = run_store.run_entries(ws, name)
    on_progress(f"auditing {name}")
    return audit_run(entries, judgments, contract.k, contract, run=name, lines=stored.lines)


def run_names(ws: Workspace) -> list[str]:
    """The names of the workspace's runs, in name order."""
    from judgepool.store import runs as run_store

    return [run.name for run in run_store.list_runs(ws)]


def has_run(ws: Workspace, name: str) -> bool:
    """Whether the workspace holds a run called ``name``."""
    from judgepool.store import runs as run_store

    return run_store.find_run(ws, name) is not None
