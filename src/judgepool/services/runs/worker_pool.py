"""The worker processes behind `judgepool.services.runs.parallel_runs.map_runs`:
the standard library's `concurrent.futures.ProcessPoolExecutor`, at most
``workers`` at once, the results given back in the order the runs were named.

What is added to the executor's defaults is what a measurement
(tests/benchmarks/bench_parallel.py) or a test (test_parallel_runs.py in
tests/services and tests/cli) needs:

- a worker reads one run after another (no ``max_tasks_per_child``): a fresh
  process has the kernel hand it, zeroed, every page it touches (~0.6 s of
  system time per 7-million-line run); the six dev-scale runs took 9.78 s at
  two workers, 0.92 of one after another, in 1.7 GB;
- a forkserver that imported the engine once forks the workers (`PRELOAD`:
  2.2-2.7 s of imports on the loaded 2-core machine, paid once), started
  early by `warm_up` with Ctrl-C blocked (tested);
- what the runs are read against is pickled once, and unpickled by each
  worker with its first run: the executor starts its workers in `submit`,
  one by one, and a slow start let the pool break while one was under way
  (`_name_the_lost_run`);
- each worker parses with its share of the cores (`_take_share_of_cores`,
  measured and tested), in the command's working directory;
- the first run in order that fails raises its error, as one after another
  would, and the workers still reading are stopped (`_stop`; the executor
  cannot stop a run under way on Python 3.11), as on Ctrl-C, without a
  traceback (`_interrupt_held`); tested;
- a worker that dies (killed for memory, most likely) breaks the pool, which
  fails every run in flight with `BrokenProcessPool`, naming neither the run
  nor how the worker ended: each worker notes the run it starts (a shared
  array of process IDs), so that run fails with `WorkerStopped` and the exit
  code, and the runs before it lost with the pool are read again, so that the
  error raised is still the first in order; tested;
- a worker's unexpected error keeps where it was raised (`RemoteTraceback`;
  tested), and the progress line on a terminal names the runs under way.

The signal handling assumes the caller is the main thread (the command line's).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import RawArray
from typing import Any, Final

from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.terms.errors import JudgepoolError

# 'forkserver', not 'fork': the parent has threads when it forks (the progress
# line's, which writes to stderr under a lock a forked child could inherit
# held; and a worker does write to stderr), and holds an open workspace
# connection, which must not cross a fork. The server starts once per command
# (a fresh interpreter importing the engine, `PRELOAD`: ~0.4 s, overlapped with
# reading the judgments by `warm_up`), then forks each worker in a few
# milliseconds, with the engine already imported.
START_METHOD: Final = "forkserver"
PRELOAD: Final = "judgepool.services.runs.parallel_preload"
# How often the progress line is brought up to date while runs are read.
PROGRESS_SECONDS: Final = 0.25

# What a worker does with one run: (what the runs are read against, the run)
# -> its result. A module-level function (or a partial of one): a worker is
# given it by its name.
Work = Callable[[Any, Any], Any]


class WorkerStopped(JudgepoolError):
    """A worker process ended without a result (killed, most likely for memory)."""

    def __init__(self, ref: str, exitcode: int | None) -> None:
        if exitcode is None:
            how = "it ended as it was started"
        elif exitcode == -signal.SIGKILL:
            how = "it was killed (SIGKILL: what the system does when memory runs out)"
        elif exitcode < 0:
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
    _context().set_forkserver_preload([PRELOAD])
    # late: only a command that runs workers starts their fork server
    from multiprocessing import forkserver, resource_tracker

    # Ctrl-C reaches the whole process group. The forkserver ignores it only
    # once its preload has run: a Ctrl-C before that printed a KeyboardInterrupt
    # traceback from it. So it is started with the signal blocked, which stays
    # so across fork and exec (and in the workers it forks). This process does
    # not ignore it meanwhile, as it once did: an ignored signal is discarded,
    # and a Ctrl-C pressed then was lost (the command ran to its end, under
    # load); a blocked one waits and is raised the moment the mask is put
    # back. The resource tracker is started first, on its own: CPython blocks
    # Ctrl-C around its start itself, and unblocks it after.
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _context() -> Any:
    return multiprocessing.get_context(START_METHOD)


# An outcome: (True, the result) or (False, the exception to raise).
Outcome = tuple[bool, Any]


class WorkerPool:
    """Runs ``work`` of every job in worker processes, at most ``workers`` at once.

    ``against`` (what every run is read against) is pickled once here and
    unpickled once by each worker; ``names`` name the runs in errors and progress.
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
        self.payload = pickle.dumps(against, protocol=pickle.HIGHEST_PROTOCOL)
        self.workers = workers
        self.on_progress = on_progress
        # each worker's share of the cores, for the threads it reads with
        self.threads = max(1, len(os.sched_getaffinity(0)) // max(1, min(workers, len(jobs))))
        self.outcomes: dict[int, Outcome] = {}

    def run(self) -> list[Any]:
        """Every job's result, in order; or the first failure in order, raised."""
        warm_up()
        todo = list(range(len(self.jobs)))
        while todo:
            self._read(todo)
            # the runs before the first failure that a dead worker took down
            # with the pool: read again (each round gives one run's outcome at
            # least, so this ends)
            todo = [index for index in range(self._first_failure()) if index not in self.outcomes]
        first = self._first_failure()
        if first < len(self.jobs):
            raise self.outcomes[first][1]
        return [self.outcomes[index][1] for index in range(len(self.jobs))]

    def _first_failure(self) -> int:
        """The first failed run in order (the number of runs: none failed)."""
        failed = (index for index, (ok, _) in self.outcomes.items() if not ok)
        return min(failed, default=len(self.jobs))

    def _known(self, indices: Iterable[int]) -> bool:
        """Whether the outcome is known: every run of ``indices`` before the
        first failure (every run, when none failed) is read."""
        first = self._first_failure()
        return all(index in self.outcomes for index in indices if index < first)

    def _read(self, indices: list[int]) -> None:
        """One pool reading the runs ``indices``, until the outcome is known
        (the workers still reading are then stopped), or a worker dies."""
        # each run's reader: the process ID of the worker that started it
        reading = RawArray("q", len(self.jobs))
        before = set(multiprocessing.active_children())
        executor = ProcessPoolExecutor(
            max_workers=min(self.workers, len(indices)),
            mp_context=_context(),
            initializer=_start_worker,
            initargs=(self.work, self.payload, os.getcwd(), self.threads, reading),
        )
        futures: dict[Future[tuple[bool, Any]], int] = {}
        every_run_read = False
        try:
            with _interrupt_held():  # the workers are started as the runs are handed out
                for index in indices:
                    try:
                        futures[executor.submit(_read_one, index, self.jobs[index])] = index
                    except OSError:  # a worker died as it was started (its start's pipe broke)
                        self.outcomes[index] = (False, WorkerStopped(self.names[index], None))
                        break
                    except BrokenProcessPool:  # a worker died: the futures tell
                        break
            # known now, while alive: a worker that dies leaves active_children
            processes = [p for p in multiprocessing.active_children() if p not in before]
            if self._collect(futures, reading):
                every_run_read = self._first_failure() == len(self.jobs)
            else:
                self._name_the_lost_run(executor, processes, futures, reading)
        finally:
            if every_run_read:
                executor.shutdown(wait=True)  # the idle workers end by themselves
            else:  # a failure, a dead worker or an interrupt: the rest are stopped
                _stop(executor, [p for p in multiprocessing.active_children() if p not in before])

    def _collect(self, futures: dict[Future[tuple[bool, Any]], int], reading: Any) -> bool:
        """Take the outcomes as they come, until the outcome is known (True)
        or a worker dies (False: the pool is broken, every run in flight fails)."""
        pending = set(futures)
        shown = ""
        while pending and not self._known(futures.values()):
            first = self._first_failure()
            for future in pending:
                if futures[future] > first:
                    future.cancel()  # a run after a failed one cannot change the outcome
            progress = self._progress(futures, reading)
            if progress != shown:
                self.on_progress(progress)
                shown = progress
            done, pending = wait(pending, timeout=PROGRESS_SECONDS, return_when=FIRST_COMPLETED)
            for future in done:
                if future.cancelled():
                    continue
                error = future.exception()
                if isinstance(error, BrokenProcessPool):
                    return False
                index = futures[future]
                if error is not None:  # its result did not pickle
                    self.outcomes[index] = (False, _raised(error, str(error.__cause__ or "")))
                else:
                    self.outcomes[index] = _outcome(future.result())
        return True

    def _progress(self, futures: dict[Future[tuple[bool, Any]], int], reading: Any) -> str:
        under_way = sorted(i for i in futures.values() if reading[i] and i not in self.outcomes)
        names = ", ".join(self.names[index] for index in under_way)
        return f"{len(self.outcomes)} of {len(self.jobs)} runs done; reading {names}"

    def _name_the_lost_run(
        self,
        executor: ProcessPoolExecutor,
        processes: list[BaseProcess],
        futures: dict[Future[tuple[bool, Any]], int],
        reading: Any,
    ) -> None:
        """A worker died, and the pool with it: the run that worker was
        reading fails with `WorkerStopped` (saying how the worker ended); the
        other runs lost with the pool are left without an outcome."""
        # The broken pool (Python 3.11) terminates the workers it knows of,
        # then waits for every worker to end; one still being started as it
        # broke reads a run and waits forever for its result to be taken
        # (seen: the killed-worker test hung, its starts slowed). So every
        # worker is stopped first, as the pool stops them: without asking
        # whether it is alive, which reads its exit code as the pool's thread
        # may be reading it (one of the two then reads 255).
        for process in processes:
            process.terminate()
        executor.shutdown(wait=True)  # every worker has ended: each exit code is known
        for future, index in futures.items():  # those done before the pool broke
            done = future.done() and not future.cancelled() and future.exception() is None
            if done and index not in self.outcomes:
                self.outcomes[index] = _outcome(future.result())
        lost = sorted(index for index in futures.values() if index not in self.outcomes)
        if not lost:
            return
        exits = {p.pid: p.exitcode for p in processes if p.pid is not None}
        # the pool terminates (SIGTERM) the workers still alive when one dies
        died = {pid for pid, code in exits.items() if code not in (0, -signal.SIGTERM)}
        # the run it was reading; else (it died between runs, or of a SIGTERM
        # of its own) the first run lost
        blamed = next((index for index in lost if reading[index] in died), lost[0])
        exitcode = exits.get(reading[blamed]) if reading[blamed] else None
        if exitcode is None and died:
            exitcode = exits[min(died)]
        self.outcomes[blamed] = (False, WorkerStopped(self.names[blamed], exitcode))


def _stop(executor: ProcessPoolExecutor, processes: list[BaseProcess]) -> None:
    """Stop the workers still there (after a failure, or an interrupt); the
    executor's shutdown waits until each has ended."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    executor.shutdown(wait=True, cancel_futures=True)


def _outcome(message: tuple[bool, Any]) -> Outcome:
    """A worker's message as an outcome: its result, or its error as raised here."""
    ok, value = message
    if ok:
        return True, value
    error, where = value
    return False, _raised(error, where)


def _raised(error: BaseException, where: str) -> BaseException:
    """A worker's ``error`` as raised here: a judgepool error as it is (its
    message says all); any other with where the worker raised it as its cause
    (``JUDGEPOOL_DEBUG=1`` shows it, as concurrent.futures does)."""
    if not isinstance(error, JudgepoolError):
        error.__cause__ = RemoteTraceback("in the worker process:\n" + where)
    return error


@contextmanager
def _interrupt_held() -> Iterator[None]:
    """Ctrl-C held back while the runs are handed to the pool, which starts
    its workers then: an interrupt in the middle of a start left a worker
    reading half a pickle (a traceback on the terminal) or unknown to the
    pool. It is raised right after, with every worker known and stopped like
    the rest. (The Python handler is swapped, not the signal masked: with a
    progress thread running, the signal would reach that thread and the
    handler would still run here.)"""
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _: held.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
    if held and callable(previous):
        previous(signal.SIGINT, None)  # Python's own handler raises KeyboardInterrupt


# A worker's state, set once by `_start_worker`.
_NOT_YET: Final = object()
_work: Work | None = None
_payload = b""
_against: Any = _NOT_YET
_reading: Any = None


def _start_worker(work: Work, payload: bytes, cwd: str, threads: int, reading: Any) -> None:
    """A worker's start (the executor's ``initializer``): what it keeps for
    its runs, and how it behaves."""
    global _work, _payload, _reading
    # Ctrl-C reaches every process of the terminal's group: the parent stops
    # the workers itself (the forkserver's preload makes this the default too).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.chdir(cwd)  # the forkserver's is that of the first command that started it
    _take_share_of_cores(threads)
    _work, _payload, _reading = work, payload, reading


def _take_share_of_cores(threads: int) -> None:
    """Let the engine's reader (pyarrow's thread pool) use ``threads`` cores.

    Alone, a run is parsed by as many threads as there are cores: on 2 cores
    that parsed the 7-million-line run in 0.84 s instead of 0.97 s, for 1.67 s
    of CPU instead of 1.08 s. With a worker on every core those threads only
    contend: each worker gets its share of the cores."""
    import pyarrow as pa  # late: only where a run is read

    pa.set_cpu_count(threads)


def _read_one(index: int, job: Any) -> tuple[bool, Any]:
    """A worker's reading of run ``index``: (True, its result), or (False,
    (the exception it raised, where)), which the parent raises if it is the
    first failure in order. Exceptions travel without their traceback or
    cause: where it was raised goes as text."""
    global _against
    _reading[index] = os.getpid()
    assert _work is not None, "a worker is started by _start_worker"
    try:
        if _against is _NOT_YET:  # unpickled with the first run: its errors are that run's
            _against = pickle.loads(_payload)
        return True, _work(_against, job)
    except BaseException as exc:  # everything goes back to the parent, which decides
        return False, (exc, traceback.format_exc())
