"""``judgepool annotators WS add|revoke|sign-ins`` and ``judgepool serve``'s
refusals, as a user runs them (real processes, a real workspace file). The
listing and ``--adjudicator NAME`` keep working as before the subcommands."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from judgepool.services import sign_in
from judgepool.services.workspace import init_workspace, open_workspace

JUDGEPOOL = [sys.executable, "-m", "judgepool"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JUDGEPOOL, *args], capture_output=True, text=True, timeout=120)


def test_add_prints_the_token_once_alone_on_its_last_line(tmp_path: Path) -> None:
    ws = tmp_path / "w.sqlite"
    init_workspace(ws, scale="0..3").close()
    done = run("annotators", str(ws), "add", "alice")
    assert done.returncode == 0, done.stderr
    *said, token = done.stdout.splitlines()
    assert "shown only this once" in " ".join(said)
    assert token.strip() == token and " " not in token and len(token) >= 40
    assert token.encode() not in ws.read_bytes()
    with open_workspace(ws) as opened:
        assert sign_in.sign_in(opened, "alice", token).name == "alice"
    adjudicator = run("annotators", str(ws), "add", "judy", "--adjudicator")
    assert adjudicator.returncode == 0, adjudicator.stderr
    listed = run("annotators", str(ws))
    assert listed.stdout.splitlines() == [
        "alice\tannotator\t0 events\t0 graded",
        "judy\tadjudicator\t0 events\t0 graded",
    ]
    # the listing's options work as before the subcommands
    roles = run("annotators", str(ws), "--adjudicator", "alice", "--not-adjudicator", "judy")
    assert roles.returncode == 0, roles.stderr
    assert roles.stdout.splitlines()[0] == "alice\tadjudicator\t0 events\t0 graded"


def test_adding_twice_is_refused_and_revoke_ends_the_token(tmp_path: Path) -> None:
    ws = tmp_path / "w.sqlite"
    init_workspace(ws, scale="0..3").close()
    token = run("annotators", str(ws), "add", "alice").stdout.splitlines()[-1]
    again = run("annotators", str(ws), "add", "alice")
    assert again.returncode == 1
    assert "already has a sign-in token" in again.stderr and "revoke" in again.stderr
    revoked = run("annotators", str(ws), "revoke", "alice")
    assert revoked.returncode == 0, revoked.stderr
    with open_workspace(ws) as opened:
        assert not sign_in.sign_in(opened, "alice", token).signed_in
    twice = run("annotators", str(ws), "revoke", "alice")
    assert twice.returncode == 1 and "no active sign-in token" in twice.stderr
    failures = run("annotators", str(ws), "sign-ins")
    assert failures.stdout.splitlines()[0].endswith("\talice\trevoked token")
    bad = run("annotators", str(ws), "add", "model:gpt")
    assert bad.returncode == 2 and "reserved" in bad.stderr and "Traceback" not in bad.stderr


def test_serve_refuses_what_it_cannot_serve(tmp_path: Path) -> None:
    missing = run("serve", str(tmp_path / "nope.sqlite"))
    assert missing.returncode == 2 and "no such workspace" in missing.stderr
    ws = tmp_path / "w.sqlite"
    init_workspace(ws, scale="0..3").close()
    url = run("serve", str(ws), "--public-url", "grading.example.org")
    assert url.returncode == 2 and "http:// or https://" in url.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = run("serve", str(ws), "--port", port)
    assert busy.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in busy.stderr
    assert "nobody can sign in yet" in busy.stderr and "Traceback" not in busy.stderr
    conn = sqlite3.connect(ws)
    assert conn.execute("SELECT COUNT(*) FROM sign_in_tokens").fetchone() == (0,)
    conn.close()
