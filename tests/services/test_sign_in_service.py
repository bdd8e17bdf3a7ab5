"""Sign-in tokens as the workspace keeps them: a salted hash only, one salt
per token, revocable; failed sign-ins logged and limited per name and for
the whole workspace (`judgepool.services.sign_in`)."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgepool.core.team import sign_in_tokens
from judgepool.core.terms.errors import PolicyError
from judgepool.services import sign_in
from judgepool.services.workspace import Workspace, init_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    workspace = init_workspace(tmp_path / "w.sqlite", scale="0..3")
    yield workspace  # type: ignore[misc]
    workspace.close()


def token_rows(ws: Workspace) -> list[tuple[str, bytes, bytes, str | None]]:
    conn = sqlite3.connect(ws.path)
    try:
        return conn.execute(
            "SELECT name, salt, hash, revoked_at FROM sign_in_tokens ORDER BY name"
        ).fetchall()
    finally:
        conn.close()


def test_only_a_salted_hash_is_kept_and_it_matches_only_its_token(ws: Workspace) -> None:
    alice = sign_in.add_annotator(ws, "alice")
    bob = sign_in.add_annotator(ws, "bob", role="adjudicator")
    rows = token_rows(ws)
    assert [row[0] for row in rows] == ["alice", "bob"]
    file_bytes = ws.path.read_bytes()
    for token, (_, salt, hashed, revoked) in zip((alice, bob), rows, strict=True):
        assert len(token) >= 40 and token.encode() not in file_bytes
        assert len(salt) == sign_in_tokens.SALT_BYTES and revoked is None
        assert hashed == sign_in_tokens.token_hash(token, salt)
    assert rows[0][1] != rows[1][1]  # a salt per token
    assert sign_in.sign_in(ws, "alice", alice).name == "alice"
    assert sign_in.sign_in(ws, "bob", bob).name == "bob"
    assert not sign_in.sign_in(ws, "alice", bob).signed_in
    assert not sign_in.sign_in(ws, "carol", alice).signed_in
    roles = {a.name: a.adjudicator for a in sign_in_annotators(ws)}
    assert roles == {"alice": False, "bob": True}


def sign_in_annotators(ws: Workspace) -> list:  # type: ignore[type-arg]
    from judgepool.services.judging import list_annotators

    return list_annotators(ws)


def test_the_same_token_hashes_differently_under_another_salt() -> None:
    token = sign_in_tokens.new_token()
    one, two = sign_in_tokens.new_salt(), sign_in_tokens.new_salt()
    assert sign_in_tokens.token_hash(token, one) != sign_in_tokens.token_hash(token, two)
    assert sign_in_tokens.token_matches(token, one, sign_in_tokens.token_hash(token, one))
    assert not sign_in_tokens.token_matches(token + "x", one, sign_in_tokens.token_hash(token, one))


def test_a_revoked_token_no_longer_signs_in_and_a_new_one_does(ws: Workspace) -> None:
    old = sign_in.add_annotator(ws, "alice")
    with pytest.raises(PolicyError, match="already has a sign-in token"):
        sign_in.add_annotator(ws, "alice")
    sign_in.revoke(ws, "alice")
    assert token_rows(ws)[0][3] is not None
    assert not sign_in.sign_in(ws, "alice", old).signed_in
    with pytest.raises(PolicyError, match="no active sign-in token"):
        sign_in.revoke(ws, "alice")
    new = sign_in.add_annotator(ws, "alice")
    assert new != old
    assert sign_in.sign_in(ws, "alice", new).name == "alice"
    assert not sign_in.sign_in(ws, "alice", old).signed_in
    assert sign_in.who_can_sign_in(ws) == ["alice"]


def test_failures_are_logged_and_limited_per_name(ws: Workspace) -> None:
    token = sign_in.add_annotator(ws, "alice")
    now = [1_000_000.0]
    for _ in range(sign_in.MAX_FAILURES_PER_NAME):
        result = sign_in.sign_in(ws, "alice", "guess", clock=lambda: now[0])
        assert result.refusal is not None and "do not match" in result.refusal
        now[0] += 1
    # the right token is refused too while the limit holds, saying for how long
    limited = sign_in.sign_in(ws, "alice", token, clock=lambda: now[0])
    assert not limited.signed_in
    assert limited.refusal is not None and "too many failed sign-ins for 'alice'" in limited.refusal
    assert limited.retry_after is not None and 0 < limited.retry_after <= sign_in.WINDOW_SECONDS
    # another name is not held back by alice's failures
    bob = sign_in.add_annotator(ws, "bob")
    assert sign_in.sign_in(ws, "bob", bob, clock=lambda: now[0]).name == "bob"
    # once the window has passed, alice signs in again
    now[0] += sign_in.WINDOW_SECONDS + 10
    assert sign_in.sign_in(ws, "alice", token, clock=lambda: now[0]).name == "alice"
    logged = [(f.name, f.reason) for f in sign_in.recent_failures(ws)]
    assert logged[0] == ("alice", "rate limited")
    assert logged.count(("alice", "wrong token")) == sign_in.MAX_FAILURES_PER_NAME


def test_failures_over_many_names_limit_the_whole_workspace(ws: Workspace) -> None:
    token = sign_in.add_annotator(ws, "alice")
    for i in range(sign_in.MAX_FAILURES_ALL):
        assert not sign_in.sign_in(ws, f"guess{i}", "x", clock=lambda: 5_000.0).signed_in
    limited = sign_in.sign_in(ws, "alice", token, clock=lambda: 5_001.0)
    assert limited.refusal is not None and "on this workspace" in limited.refusal
    assert sign_in.sign_in(ws, "alice", token, clock=lambda: 5_400.0).name == "alice"


def test_names_that_cannot_be_annotators_get_no_token(ws: Workspace) -> None:
    from judgepool.core.terms.errors import InputError

    for bad in ("model:gpt", " alice", "al\x1bice", ""):
        with pytest.raises(InputError):
            sign_in.add_annotator(ws, bad)
    # a name SQLite cannot store is refused at sign-in, not a crash
    assert not sign_in.sign_in(ws, "al\udcffice", "x").signed_in


def _fail_at_once(path: str, barrier: Any, name: str) -> None:
    """One session's failed sign-in, started with the others (a process each)."""
    from judgepool.services.workspace import open_workspace

    with open_workspace(path) as opened:
        barrier.wait()
        sign_in.sign_in(opened, name, "a guess")


@pytest.mark.slow
def test_sessions_failing_at_the_same_instant_are_counted_against_the_limit(
    ws: Workspace,
) -> None:
    sign_in.add_annotator(ws, "alice")
    sessions = 8
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(sessions)
    processes = [
        context.Process(target=_fail_at_once, args=(str(ws.path), barrier, "alice"))
        for _ in range(sessions)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
        assert process.exitcode == 0
    reasons = [f.reason for f in sign_in.recent_failures(ws)]
    assert len(reasons) == sessions
    # only as many guesses were checked as the limit allows; the rest were refused
    assert reasons.count("wrong token") == sign_in.MAX_FAILURES_PER_NAME
    assert reasons.count("rate limited") == sessions - sign_in.MAX_FAILURES_PER_NAME


def test_trying_while_limited_does_not_prolong_the_limit(ws: Workspace) -> None:
    token = sign_in.add_annotator(ws, "alice")
    for second in range(sign_in.MAX_FAILURES_PER_NAME):
        sign_in.sign_in(ws, "alice", "guess", clock=lambda s=second: 1_000.0 + s)
    # alice keeps trying her right token while the limit holds
    for tries in range(1, 6):
        tried = sign_in.sign_in(ws, "alice", token, clock=lambda t=tries: 1_000.0 + 50 * t)
        assert tried.retry_after is not None
    # the window has moved past the five failures: she is in, as she was told
    at = 1_000.0 + sign_in.MAX_FAILURES_PER_NAME + sign_in.WINDOW_SECONDS
    assert sign_in.sign_in(ws, "alice", token, clock=lambda: at).name == "alice"


def test_the_log_keeps_the_latest_failures_and_what_the_limit_counts(ws: Workspace) -> None:
    from judgepool.store import sign_in as stored

    token = sign_in.add_annotator(ws, "bob")
    now = 10_000_000.0
    with ws.write() as conn:
        # long ago: a flood of failures, far more than the log keeps
        for i in range(sign_in.KEPT_FAILURES + 500):
            stored.log_failure(conn, f"guess{i}", 1_000.0 + i, "no such annotator with a token")
    # within the window: four of bob's failures, then many refusals of others
    for i in range(sign_in.MAX_FAILURES_PER_NAME - 1):
        sign_in.sign_in(ws, "bob", "guess", clock=lambda i=i: now + i)
    with ws.write() as conn:
        for _ in range(sign_in.KEPT_FAILURES):
            stored.log_failure(conn, "mallory", now + 10, stored.RATE_LIMITED)
    # one more of bob's failures: logged, and the log pruned as it is written
    sign_in.sign_in(ws, "bob", "guess", clock=lambda: now + 20)
    rows = sign_in.recent_failures(ws, 100_000)
    assert len(rows) == sign_in.KEPT_FAILURES + sign_in.MAX_FAILURES_PER_NAME - 1
    assert not any(row.name.startswith("guess") for row in rows)
    # what the limit counts survived the pruning: bob's five failures hold
    limited = sign_in.sign_in(ws, "bob", token, clock=lambda: now + 30)
    assert limited.refusal is not None and "too many failed sign-ins for 'bob'" in limited.refusal
