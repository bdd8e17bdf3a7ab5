"""What every test of the suite shares.

pytest-xdist sets ``COLUMNS=80`` and ``LINES=24`` in its workers' environment.
Textual takes those as the terminal's size, so an app started in a wider tmux
window by a worker drew itself at 80 × 24 (and the terminal tests read half a
screen); click wraps help to them too. The suite runs the same with and
without ``-n``: they are dropped here, before any test starts a process.

Also here, for the suite's time (README, Development): bytecode written, two
workers per core for ``-n auto``, the tests sent to them one at a time, the
run's files in memory, and the order tests start in.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from tests.sigint import sigint_state

_IN_MEMORY: Final = pytest.StashKey[Path]()

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def _ctrl_c_handled_as_before() -> Iterator[None]:
    """A test that leaves this process ignoring (or blocking, or handling
    otherwise) Ctrl-C fails here: an ignored or blocked SIGINT is inherited by
    every command a later test of the same worker starts, so that test's
    Ctrl-C did nothing (its command ran to the end and exited 0) — a failure
    that moved with the order the workers took the tests in."""
    before = sigint_state()
    yield
    after = sigint_state()
    if after != before:
        handler, _, blocked = before
        if handler is not None:  # None: not set from Python, nothing to put back
            signal.signal(signal.SIGINT, handler)  # type: ignore[arg-type]
        how = signal.SIG_BLOCK if blocked else signal.SIG_UNBLOCK
        signal.pthread_sigmask(how, {signal.SIGINT})
        pytest.fail(
            f"the test left Ctrl-C (handler, ignored, blocked) changed: {before!r} -> {after!r}"
        )


def pytest_configure(config: pytest.Config) -> None:
    """The tests' files in memory (/dev/shm) where the machine has it and no
    ``--basetemp`` was given: a workspace write is durable only once SQLite's
    fsync returns, and on this machine's disk the waits for it left the cores
    idle (the command-line and store tests: 125 s on disk, 110 s in memory).
    SQLite, the files and the processes behave the same; only the wait for
    the disk is gone. The folder is this run's own, and is removed when the
    run ends. With pytest-xdist the controller makes it and the workers get
    their parts of it (``--basetemp/gwN``)."""
    _send_tests_one_by_one(config)
    _bytecode_written(config)
    if hasattr(config, "workerinput") or config.option.basetemp:
        return
    memory = Path("/dev/shm")
    if memory.is_dir() and os.access(memory, os.W_OK):
        config.option.basetemp = tempfile.mkdtemp(prefix="judgepool-tests-", dir=memory)
        config.stash[_IN_MEMORY] = Path(config.option.basetemp)


def _bytecode_written(config: pytest.Config) -> None:
    """The processes the run starts write the bytecode of what they import
    (``__pycache__`` beside each module, ignored by git), as Python does by
    default, even where ``PYTHONDONTWRITEBYTECODE`` is set, as on this machine.
    With it, every worker compiled its tests and judgepool from source, and so
    did each ``judgepool`` command, terminal app and server the tests start
    (0.11 s of a 0.6 s ``judgepool score``): on a command-line and an app test
    file, 52 s of CPU with the variable, 37 s without it. (A
    ``PYTHONPYCACHEPREFIX`` in the run's own folder was tried and cost more:
    there every installed package's bytecode is missed too.)
    Workers and what they start inherit the environment; the controller's own
    imports are done by now."""
    if not hasattr(config, "workerinput"):
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def _send_tests_one_by_one(config: pytest.Config) -> None:
    """pytest-xdist's ``--dist load`` hands each worker, at the start, a block
    of consecutive tests (a sixteenth of the suite with four workers) before
    it sends the rest on demand: the first worker's block was the suite's
    slow tests, which that worker then ran one after another for 564 s while
    the other three had finished theirs (the suite took 604 s, when the tests'
    time over four workers is 420 s). One test at a time (``--maxschedchunk
    1``, unless given) keeps every worker busy until the end; the longest
    tests start first (``pytest_collection_modifyitems``)."""
    if getattr(config.option, "maxschedchunk", ...) is None:
        config.option.maxschedchunk = 1


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_IN_MEMORY, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core, not one. Measured per test with
    getrusage, a worker spent about half its time waiting, not computing: on
    the apps it drives in tmux and in browsers, on the commands it starts, on
    Pilot's pauses. A second worker per core runs its tests in those waits."""
    return 2 * len(os.sched_getaffinity(0))


# After the tests marked slow, the folders whose tests take longest each (the
# app under Pilot or in a terminal, browsers, commands run as processes: a few
# seconds a test), then the rest (engine, formats and store tests, mostly well
# under a second): short tests last fill the workers' ends evenly.
HEAVY_FOLDERS: Final = ("tui", "serve", "cli")


def _run_order(item: pytest.Item) -> tuple[int, int]:
    folder = item.path.parent.name
    heavy = HEAVY_FOLDERS.index(folder) if folder in HEAVY_FOLDERS else len(HEAVY_FOLDERS)
    return (item.get_closest_marker("slow") is None, heavy)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first, then the heavy folders' tests, then the
    rest, each group in its own order: with ``-n``, the longest tests start at
    once on every worker and the short ones fill in after, rather than a long
    test starting last and the other workers waiting for it (on 2 cores, the
    suite's last minute was the app's tests, collected last). Every worker
    collects the same order, as pytest-xdist asks."""
    items.sort(key=_run_order)
