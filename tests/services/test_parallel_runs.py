"""services.parallel_runs: workers stopped on a failure, a killed worker
reported, errors rebuilt whole from their pickles."""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time
from multiprocessing import forkserver
from pathlib import Path

import pytest

from judgepool.core.contract import Contract
from judgepool.core.errors import (
    DuplicateEntry,
    DuplicatesRejected,
    EngineInconsistency,
    InputError,
    JudgepoolError,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.services.parallel_runs import (
    Against,
    RemoteTraceback,
    RunJob,
    WorkerStopped,
    default_jobs,
    map_runs,
    parallel,
    score_task,
)
from judgepool.store.workspace import WorkspaceBusy

QUERIES = 3000
JUDGMENTS = {f"q{q}": {f"d{d}": d % 3 for d in range(10)} for q in range(QUERIES)}


def slow_run(path: Path, depth: int = 200) -> str:
    with path.open("w") as out:
        for q in range(QUERIES):
            out.writelines(f"q{q} Q0 d{d} {d + 1} {depth - d} t\n" for d in range(depth))
    return str(path)


def against(**policies: str) -> Against:
    return Against(JUDGMENTS, "digest", Contract(**policies), "fast")  # type: ignore[arg-type]


def workers() -> list[int]:
    """The live children of the forkserver: the workers."""
    server: int | None = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if server is None:
        return []
    children = Path(f"/proc/{server}/task/{server}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def test_a_failure_stops_the_workers_still_running(tmp_path: Path) -> None:
    slow = slow_run(tmp_path / "slow")
    refused = tmp_path / "refused"
    refused.write_text("q1 Q0 unjudged 1 1.0 t\n")
    runs = [RunJob(str(refused)), RunJob(slow), RunJob(slow)]
    started = time.monotonic()
    with pytest.raises(UnjudgedRejected, match="refused: 1 unjudged"):
        map_runs(score_task, runs, against(), jobs=3)
    assert workers() == []  # stopped, not left to finish
    alone = time.monotonic()
    map_runs(score_task, [RunJob(slow)], against(), jobs=1)
    # the refusal came back before a slow run could have been scored
    assert alone - started < 2 * (time.monotonic() - alone) + 1.0


def test_a_killed_worker_is_reported_for_its_run(tmp_path: Path) -> None:
    slow = slow_run(tmp_path / "slow", depth=400)
    found: list[int] = []

    def kill_first_worker() -> None:
        deadline = time.monotonic() + 30
        while not found and time.monotonic() < deadline:
            found.extend(workers()[:1])
            time.sleep(0.01)
        for pid in found:
            os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_first_worker)
    killer.start()
    try:
        with pytest.raises(WorkerStopped, match=r"slow: the worker .*SIGKILL.*fewer --jobs"):
            map_runs(score_task, [RunJob(slow), RunJob(slow)], against(), jobs=1 + 1)
    finally:
        killer.join()
    assert found and workers() == []


def test_an_unexpected_error_keeps_where_it_was_raised(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.write_text("q1 Q0 d0 1 1.0 t\n")
    # a contract that is not one: the worker's AttributeError, with its traceback
    broken = Against(JUDGMENTS, "digest", None, "fast")  # type: ignore[arg-type]
    with pytest.raises(AttributeError) as caught:
        map_runs(score_task, [RunJob(str(good)), RunJob(str(good))], broken, jobs=2)
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
    files = [RunJob(str(run)), RunJob(str(run))]
    assert parallel(2, files) and not parallel(1, files) and not parallel(4, files[:1])
    assert parallel(2, [RunJob("a stored run", stored=True), RunJob(str(run))])
    assert not parallel(2, [RunJob(str(run)), RunJob("/dev/stdin")])  # only we can read it
    with pytest.raises(ValueError, match="at least 1"):
        parallel(0, files)
    assert default_jobs(1) == 1
    assert default_jobs(1000) == len(os.sched_getaffinity(0))
