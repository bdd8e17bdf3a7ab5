"""Annotator names from the command line (real processes, a real workspace
file): a lookalike of a name the workspace holds is refused, exit 2, naming
the character, at ``judge --annotator``, ``import --annotator``, ``annotators
add`` and ``role``, and the app's ``--annotator`` (before the app starts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from judgepool.services.judging import judge
from judgepool.services.workspace import init_workspace

JUDGEPOOL = [sys.executable, "-m", "judgepool"]
LOOKALIKE = "alic\u0435"  # a Cyrillic е


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*JUDGEPOOL, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_lookalike_name_is_refused_wherever_the_command_line_takes_one(tmp_path: Path) -> None:
    workspace = tmp_path / "w.sqlite"
    with init_workspace(workspace, scale="0..3") as ws:
        judge(ws, "q1", "d1", 1, annotator="alice", allow_new=True)
    qrels = tmp_path / "mine.qrels"
    qrels.write_text("q1 0 d1 2\n")
    for args in (
        ("judge", workspace, "q1", "d1", "2", "--annotator", LOOKALIKE),
        ("import", workspace, "qrels", qrels, "--annotator", LOOKALIKE),
        ("annotators", workspace, "add", LOOKALIKE),
        ("annotators", workspace, "role", LOOKALIKE, "lead"),
        ("tui", workspace, "--annotator", LOOKALIKE),
    ):
        done = run(*args)
        assert done.returncode == 2, (args, done.returncode, done.stderr)
        assert "looks like the annotator 'alice'" in done.stderr, args
        assert "U+0435 CYRILLIC SMALL LETTER IE" in done.stderr, args
        assert "Traceback" not in done.stderr
    listed = run("annotators", workspace)
    assert listed.stdout.splitlines()[0].startswith("alice\t")
    assert len(listed.stdout.splitlines()) == 1
