"""``judgepool settings WS --guidelines FILE.md`` (and ``-``, and
``--clear-guidelines``) through the real command: the text kept with its
digest, the digest and first line listed, bad files refused with exit 2
naming file and line."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from judgepool.services import guidelines
from judgepool.services.workspace import init_workspace, open_workspace

GUIDE = "# Grading at Acme\n\n| grade | when |\n|---|---|\n| 3 | it answers the query |\n"


def judgepool(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "judgepool", *map(str, args)],
        capture_output=True,
        input=stdin,
        timeout=120,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "team.sqlite"
    init_workspace(path).close()
    return path


def test_guidelines_from_a_file_are_kept_and_listed(ws: Path, tmp_path: Path) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE, encoding="utf-8")
    digest = hashlib.sha256(GUIDE.encode()).hexdigest()
    before = judgepool("settings", ws)
    assert "guidelines: none" in before.stdout
    stored = judgepool("settings", ws, "--guidelines", guide)
    assert stored.returncode == 0, stored.stderr
    assert stored.stdout.startswith(
        f"stored the guidelines from {guide} (5 lines, sha256 {digest})"
    )
    shown = judgepool("settings", ws).stdout
    assert f"guidelines: sha256 {digest}, 5 lines, set " in shown
    assert "  first line: # Grading at Acme\n" in shown and "  shown to: nobody yet\n" in shown
    with open_workspace(ws) as workspace:
        kept = guidelines.current_guidelines(workspace)
        assert kept is not None and kept.text == GUIDE
        guidelines.mark_seen(workspace, "alice", digest)
    assert "  shown to: alice\n" in judgepool("settings", ws).stdout
    again = judgepool("settings", ws, "--guidelines", guide)
    assert again.stdout.startswith(f"the guidelines from {guide} are the ones kept already")


def test_guidelines_from_standard_input_replace_the_old(ws: Path, tmp_path: Path) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE, encoding="utf-8")
    judgepool("settings", ws, "--guidelines", guide)
    piped = judgepool("settings", ws, "--guidelines", "-", stdin=b"# Version 2\n")
    assert piped.returncode == 0, piped.stderr
    old = hashlib.sha256(GUIDE.encode()).hexdigest()
    assert piped.stdout.startswith("stored the guidelines from standard input (1 line, sha256 ")
    assert f"replacing sha256 {old}" in piped.stdout
    assert "  first line: # Version 2\n" in piped.stdout


def test_a_first_line_that_would_act_on_a_terminal_is_printed_literally(ws: Path) -> None:
    piped = judgepool("settings", ws, "--guidelines", "-", stdin=b"# \x1b]0;owned\x07 Guide\n")
    assert piped.returncode == 0, piped.stderr
    assert "\x1b" not in piped.stdout and "  first line: # \\x1b]0;owned\\x07 Guide" in piped.stdout


def test_clear_guidelines_removes_them(ws: Path) -> None:
    judgepool("settings", ws, "--guidelines", "-", stdin=b"# Guide\n")
    cleared = judgepool("settings", ws, "--clear-guidelines")
    assert cleared.returncode == 0 and cleared.stdout.startswith("removed the guidelines (sha256 ")
    assert "guidelines: none" in cleared.stdout
    again = judgepool("settings", ws, "--clear-guidelines")
    assert again.stdout.startswith("the workspace had no guidelines")


def test_bad_guideline_files_are_refused_with_exit_2(ws: Path, tmp_path: Path) -> None:
    missing = judgepool("settings", ws, "--guidelines", tmp_path / "missing.md")
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"judgepool: {tmp_path / 'missing.md'}: no such file"
    latin = tmp_path / "latin1.md"
    latin.write_bytes(b"# Guide\ncaf\xe9\n")
    refused = judgepool("settings", ws, "--guidelines", latin)
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"judgepool: {latin}:2: is not UTF-8 text")
    piped = judgepool("settings", ws, "--guidelines", "-", stdin=b"\xff")
    assert piped.returncode == 2 and piped.stderr.startswith("judgepool: <stdin>:1: is not UTF-8")
    both = judgepool("settings", ws, "--guidelines", latin, "--clear-guidelines")
    assert both.returncode == 2 and "exclude each other" in both.stderr
    with open_workspace(ws) as workspace:
        assert guidelines.current_guidelines(workspace) is None  # nothing was kept


def test_the_help_says_what_the_digest_is_and_ends_with_an_example() -> None:
    shown = judgepool("settings", "--help").stdout
    assert "--guidelines FILE.md" in shown and "--clear-guidelines" in shown
    assert "SHA-256" in shown
    assert "Example:\n    judgepool settings team.sqlite --blind on --guidelines" in shown
