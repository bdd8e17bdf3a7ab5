"""An ``--entity`` pattern runs in bounded time from the command line: one that
makes Python's ``re`` backtrack for ever, saved as a workspace's default
contract, no longer hangs every later ``score`` (both engines; real
processes, a real workspace file); one RE2 cannot run is refused at the
option, exit 2, with the reason."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judgepool.core.terms.contract import Contract
from judgepool.services.imports import import_run
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import init_workspace

JUDGEPOOL = [sys.executable, "-m", "judgepool"]
CATASTROPHIC = r"(\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d)+x"


def run(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*JUDGEPOOL, *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


def digit_ids(tmp_path: Path) -> tuple[Path, Path]:
    """A run and qrels whose document IDs are 30 digits: each line a trap for re."""
    docs = [f"{n:030d}" for n in range(1, 21)]
    run_file = tmp_path / "digits.trec"
    run_file.write_text(
        "".join(f"q1 Q0 {doc} {rank} {100 - rank} r\n" for rank, doc in enumerate(docs, 1))
    )
    qrels = tmp_path / "digits.qrels"
    qrels.write_text("".join(f"q1 0 {doc} {n % 4}\n" for n, doc in enumerate(docs)))
    return run_file, qrels


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_backtracking_default_contract_no_longer_hangs_score(tmp_path: Path, engine: str) -> None:
    run_file, qrels = digit_ids(tmp_path)
    workspace = tmp_path / "w.sqlite"
    with init_workspace(workspace, scale="0..3") as ws:
        import_qrels(ws, qrels, annotator="assessors")
        import_run(ws, run_file, name="digits")
        ws.set_default_contract(Contract(scale=ws.scale, entity=CATASTROPHIC))
    # killed at 60 s before: Python's re never finished the first ID
    done = run("score", "digits", "--workspace", workspace, "--format", "json",
               "--engine", engine)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (scored,) = map(json.loads, done.stdout.splitlines())
    assert scored["contract"]["entity"] == CATASTROPHIC
    assert scored["summary"]["queries"] == 1


def test_a_pattern_re2_cannot_run_is_refused_at_the_option(tmp_path: Path) -> None:
    run_file, qrels = digit_ids(tmp_path)
    done = run("score", run_file, "--qrels", qrels, "--entity", r"(\d+)(?=#)")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "(?=" in done.stderr and "RE2" in done.stderr and "look-around" in done.stderr
    assert "Traceback" not in done.stderr


def saved_before_re2(workspace: Path, pattern: str) -> None:
    """A default contract as a workspace saved it when patterns ran in Python's re."""
    with init_workspace(workspace, scale="0..3") as ws:
        data = Contract(scale=ws.scale).to_dict()
        data["entity"] = pattern
        with ws.write() as conn:
            ws.put_setting(conn, "default_contract", data)


def test_a_saved_default_re2_cannot_run_is_refused_saying_how_to_change_it(
    tmp_path: Path,
) -> None:
    run_file, _ = digit_ids(tmp_path)
    workspace = tmp_path / "old.sqlite"
    saved_before_re2(workspace, r"(\d+)(?<=0)")
    done = run("score", run_file, "--workspace", workspace)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "default contract cannot be used" in done.stderr and "(?<=" in done.stderr
    assert "ctrl+o" in done.stderr and "Traceback" not in done.stderr
