"""Many runs at once: each run scored (or audited, or read for its top k) in a
worker process of its own, at most ``jobs`` at a time, the results given back
in the order the runs were named. (``compare`` and ``holes`` read their runs
through `RunSource` closures, which do not cross a process boundary: they
read one run after another.)

Each worker calls the same per-run function the sequential path calls
(`score_run`, the audits, `score_and_audit_run`), so
whatever that function does with a run (read it whole, or in chunks) it does
in the worker unchanged. With ``jobs=1``, one run, or a run that is a stream
(a FIFO, ``/dev/stdin``: only this process can read it), the runs are read
one after another in this process, with no process started.

What the runs are read against (`Against`: the judgments, their digest, the
contract, the engine) is pickled once here and unpickled by each worker: the
6,980 queries (7,437 judgments) of MS MARCO dev pickle to 0.18 MB in 2 ms
(4 ms to load), nothing beside a run's seconds. A stored run is read by the worker through a
connection of its own to the workspace, opened by path (a connection never
crosses a process boundary; SQLite's WAL lets the readers share the file).

Failures are those of the sequential path: the first run in the given order
that fails raises its error (the same exception, rebuilt from its pickle: see
`judgepool.core.errors.JudgepoolError`), and the workers still running are
stopped; so is every worker when this process is interrupted (Ctrl-C goes to
the whole terminal's process group: the workers ignore it and are stopped by
this one, so no worker prints a traceback or outlives the command).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any, Final, TypeVar

from judgepool.core.audit import AuditReport
from judgepool.core.contract import Contract
from judgepool.core.errors import JudgepoolError
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scored_run import ScoredRun
from judgepool.core.types import Judgments
from judgepool.formats.source import is_regular_file

if TYPE_CHECKING:
    from judgepool.store.workspace import Workspace

T = TypeVar("T")

# 'forkserver', not 'fork': the parent has threads when it forks (the progress
# line's, which writes to stderr under a lock a forked child could inherit
# held; and a worker does write to stderr), and holds an open workspace
# connection, which must not cross a fork. The server starts once per command
# (a fresh interpreter importing the engine, `PRELOAD`: ~0.4 s, overlapped with
# reading the judgments by `warm_up`), then forks a worker per run in a few
# milliseconds, with the engine already imported. 'spawn' would pay the imports
# in every worker. Measured in tests/benchmarks/bench_parallel.py.
START_METHOD: Final = "forkserver"
PRELOAD: Final = "judgepool.services.parallel_preload"
# How long a stopped worker is given to end before it is killed.
STOP_GRACE_SECONDS: Final = 5.0


@dataclass(frozen=True)
class Against:
    """What every run is read against, the same for all of them."""

    judgments: Judgments
    qrels_digest: str
    contract: Contract
    engine: str
    # the workspace file the stored runs are read from (its path; None without one)
    workspace: str | None = None


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


class WorkerStopped(JudgepoolError):
    """A worker process ended without a result (killed, most likely for memory)."""

    def __init__(self, ref: str, exitcode: int | None) -> None:
        if exitcode == -signal.SIGKILL:
            how = "it was killed (SIGKILL: what the system does when memory runs out)"
        elif exitcode is not None and exitcode < 0:
            how = f"it was killed by signal {-exitcode}"
        else:
            how = f"it exited with code {exitcode}"
        super().__init__(
            f"{ref}: the worker process reading this run stopped before it finished: {how}. "
            "Each run read at once holds its run in memory: try fewer --jobs (--jobs 1 reads "
            "the runs one after another)"
        )


class RemoteTraceback(Exception):
    """Where a worker's unexpected exception was raised (its ``__cause__``)."""


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


def warm_up() -> None:
    """Start the process workers are forked from, now, so that its imports
    overlap what this process does before the first run starts."""
    context = _context()
    context.set_forkserver_preload([PRELOAD])
    from multiprocessing import forkserver

    # Ctrl-C reaches the whole process group. The forkserver ignores it only
    # once its imports are done, and the resource tracker once its interpreter
    # is up: a Ctrl-C before that printed a KeyboardInterrupt traceback from
    # them. An ignored signal stays ignored across fork and exec, so they start
    # ignoring it; this process handles it again right after (it stops them).
    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()  # only the main thread may change a handler
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        # None: a handler not set from Python; Python's own is the one to restore
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)


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
    return _Workers(task, runs, against, jobs, on_progress).run()


def score_task(
    against: Against, ref: str, ws: Workspace | None, on_progress: StageCallback
) -> ScoredRun:
    """`score_run` of one run."""
    from judgepool.services.scoring import file_source, score_run, stored_source

    source = stored_source(ws, ref) if ws is not None else file_source(ref)
    return score_run(
        source, against.judgments, against.qrels_digest, against.contract,
        engine=against.engine, on_progress=on_progress,
    )  # fmt: skip


def audit_task(
    against: Against, ref: str, ws: Workspace | None, on_progress: StageCallback
) -> AuditReport:
    """The audit of one run."""
    from judgepool.services.scoring import audit_run_file, audit_stored_run

    if ws is not None:
        return audit_stored_run(
            ws, ref, against.judgments, against.contract,
            engine=against.engine, on_progress=on_progress,
        )  # fmt: skip
    return audit_run_file(
        ref, against.judgments, against.contract, engine=against.engine, on_progress=on_progress
    )


def score_and_audit_task(
    against: Against, ref: str, ws: Workspace | None, on_progress: StageCallback
) -> tuple[ScoredRun, AuditReport]:
    """`score_and_audit_run` of one run (``score --audit``)."""
    from judgepool.services.auditing import score_and_audit_run

    return score_and_audit_run(
        ws, ref, against.judgments, against.qrels_digest, against.contract,
        engine=against.engine, on_progress=on_progress,
    )  # fmt: skip


def _context() -> Any:
    return multiprocessing.get_context(START_METHOD)


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection


class _Workers:
    """The worker processes of one `map_runs`, and their results in order."""

    def __init__(
        self,
        task: RunTask[Any],
        runs: Sequence[RunJob],
        against: Against,
        jobs: int,
        on_progress: StageCallback,
    ) -> None:
        self.task = task
        self.runs = runs
        self.jobs = jobs
        self.on_progress = on_progress
        self.payload = pickle.dumps(against, protocol=pickle.HIGHEST_PROTOCOL)
        self.workspace = against.workspace
        self.results: dict[int, Any] = {}
        self.failures: dict[int, BaseException] = {}
        self.waiting = deque(range(len(runs)))
        self.running: dict[int, _Worker] = {}

    def run(self) -> list[Any]:
        warm_up()
        try:
            done = 0
            while True:
                while done in self.results:
                    done += 1
                if done == len(self.runs):
                    return [self.results[index] for index in range(len(self.runs))]
                if done in self.failures:
                    raise self.failures[done]
                # a run after a failed one cannot change the outcome: not started
                until = min(self.failures, default=len(self.runs))
                while self.waiting and len(self.running) < self.jobs and self.waiting[0] < until:
                    self._start(self.waiting.popleft())
                self._report(len(self.results))
                self._collect()
        finally:
            self._stop_all()

    def _start(self, index: int) -> None:
        receive, send = _context().Pipe(duplex=False)
        job = self.runs[index]
        process = _context().Process(
            target=_work,
            args=(send, self.task, self.payload, job, os.getcwd()),
            name=f"judgepool-run-{index + 1}",
            daemon=True,
        )
        # Ctrl-C is held back while the worker is started and registered: an
        # interrupt in the middle of sending it its task left it reading half a
        # pickle (a traceback on the terminal) and unknown to `stop`. It is
        # raised right after, with the worker known and stopped like the rest.
        # (The Python handler is swapped, not the signal masked: with a progress
        # thread running, the signal would reach that thread and the handler
        # would still run here.)
        held: list[int] = []
        main = threading.current_thread() is threading.main_thread()
        previous = (
            signal.signal(signal.SIGINT, lambda number, _: held.append(number)) if main else None
        )
        try:
            process.start()
            send.close()  # the worker holds the other copy: its end shows when it ends
            self.running[index] = _Worker(process, receive)
        finally:
            if main:
                restored = signal.default_int_handler if previous is None else previous
                signal.signal(signal.SIGINT, restored)
        if held and callable(previous):
            previous(signal.SIGINT, None)  # Python's own handler raises KeyboardInterrupt

    def _collect(self) -> None:
        """Wait for at least one worker to finish; take its result or error."""
        ready = set(wait([worker.conn for worker in self.running.values()]))
        for index, worker in list(self.running.items()):
            if worker.conn not in ready:
                continue
            try:
                outcome, value = worker.conn.recv()
            except (EOFError, OSError):
                worker.process.join()
                outcome, value = (
                    "error",
                    WorkerStopped(self.runs[index].ref, worker.process.exitcode),
                )
            worker.process.join()
            worker.conn.close()
            del self.running[index]
            if outcome == "ok":
                self.results[index] = value
            elif isinstance(value, WorkerStopped):
                self.failures[index] = value
            else:
                error, where = value
                if not isinstance(error, JudgepoolError):
                    # JUDGEPOOL_DEBUG=1 shows where it was raised, as concurrent.futures does
                    error.__cause__ = RemoteTraceback("in the worker process:\n" + where)
                self.failures[index] = error

    def _report(self, done: int) -> None:
        names = ", ".join(self.runs[index].ref for index in sorted(self.running))
        self.on_progress(f"{done} of {len(self.runs)} runs done; reading {names}")

    def _stop_all(self) -> None:
        """Stop the workers still running (after a failure, or an interrupt)."""
        for worker in self.running.values():
            worker.process.terminate()
        for worker in self.running.values():
            worker.process.join(STOP_GRACE_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self.running.clear()


def _work(conn: Connection, task: RunTask[Any], payload: bytes, job: RunJob, cwd: str) -> None:
    """A worker: ``task`` of one run, sent back as ("ok", result) or ("error", exception)."""
    # Ctrl-C reaches every process of the terminal's group: the parent stops
    # the workers itself (the forkserver's preload makes this the default too).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    message: tuple[str, Any]
    try:
        os.chdir(cwd)  # the forkserver's is that of the first command that started it
        against: Against = pickle.loads(payload)
        ws = _open_workspace(against.workspace) if job.stored else None
        try:
            message = ("ok", task(against, job.ref, ws, no_stage))
        finally:
            if ws is not None:
                ws.close()
    except BaseException as exc:  # everything goes back to the parent, which decides
        message = ("error", (exc, traceback.format_exc()))
    try:
        conn.send(message)
    except Exception as exc:  # a result or an exception that does not pickle
        unpicklable = RuntimeError(f"{type(exc).__name__}: {exc}")
        conn.send(("error", (unpicklable, traceback.format_exc())))
    conn.close()


def _open_workspace(path: str | None) -> Workspace:
    from judgepool.services.workspace import open_workspace

    assert path is not None, "a stored run needs the workspace's path"
    return open_workspace(path)
