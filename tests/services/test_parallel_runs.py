"""services.runs.parallel_runs: runs handed to workers as plain values (a
file, a stored run), workers stopped on a failure, a killed worker reported,
errors rebuilt whole from their pickles."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from multiprocessing import forkserver
from multiprocessing.context import ForkServerProcess
from pathlib import Path

import pytest

from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import (
    DuplicateEntry,
    DuplicatesRejected,
    EngineInconsistency,
    InputError,
    JudgepoolError,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.services.imports import import_run
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.parallel_runs import (
    RemoteTraceback,
    WorkerStopped,
    default_jobs,
    map_runs,
    parallel,
)
from judgepool.services.runs.passes import Against, Wanted
from judgepool.services.runs.sources import RunSource, file_source, stored_source
from judgepool.services.runs.worker_pool import WorkerPool
from judgepool.services.workspace import init_workspace
from judgepool.store.workspace import WorkspaceBusy
from tests.sigint import ctrl_c_as_on_a_terminal

QUERIES = 3000
JUDGMENTS = {f"q{q}": {f"d{d}": d % 3 for d in range(10)} for q in range(QUERIES)}


def slow_run(path: Path, depth: int = 200) -> str:
    with path.open("w") as out:
        for q in range(QUERIES):
            out.writelines(f"q{q} Q0 d{d} {d + 1} {depth - d} t\n" for d in range(depth))
    return str(path)


def against(**policies: str) -> Against:
    return Against(JudgmentsSource(JUDGMENTS, "digest"), Contract(**policies), "fast")  # type: ignore[arg-type]


def scores(sources: list[RunSource], read_against: Against, jobs: int) -> list[ScoredRun]:
    """``judgepool score`` of ``sources`` with ``--jobs jobs``."""
    return [
        outcome.scored_run() for outcome in map_runs(sources, read_against, Wanted(), jobs=jobs)
    ]


def workers() -> list[int]:
    """The live children of the forkserver: the workers."""
    server: int | None = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if server is None:
        return []
    children = Path(f"/proc/{server}/task/{server}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def cpu_seconds(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_worker_reads_one_run_after_another(tmp_path: Path) -> None:
    # a process per worker, not per run: the second run reuses the first's memory
    slow = slow_run(tmp_path / "slow")
    seen: set[int] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.update(workers())
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        results = scores([file_source(slow)] * 5, against(), jobs=2)
    finally:
        stop.set()
        watcher.join()
    assert len(seen) == 2
    assert [r.evaluation for r in results] == [results[0].evaluation] * 5
    assert workers() == []  # each ended when it had nothing left to read


def test_a_worker_that_dies_as_it_starts_fails_its_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the race this stands for: killed between its fork and reading its start
    run = tmp_path / "r"
    run.write_text("q1 Q0 d0 1 1.0 t\n")

    def broken_start(self: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(ForkServerProcess, "start", broken_start)
    with pytest.raises(WorkerStopped, match=r"/r: the worker .* ended as it was started"):
        scores([file_source(run), file_source(run)], against(), jobs=2)


def test_a_failure_stops_the_workers_still_running(tmp_path: Path) -> None:
    slow = slow_run(tmp_path / "slow")
    refused = tmp_path / "refused"
    refused.write_text("q1 Q0 unjudged 1 1.0 t\n")
    runs = [file_source(refused), file_source(slow), file_source(slow)]
    started = time.monotonic()
    with pytest.raises(UnjudgedRejected, match="refused: 1 unjudged"):
        scores(runs, against(), jobs=3)
    assert workers() == []  # stopped, not left to finish
    alone = time.monotonic()
    scores([file_source(slow)], against(), jobs=1)
    # the refusal came back before a slow run could have been scored
    assert alone - started < 2 * (time.monotonic() - alone) + 1.0


def test_a_killed_worker_is_reported_for_its_run(tmp_path: Path) -> None:
    slow = slow_run(tmp_path / "slow", depth=400)
    found: list[int] = []

    def kill_first_worker() -> None:
        # once it is reading (has used CPU time), as the system kills for memory
        deadline = time.monotonic() + 30
        while not found and time.monotonic() < deadline:
            found.extend(pid for pid in workers()[:1] if cpu_seconds(pid) > 0.1)
            time.sleep(0.01)
        for pid in found:
            os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_first_worker)
    killer.start()
    try:
        with pytest.raises(WorkerStopped, match=r"slow: the worker .*SIGKILL.*fewer --jobs"):
            scores([file_source(slow), file_source(slow)], against(), jobs=1 + 1)
    finally:
        killer.join()
    assert found and workers() == []


def test_an_unexpected_error_keeps_where_it_was_raised(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.write_text("q1 Q0 d0 1 1.0 t\n")
    # a contract that is not one: the worker's AttributeError, with its traceback
    broken = Against(JudgmentsSource(JUDGMENTS, "digest"), None, "fast")  # type: ignore[arg-type]
    with pytest.raises(AttributeError) as caught:
        scores([file_source(good), file_source(good)], broken, jobs=2)
    assert isinstance(caught.value.__cause__, RemoteTraceback)
    assert "in the worker process" in str(caught.value.__cause__)


@pytest.mark.parametrize(
    "error",
    [
        InputError("a bad rank", "run.txt", 7),
        InputError("no such file"),
        DuplicatesRejected([DuplicateEntry("q", "d", (1, 4))], "run.txt"),
        UnjudgedRejected([UnjudgedEntry("q", "d", 3)], "run.txt", {("q", "d"): "disputed"}),
        EngineInconsistency("a sum"),
        WorkspaceBusy("ws.sqlite", 5000),
    ],
)
def test_judgepool_errors_survive_pickling_whole(error: JudgepoolError) -> None:
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert (str(again), again.args, again.exit_code) == (str(error), error.args, error.exit_code)
    assert again.__dict__ == error.__dict__


def test_when_runs_are_read_in_workers(tmp_path: Path) -> None:
    run = tmp_path / "r"
    run.write_text("q1 Q0 d0 1 1.0 t\n")
    files: list[RunSource] = [file_source(run), file_source(run)]
    assert parallel(2, files) and not parallel(1, files) and not parallel(4, files[:1])
    with init_workspace(tmp_path / "w.sqlite") as ws:
        assert parallel(2, [stored_source(ws, "a stored run"), file_source(run)])
    assert not parallel(2, [file_source(run), file_source("/dev/stdin")])  # only we can read it
    with pytest.raises(ValueError, match="at least 1"):
        parallel(0, files)
    assert default_jobs(1) == 1
    assert default_jobs(1000) == len(os.sched_getaffinity(0))


def test_a_run_goes_to_its_worker_as_a_plain_value(tmp_path: Path) -> None:
    # a file as its path; a stored run as its workspace's path and its name,
    # read there through a connection of the worker's own
    run = tmp_path / "sys.trec"
    run.write_text("q1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq2 Q0 d0 1 1.0 t\n")
    assert pickle.loads(pickle.dumps(file_source(run))) == file_source(run)
    with init_workspace(tmp_path / "w.sqlite") as ws:
        import_run(ws, run, name="sys")
        sources = [file_source(run), stored_source(ws, "sys"), file_source(run)]
        here = scores(sources, against(), jobs=1)
        elsewhere = scores(sources, against(), jobs=2)
    assert elsewhere == here
    assert [result.run for result in elsewhere] == [str(run), "sys", str(run)]
    assert here[1].evaluation == here[0].evaluation


def reader_threads(against: object, job: object) -> int:
    """A pool's work (module level: a worker is given it by name)."""
    import pyarrow

    return int(pyarrow.cpu_count())


@pytest.mark.parametrize("jobs", [1, 2, 64])
def test_each_worker_reads_with_its_share_of_the_cores(jobs: int) -> None:
    cores = len(os.sched_getaffinity(0))
    found = WorkerPool(reader_threads, ["a", "b"], ["a", "b"], None, jobs).run()
    assert found == [max(1, cores // min(jobs, 2))] * 2


def dying_work(against: object, job: str) -> str:
    """A pool's work (module level): "die" kills its own worker, as the system
    does when memory runs out, once the other runs are under way; a "slow"
    run takes a while; a "bad" one raises."""
    if job == "die":
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGKILL)
    if job.startswith("slow"):
        time.sleep(2.0)
    if job.endswith("bad"):
        raise ValueError(job)
    return job


def test_a_killed_worker_names_its_own_run_not_those_lost_with_it() -> None:
    # "slow" is read beside "die" when its worker dies: lost with the pool,
    # read again, it is no failure; "die" is
    jobs = ["slow", "die", "c"]
    with pytest.raises(WorkerStopped, match=r"^die: the worker .*SIGKILL"):
        WorkerPool(dying_work, jobs, jobs, None, 2).run()
    assert workers() == []


def test_a_failure_before_a_killed_worker_s_run_is_the_one_raised() -> None:
    # one after another, "slow bad" would fail first: so it does here, though
    # the pool broke while it was read
    jobs = ["slow bad", "die"]
    with pytest.raises(ValueError, match="slow bad"):
        WorkerPool(dying_work, jobs, jobs, None, 2).run()
    assert workers() == []


def unpicklable_work(against: object, job: str) -> object:
    """A pool's work (module level) whose result cannot go back to the parent."""
    return lambda: job


def test_a_result_that_does_not_pickle_fails_its_run_with_where() -> None:
    with pytest.raises((AttributeError, pickle.PicklingError), match="pickle") as caught:
        WorkerPool(unpicklable_work, ["a", "b"], ["a", "b"], None, 2).run()
    assert isinstance(caught.value.__cause__, RemoteTraceback)
    assert "in the worker process" in str(caught.value.__cause__)
    assert workers() == []


PRESSED_AS_THE_FORKSERVER_STARTS = """
import os, signal, sys
from multiprocessing import forkserver
from judgepool.services.runs import worker_pool

start = forkserver.ensure_running

def start_with_ctrl_c_pressed() -> None:
    os.kill(os.getpid(), signal.SIGINT)  # the terminal's Ctrl-C, at the worst moment
    start()

forkserver.ensure_running = start_with_ctrl_c_pressed
try:
    worker_pool.warm_up()
except KeyboardInterrupt:
    server = forkserver._forkserver._forkserver_pid
    masks = dict(line.split(":\\t") for line in open(f"/proc/{server}/status").read().splitlines()
                 if line.startswith(("SigBlk", "SigIgn")))
    bit = 1 << (signal.SIGINT - 1)
    shielded = any(int(masks[name], 16) & bit for name in masks)
    print("interrupted", "shielded" if shielded else "exposed")
else:
    print("lost")
"""


def test_ctrl_c_as_the_forkserver_starts_is_raised_not_lost() -> None:
    # The forkserver is started with Ctrl-C blocked (it would print a traceback
    # before its preload ignores it). When this process ignored it instead, a
    # Ctrl-C pressed meanwhile was discarded and the command ran to its end.
    done = subprocess.run(
        [sys.executable, "-c", PRESSED_AS_THE_FORKSERVER_STARTS],
        capture_output=True, text=True, timeout=120, preexec_fn=ctrl_c_as_on_a_terminal,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["interrupted", "shielded"]
    assert "Traceback" not in done.stderr
