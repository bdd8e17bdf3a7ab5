"""Many runs at once: each run scored (or audited, or read for its top k) in a
worker process, at most ``jobs`` at a time, the results given back in the
order the runs were named (the processes: `judgepool.services.runs.worker_pool`).
(``compare`` and ``holes`` read their runs through `RunSource` closures, which
do not cross a process boundary: they read one run after another.)

Each worker calls the same per-run function the sequential path calls
(`score_run`, the audits, `score_and_audit_run`), so
whatever that function does with a run (read it whole, or in chunks) it does
in the worker unchanged. With ``jobs=1``, one run, or a run that is a stream
(a FIFO, ``/dev/stdin``: only this process can read it), the runs are read
one after another in this process, with no process started.

What the runs are read against (`Against`: the judgments with their digest,
the contract, the engine) is pickled once here and unpickled by each worker: the
6,980 queries (7,437 judgments) of MS MARCO dev pickle to 0.18 MB in 2 ms
(4 ms to load), nothing beside a run's seconds. A stored run is read by the worker through a
connection of its own to the workspace, opened by path (a connection never
crosses a process boundary; SQLite's WAL lets the readers share the file).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from judgepool.core.audit import AuditReport
from judgepool.core.contract import Contract
from judgepool.core.engines import Engine
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scored_run import ScoredRun
from judgepool.formats.source import is_regular_file
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.auditing import audit_run_file, audit_stored_run, score_and_audit_run
from judgepool.services.runs.scoring import score_run
from judgepool.services.runs.sources import file_source, stored_source

# the pool's names that callers of this module use (the command line, tests)
from judgepool.services.runs.worker_pool import RemoteTraceback as RemoteTraceback
from judgepool.services.runs.worker_pool import WorkerPool
from judgepool.services.runs.worker_pool import WorkerStopped as WorkerStopped
from judgepool.services.runs.worker_pool import warm_up as warm_up

if TYPE_CHECKING:
    from judgepool.store.workspace import Workspace

T = TypeVar("T")


@dataclass(frozen=True)
class Against:
    """What every run is read against, the same for all of them. A stored run
    is read from the workspace the judgments come from (``judged.workspace``)."""

    judged: JudgmentsSource
    contract: Contract
    engine: Engine


@dataclass(frozen=True)
class RunJob:
    """One run: a file's path, or the name of a run stored in the workspace."""

    ref: str
    stored: bool = False


# A per-run function: what the runs are read against, the run (a path, or a
# stored run's name), the workspace a stored run is read from (None for a
# file), and where to say the stage under way. Module-level functions only:
# a worker is given the function by its name.
RunTask = Callable[[Against, str, "Workspace | None", StageCallback], T]


def default_jobs(runs: int) -> int:
    """The cores this process may use, but no more workers than runs."""
    return max(1, min(len(os.sched_getaffinity(0)), runs))


def parallel(jobs: int, runs: Sequence[RunJob]) -> bool:
    """Whether ``runs`` are read by worker processes at ``jobs`` at once: more
    than one job and one run, and no run a stream only this process can read."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if jobs == 1 or len(runs) < 2:
        return False
    return all(job.stored or is_regular_file(job.ref) for job in runs)


def map_runs(
    task: RunTask[T],
    runs: Sequence[RunJob],
    against: Against,
    *,
    jobs: int,
    workspace: Workspace | None = None,
    on_progress: StageCallback = no_stage,
) -> list[T]:
    """``task`` of every run, in the order given: at most ``jobs`` at once in
    worker processes (see `parallel`), else one after another here with
    ``workspace`` (this process's own connection) for the stored runs.

    Raises the error of the first run, in the order given, that fails."""
    if not parallel(jobs, runs):
        results = []
        for number, job in enumerate(runs, start=1):
            prefix = f"[{number}/{len(runs)}] " if len(runs) > 1 else ""

            def report(stage: str, prefix: str = prefix) -> None:
                on_progress(prefix + stage)

            ws = workspace if job.stored else None
            results.append(task(against, job.ref, ws, report))
        return results
    names = [job.ref for job in runs]
    return WorkerPool(_read_one, runs, names, (task, against), jobs, on_progress).run()


def score_task(
    against: Against, ref: str, ws: Workspace | None, on_progress: StageCallback
) -> ScoredRun:
    """`score_run` of one run."""
    source = stored_source(ws, ref) if ws is not None else file_source(ref)
    return score_run(
        source, against.judged, against.contract, engine=against.engine, on_progress=on_progress
    )


def audit_task(
    against: Against, ref: str, ws: Workspace | None, on_progress: StageCallback
) -> AuditReport:
    """The audit of one run."""
    if ws is not None:
        return audit_stored_run(
            ws, ref, against.judged.judgments, against.contract,
            engine=against.engine, on_progress=on_progress,
        )  # fmt: skip
    return audit_run_file(
        ref, against.judged.judgments, against.contract,
        engine=against.engine, on_progress=on_progress,
    )  # fmt: skip


def score_and_audit_task(
    against: Against, ref: str, ws: Workspace | None, on_progress: StageCallback
) -> tuple[ScoredRun, AuditReport]:
    """`score_and_audit_run` of one run (``score --audit``)."""
    return score_and_audit_run(
        ws, ref, against.judged, against.contract, engine=against.engine, on_progress=on_progress
    )


def _read_one(bundle: tuple[RunTask[T], Against], job: RunJob) -> T:
    """A worker's reading of one run: ``task`` of it, a stored run read through
    a connection of the worker's own to the workspace."""
    task, against = bundle
    ws = _open_workspace(against.judged.workspace) if job.stored else None
    try:
        return task(against, job.ref, ws, no_stage)
    finally:
        if ws is not None:
            ws.close()


def _open_workspace(path: str | None) -> Workspace:
    from judgepool.services.workspace import open_workspace

    assert path is not None, "a stored run needs the workspace's path"
    return open_workspace(path)
