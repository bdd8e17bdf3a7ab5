"""The worker processes behind `judgepool.services.runs.parallel_runs.map_runs`: at
most ``jobs`` of them, each reading one run after another, and their results
given back in the order the runs were named.

A worker lives for the whole command and is handed the next run as soon as it
is done with one, instead of a process started for every run: a fresh process
must have the kernel hand it (and zero) every page of memory it touches, which
for a 7-million-line run was ~165,000 page faults and ~0.6 s of system time
per run; a worker that reads its second run reuses the pages of its first (its
allocator keeps them). Measured in tests/benchmarks/bench_parallel.py.

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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Final

from judgepool.core.errors import JudgepoolError
from judgepool.core.progress import StageCallback, no_stage

# 'forkserver', not 'fork': the parent has threads when it forks (the progress
# line's, which writes to stderr under a lock a forked child could inherit
# held; and a worker does write to stderr), and holds an open workspace
# connection, which must not cross a fork. The server starts once per command
# (a fresh interpreter importing the engine, `PRELOAD`: ~0.4 s, overlapped with
# reading the judgments by `warm_up`), then forks each worker in a few
# milliseconds, with the engine already imported. 'spawn' would pay the imports
# in every worker.
START_METHOD: Final = "forkserver"
PRELOAD: Final = "judgepool.services.runs.parallel_preload"
# How long a stopped worker is given to end before it is killed.
STOP_GRACE_SECONDS: Final = 5.0

# What a worker does with one run: (what the runs are read against, the run's
# description) -> its result. Module-level functions only: a worker is given
# the function by its name.
Work = Callable[[Any, Any], Any]


class WorkerStopped(JudgepoolError):
    """A worker process ended without a result (killed, most likely for memory)."""

    def __init__(self, ref: str, exitcode: int | None) -> None:
        if exitcode is None:
            how = "it ended as it was started"
        elif exitcode == -signal.SIGKILL:
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


def _context() -> Any:
    return multiprocessing.get_context(START_METHOD)


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    index: int | None = None  # the run it is reading, None while idle


class WorkerPool:
    """Runs ``work`` of every job in worker processes, at most ``jobs`` at once.

    ``against`` (what every run is read against) is pickled once and unpickled
    once by each worker; ``names`` name the runs in errors and progress.
    """

    def __init__(
        self,
        work: Work,
        jobs: Sequence[Any],
        names: Sequence[str],
        against: Any,
        workers: int,
        on_progress: StageCallback = no_stage,
    ) -> None:
        self.work = work
        self.jobs = jobs
        self.names = names
        self.workers = workers
        self.on_progress = on_progress
        self.payload = pickle.dumps(against, protocol=pickle.HIGHEST_PROTOCOL)
        # each worker's share of the cores, for the threads it reads with
        self.threads = max(1, len(os.sched_getaffinity(0)) // max(1, min(workers, len(jobs))))
        self.results: dict[int, Any] = {}
        self.failures: dict[int, BaseException] = {}
        self.waiting = deque(range(len(jobs)))
        self.live: list[_Worker] = []
        self.started = 0  # workers started so far (for their names)

    def run(self) -> list[Any]:
        warm_up()
        try:
            done = 0
            while True:
                while done in self.results:
                    done += 1
                if done == len(self.jobs):
                    return [self.results[index] for index in range(len(self.jobs))]
                if done in self.failures:
                    raise self.failures[done]
                self._hand_out()
                if any(worker.index is not None for worker in self.live):
                    self._report(len(self.results))
                    self._collect()
                # else a worker ended as it was given its run: that run failed
        finally:
            self._stop_all()

    def _hand_out(self) -> None:
        """Give every idle worker the next run, start workers up to the limit,
        and let go of idle workers with nothing left to read (their memory)."""
        for worker in [w for w in self.live if w.index is None]:
            if self._next() is not None:
                self._give(worker, self.waiting.popleft())
            else:
                self._retire(worker)
        while self._next() is not None and len(self.live) < self.workers:
            self._start(self.waiting.popleft())

    def _next(self) -> int | None:
        """The next run to hand out, if there is one worth reading: a run after
        a failed one cannot change the outcome, and is not started."""
        until = min(self.failures, default=len(self.jobs))
        return self.waiting[0] if self.waiting and self.waiting[0] < until else None

    def _start(self, index: int) -> None:
        """Start a worker, send it what the runs are read against, and hand it
        run ``index``; a worker that ends before it has them fails the run."""
        here, there = _context().Pipe(duplex=True)
        process = _context().Process(
            target=_serve,
            args=(there, self.work, os.getcwd(), self.threads),
            name=f"judgepool-worker-{self.started + 1}",
            daemon=True,
        )
        with _interrupt_held():
            try:
                process.start()
            except OSError:  # it died as it was started (its start's pipe broke)
                there.close()
                here.close()
                self.failures[index] = WorkerStopped(self.names[index], None)
                return
            there.close()  # the worker holds the other copy: its end shows when it ends
            worker = _Worker(process, here)
            self.live.append(worker)
            self.started += 1
            try:
                here.send_bytes(self.payload)
            except OSError:  # its end of the pipe is closed: it is gone
                self._lost(worker, index)
                return
        self._give(worker, index)

    def _give(self, worker: _Worker, index: int) -> None:
        """Hand run ``index`` to ``worker``; a worker that is gone fails the run."""
        with _interrupt_held():
            try:
                worker.conn.send(self.jobs[index])
                worker.index = index
            except OSError:  # its end of the pipe is closed: it is gone
                self._lost(worker, index)

    def _retire(self, worker: _Worker) -> None:
        with suppress(OSError):  # already gone
            worker.conn.send(None)  # "no more runs": it ends by itself
        self._end(worker)

    def _lost(self, worker: _Worker, index: int) -> None:
        """``worker`` ended without a result for run ``index``: that run failed."""
        self._end(worker)
        self.failures[index] = WorkerStopped(self.names[index], worker.process.exitcode)

    def _end(self, worker: _Worker) -> None:
        """Wait for ``worker`` to end (killed if it does not), and let it go."""
        worker.process.join(STOP_GRACE_SECONDS)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        self._drop(worker)

    def _collect(self) -> None:
        """Wait for at least one worker to finish its run; take its result or error."""
        busy = [worker for worker in self.live if worker.index is not None]
        ready = set(wait([worker.conn for worker in busy]))
        for worker in busy:
            if worker.conn not in ready:
                continue
            index = worker.index
            assert index is not None
            try:
                outcome, value = worker.conn.recv()
            except (EOFError, OSError):
                self._lost(worker, index)
                continue
            worker.index = None
            if outcome == "ok":
                self.results[index] = value
            else:
                error, where = value
                if not isinstance(error, JudgepoolError):
                    # JUDGEPOOL_DEBUG=1 shows where it was raised, as concurrent.futures does
                    error.__cause__ = RemoteTraceback("in the worker process:\n" + where)
                self.failures[index] = error

    def _report(self, done: int) -> None:
        reading = sorted(w.index for w in self.live if w.index is not None)
        names = ", ".join(self.names[index] for index in reading)
        self.on_progress(f"{done} of {len(self.jobs)} runs done; reading {names}")

    def _drop(self, worker: _Worker) -> None:
        worker.conn.close()
        self.live.remove(worker)

    def _stop_all(self) -> None:
        """Stop the workers still there (after a failure, or an interrupt)."""
        for worker in self.live:
            worker.process.terminate()
        for worker in self.live:
            worker.process.join(STOP_GRACE_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self.live.clear()


@contextmanager
def _interrupt_held() -> Iterator[None]:
    """Ctrl-C held back while a worker is started and registered, or handed a
    run: an interrupt in the middle of sending left it reading half a pickle (a
    traceback on the terminal) or unknown to `_stop_all`. It is raised right
    after, with every worker known and stopped like the rest. (The Python
    handler is swapped, not the signal masked: with a progress thread running,
    the signal would reach that thread and the handler would still run here.)"""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread gets (and may handle) the signal
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _: held.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
    if held and callable(previous):
        previous(signal.SIGINT, None)  # Python's own handler raises KeyboardInterrupt


def _take_share_of_cores(threads: int) -> None:
    """Let the engine's reader (pyarrow's thread pool) use ``threads`` cores.

    Alone, a run is parsed by as many threads as there are cores: on 2 cores
    that parsed the 7-million-line run in 0.84 s instead of 0.97 s, for 1.67 s
    of CPU instead of 1.08 s. With a worker on every core those threads only
    contend: each worker gets its share of the cores."""
    import pyarrow as pa

    pa.set_cpu_count(threads)


def _serve(conn: Connection, work: Work, cwd: str, threads: int) -> None:
    """A worker: reads runs as they are handed to it, until told there are no
    more (or this process's parent is gone), sending back each run's
    ("ok", result) or ("error", (exception, traceback))."""
    # Ctrl-C reaches every process of the terminal's group: the parent stops
    # the workers itself (the forkserver's preload makes this the default too).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.chdir(cwd)  # the forkserver's is that of the first command that started it
    _take_share_of_cores(threads)
    against: Any = None
    try:
        payload = conn.recv_bytes()  # unpickled with the first run: its errors are that run's
    except (EOFError, OSError):
        return
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        message: tuple[str, Any]
        try:
            if against is None:
                against = pickle.loads(payload)
            message = ("ok", work(against, job))
        except BaseException as exc:  # everything goes back to the parent, which decides
            message = ("error", (exc, traceback.format_exc()))
        try:
            conn.send(message)
        except Exception as exc:  # a result or an exception that does not pickle
            unpicklable = RuntimeError(f"{type(exc).__name__}: {exc}")
            conn.send(("error", (unpicklable, traceback.format_exc())))
