"""score and audit of several runs at once (--jobs): the same output as one
after another, the same first failure, and no worker left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli.conftest import ranked, write_qrels, write_run
from tests.sigint import ctrl_c_as_on_a_terminal

JUDGEPOOL = [sys.executable, "-m", "judgepool"]
DATA = Path(__file__).parents[1] / "fixtures" / "dl19-top20"
RUNS = [DATA / name for name in ("bm25.top20.trec", "splade-pp-ed.top20.trec",
                                 "repllama.top20.trec")]  # fmt: skip


def same_either_way(cli: Callable[..., Result], *args: object, jobs: int = 3) -> Result:
    """Run the command with --jobs 1 and with --jobs ``jobs``: exit code,
    standard output and standard error must be the same, byte for byte."""
    one = cli(*args, "--jobs", "1")
    many = cli(*args, "--jobs", str(jobs))
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    return many


def big_run(path: Path, queries: int, depth: int) -> Path:
    """A run of ``queries`` × ``depth`` lines on the queries of `big_qrels`."""
    with path.open("w") as out:
        for q in range(queries):
            out.writelines(f"q{q} Q0 d{d} {d + 1} {depth - d} big\n" for d in range(depth))
    return path


def big_qrels(path: Path, queries: int) -> Path:
    return write_qrels(path, {f"q{q}": {f"d{d}": d % 3 for d in range(0, 40, 3)}
                              for q in range(queries)})  # fmt: skip


@pytest.mark.parametrize("output_format", ["table", "json", "trec"])
def test_score_files_same_output_as_one_after_another(
    cli: Callable[..., Result], output_format: str
) -> None:
    result = same_either_way(
        cli, "score", *RUNS, RUNS[0], "--qrels", DATA / "qrels.txt", "--preset", "trec_eval",
        "--per-query", "--format", output_format,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    if output_format == "json":
        named = [json.loads(line)["run"] for line in result.stdout.splitlines()]
        assert named == [str(run) for run in (*RUNS, RUNS[0])]
    else:  # the tables name each run; trec's lines do not
        assert output_format == "trec" or all(str(run) in result.stdout for run in RUNS)


@pytest.mark.parametrize("output_format", ["table", "json"])
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_audit_and_score_audit_same_output(
    cli: Callable[..., Result], output_format: str, engine: str
) -> None:
    common = ("--qrels", DATA / "qrels.txt", "-k", "10", "--format", output_format,
              "--engine", engine)  # fmt: skip
    audited = same_either_way(cli, "audit", *RUNS, *common)
    assert audited.exit_code == 0, audited.output
    both = same_either_way(cli, "score", *RUNS, *common, "--audit", "--unjudged", "zero")
    assert both.exit_code == 0, both.output


@pytest.fixture
def workspace(cli: Callable[..., Result], tmp_path: Path) -> Path:
    ws = tmp_path / "ws.sqlite"
    steps = [("init", ws), ("import", ws, "qrels", DATA / "qrels.txt")]
    steps += [("import", ws, "run", run, "--name", run.name.split(".")[0]) for run in RUNS]
    for args in steps:
        result = cli(*args)
        assert result.exit_code == 0, result.output
    return ws


@pytest.mark.slow
def test_stored_runs_same_output_and_stored_evaluations(
    cli: Callable[..., Result], workspace: Path
) -> None:
    for output_format in ("table", "json", "trec"):
        result = same_either_way(cli, "score", "--workspace", workspace, "--preset", "trec_eval",
                                 "--format", output_format)  # fmt: skip
        assert result.exit_code == 0, result.output
        # each call stored one evaluation per run, the same with --jobs 3 as with 1
        listed = cli("evaluations", workspace, "--format", "json")
        assert listed.exit_code == 0, listed.output
        latest = [json.loads(line) for line in listed.stdout.splitlines()][-6:]
        for stored in latest:
            del stored["id"], stored["created_at"]
        assert latest[:3] == latest[3:]
        assert [stored["run"] for stored in latest[:3]] == ["bm25", "repllama", "splade-pp-ed"]
    # a stored run beside a file, in that order
    mixed = same_either_way(cli, "score", "splade-pp-ed", RUNS[0], "bm25", "--workspace",
                            workspace, "--preset", "trec_eval", "--format", "json")  # fmt: skip
    assert [json.loads(line)["run"] for line in mixed.stdout.splitlines()] == [
        "splade-pp-ed", str(RUNS[0]), "bm25",
    ]  # fmt: skip
    audited = same_either_way(cli, "audit", "--workspace", workspace, "--format", "json")
    assert len(audited.stdout.splitlines()) == 3


def test_first_failure_in_order_is_reported_as_one_after_another(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels = write_qrels(tmp_path / "q", {"q": {"A": 2, "B": 1}})
    good = write_run(tmp_path / "good", ranked("q", ["A", "B"]))
    unjudged = write_run(tmp_path / "unjudged", ranked("q", ["A", "X"]))
    bad = tmp_path / "bad"
    bad.write_text("q Q0 A 1 1.0 t\nq Q0 B two 0.5 t\n")
    # a policy refusal in the middle (exit 1), before a bad line (exit 2)
    refused = same_either_way(cli, "score", good, unjudged, good, bad, "--qrels", qrels)
    assert refused.exit_code == 1
    assert "unjudged document(s) in the top k" in refused.stderr and str(bad) not in refused.stderr
    # the bad line first: its message and exit code, not the later refusal's
    broken = same_either_way(cli, "score", good, bad, unjudged, "--qrels", qrels, "--audit")
    assert broken.exit_code == 2 and f"{bad}:2:" in broken.stderr
    # a name that is neither a file nor a stored run, and a directory
    missing = same_either_way(cli, "score", good, tmp_path / "nope", "--qrels", qrels)
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    folder = same_either_way(cli, "audit", good, tmp_path, "--qrels", qrels)
    assert folder.exit_code == 2 and "is a directory" in folder.stderr


def test_the_workspace_s_own_file_is_refused_as_one_after_another(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # decided where the run is named, in this process: a worker, with no
    # connection of its own open, once read the workspace's file as a run
    ws = tmp_path / "ws.sqlite"
    qrels = write_qrels(tmp_path / "q", {"q": {"A": 2}})
    run = write_run(tmp_path / "r", ranked("q", ["A"]))
    for args in (("init", ws), ("import", ws, "qrels", qrels)):
        done = cli(*args)
        assert done.exit_code == 0, done.output
    refused = same_either_way(cli, "score", run, ws, "--workspace", ws)
    assert refused.exit_code == 2 and "is the workspace, not a file" in refused.stderr


def test_order_kept_when_the_first_run_is_the_slowest(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels = big_qrels(tmp_path / "q", 2000)
    slow = big_run(tmp_path / "slow", 2000, 150)
    quick = [write_run(tmp_path / f"quick{i}", ranked("q1", ["d0", "d3"])) for i in range(3)]
    args = ("score", slow, *quick, "--qrels", qrels, "--format", "json", "--unjudged", "zero")
    result = same_either_way(cli, *args, jobs=4)
    assert [json.loads(line)["run"] for line in result.stdout.splitlines()] == [
        str(path) for path in (slow, *quick)
    ]


@pytest.mark.parametrize("jobs", ["0", "-2", "two", "１"])
def test_jobs_below_one_or_not_a_number_refused(
    cli: Callable[..., Result], jobs: str, tmp_path: Path
) -> None:
    qrels = write_qrels(tmp_path / "q", {"q": {"A": 2}})
    run = write_run(tmp_path / "r", ranked("q", ["A"]))
    for command in ("score", "audit"):
        result = cli(command, run, run, "--qrels", qrels, "--jobs", jobs)
        assert result.exit_code == 2
        assert "--jobs" in result.stderr and "Traceback" not in result.stderr


def test_help_says_runs_are_read_at_once(cli: Callable[..., Result]) -> None:
    for command in ("score", "audit"):
        text = " ".join(cli(command, "--help").stdout.split())
        assert "--jobs N" in text and "worker process" in text and "memory" in text


def session_processes(session: int) -> dict[int, int]:
    """The processes of ``session`` (pid: parent pid)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == session:
            found[int(entry)] = int(fields[1])
    return found


def workers_of(session: int) -> list[int]:
    """The session's processes whose parent is in the session too: the workers
    (children of the forkserver), not the forkserver or its resource tracker."""
    processes = session_processes(session)
    return [pid for pid, parent in processes.items() if parent in processes and parent != session]


def all_gone(session: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while session_processes(session):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def slow_runs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    yield big_qrels(tmp_path / "q", 5000), big_run(tmp_path / "slow", 5000, 200)


def test_refusal_stops_the_other_workers(tmp_path: Path, slow_runs: tuple[Path, Path]) -> None:
    qrels, slow = slow_runs
    refused = write_run(tmp_path / "refused", ranked("q1", ["unjudged"]))
    command: list[str | Path] = [
        *JUDGEPOOL,
        "score",
        refused,
        slow,
        slow,
        slow,
        "--qrels",
        qrels,
        "--jobs",
        "2",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)  # fmt: skip
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 1, stderr
    assert stderr.startswith(f"judgepool: {refused}: 1 unjudged".encode())
    # the workers were stopped before the command returned; the forkserver follows
    assert workers_of(process.pid) == []
    assert all_gone(process.pid)


def interrupted(
    command: list[str | Path], ready: Callable[[int], bool], then: float = 0.0
) -> tuple[subprocess.Popen[bytes], bytes]:
    """Run ``command`` in a session of its own and press Ctrl-C (SIGINT to
    the whole group, as a terminal does) once ``ready(pid)`` holds and
    ``then`` seconds more have passed; the ended process and its stderr."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=ctrl_c_as_on_a_terminal,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not ready(process.pid):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        time.sleep(then)
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return process, stderr


def test_ctrl_c_stops_the_workers_without_a_traceback(slow_runs: tuple[Path, Path]) -> None:
    qrels, slow = slow_runs
    command: list[str | Path] = [*JUDGEPOOL, "audit", *[slow] * 6, "--qrels", qrels, "--jobs", "2"]
    process, stderr = interrupted(command, lambda pid: len(workers_of(pid)) >= 2)
    assert process.returncode == 130
    assert stderr == b"judgepool: interrupted\n"
    assert workers_of(process.pid) == []
    assert all_gone(process.pid)


def test_ctrl_c_while_the_forkserver_starts_prints_no_traceback(
    slow_runs: tuple[Path, Path],
) -> None:
    # The forkserver imports the engine before it ignores Ctrl-C itself: a
    # Ctrl-C then must not print its KeyboardInterrupt traceback.
    qrels, slow = slow_runs
    command: list[str | Path] = [*JUDGEPOOL, "audit", *[slow] * 6, "--qrels", qrels, "--jobs", "2"]

    def server_started(pid: int) -> bool:
        return any(parent == pid for parent in session_processes(pid).values())

    # 0.05 s: the server is up and importing; this process handles Ctrl-C again
    process, stderr = interrupted(command, server_started, then=0.05)
    assert process.returncode == 130, stderr
    assert stderr == b"judgepool: interrupted\n"
    assert all_gone(process.pid)


def test_a_stream_among_the_runs_is_read_here(tmp_path: Path) -> None:
    qrels = write_qrels(tmp_path / "q", {"q": {"A": 2, "B": 1}})
    run = write_run(tmp_path / "r", ranked("q", ["B", "A"]))
    outputs = []
    for jobs in ("1", "2"):
        done = subprocess.run(
            [*JUDGEPOOL, "score", run, "/dev/stdin", "--qrels", qrels, "--format", "json",
             "--jobs", jobs],
            input=run.read_bytes(), capture_output=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert [json.loads(line)["run"] for line in outputs[1].splitlines()] == [str(run), "/dev/stdin"]
