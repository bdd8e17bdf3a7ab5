"""Claims on the items a prelabel run asks about (`judgepool.store.model_claims`)
and withdrawing a model's labels (`judgepool.store.model_withdrawal`), on real
workspace files, with real processes for the claims of a live and a dead one."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.services.judging import judge
from judgepool.store import ledger, model_claims
from judgepool.store.model_claims import Claimant, claim, new_claimant
from judgepool.store.model_replies import ModelReply, record_reply
from judgepool.store.model_withdrawal import withdraw_labels, withdrawn_items
from judgepool.store.workspace import Workspace, create_workspace

RATER = "model:judge"
ITEM = ("q1", "d1")
DIGEST = "a" * 64


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with create_workspace(tmp_path / "ws.sqlite") as workspace:
        yield workspace


def dead_pid() -> int:
    """The ID of a process of this host that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def other(pid: int, host: str | None = None) -> Claimant:
    return Claimant("other-run", host or socket.gethostname(), pid)


def label(ws: Workspace, item: tuple[str, str], grade: int, digest: str = DIGEST) -> None:
    record_reply(ws, RATER, ModelReply(*item, grade, f'{{"grade": {grade}}}', digest))


def test_a_live_runs_claim_keeps_another_out_until_it_is_released(ws: Workspace) -> None:
    mine, theirs = new_claimant(), new_claimant()  # two runs of this (live) process
    assert claim(ws, RATER, ITEM, DIGEST, theirs) == "claimed"
    assert claim(ws, RATER, ITEM, DIGEST, mine) == "held"
    assert claim(ws, RATER, ITEM, DIGEST, theirs) == "claimed"  # its own again: fine
    assert claim(ws, "model:other", ITEM, DIGEST, mine) == "claimed"  # another model's
    model_claims.release(ws, RATER, ITEM, theirs)
    assert claim(ws, RATER, ITEM, DIGEST, mine) == "claimed"
    assert model_claims.claims_of(ws, RATER) == [("q1", "d1", mine.run)]


def test_a_claim_of_a_process_gone_is_free_at_once(ws: Workspace) -> None:
    assert claim(ws, RATER, ITEM, DIGEST, other(dead_pid())) == "claimed"
    assert claim(ws, RATER, ITEM, DIGEST, new_claimant()) == "claimed"


def test_a_claim_from_another_host_holds_until_its_time_is_up(ws: Workspace) -> None:
    start = time.time()
    far = other(dead_pid(), host="another-host.invalid")  # its process cannot be asked
    assert claim(ws, RATER, ITEM, DIGEST, far, now=start) == "claimed"
    mine = new_claimant()
    later = start + model_claims.LEASE_SECONDS - 1
    assert claim(ws, RATER, ITEM, DIGEST, mine, now=later) == "held"
    # renewed, it holds a lease longer
    model_claims.renew(ws, far, now=later)
    assert claim(ws, RATER, ITEM, DIGEST, mine, now=later + 60) == "held"
    after = later + model_claims.LEASE_SECONDS + 1
    assert claim(ws, RATER, ITEM, DIGEST, mine, now=after) == "claimed"


def test_an_item_labelled_meanwhile_is_not_claimed(ws: Workspace) -> None:
    label(ws, ITEM, 2)
    assert claim(ws, RATER, ITEM, DIGEST, new_claimant()) == "labelled"
    # a changed prompt is asked again
    assert claim(ws, RATER, ITEM, "b" * 64, new_claimant()) == "claimed"


def test_recording_ends_the_claim_and_needs_it(ws: Workspace) -> None:
    mine = new_claimant()
    assert claim(ws, RATER, ITEM, DIGEST, mine) == "claimed"
    reply = ModelReply(*ITEM, 2, '{"grade": 2}', DIGEST)
    assert record_reply(ws, RATER, reply, mine) is not None
    assert model_claims.claims_of(ws, RATER) == []
    # without its claim (never made, or ended by another), nothing is recorded
    assert record_reply(ws, RATER, ModelReply("q2", "d2", 1, "{}", DIGEST), mine) is None
    assert [e.doc_id for e in ledger.list_events(ws, annotator=RATER)] == ["d1"]


def test_withdrawing_appends_an_event_per_label_and_deletes_nothing(ws: Workspace) -> None:
    for number in range(3):
        label(ws, (f"q{number}", f"d{number}"), number)
    judge(ws, "q0", "d0", 3, annotator="alice")
    running = new_claimant()
    assert claim(ws, RATER, ("q9", "d9"), DIGEST, running) == "claimed"
    assert withdraw_labels(ws, RATER) == 3
    assert ledger.current_judgments(ws, annotator=RATER) == []
    assert [(j.annotator, j.grade) for j in ledger.current_judgments(ws)] == [("alice", 3)]
    events = ledger.list_events(ws, annotator=RATER)
    assert [event.withdrawn for event in events] == [False] * 3 + [True] * 3
    assert {event.source for event in events} == {RATER}
    assert [(e.doc_id, e.previous_grade) for e in events[3:]] == [("d0", 0), ("d1", 1), ("d2", 2)]
    assert withdrawn_items(ws, RATER) == {("q0", "d0"), ("q1", "d1"), ("q2", "d2")}
    # the run asking meanwhile lost its claim, and the answer it gets is not recorded
    assert model_claims.claims_of(ws, RATER) == []
    assert record_reply(ws, RATER, ModelReply("q9", "d9", 1, "{}", DIGEST), running) is None
    # a withdrawn item is not claimed again unless asked
    assert claim(ws, RATER, ("q1", "d1"), DIGEST, running) == "withdrawn"
    assert claim(ws, RATER, ("q1", "d1"), DIGEST, running, relabel_withdrawn=True) == "claimed"
    assert withdraw_labels(ws, RATER) == 0  # nothing left to take back
    assert withdraw_labels(ws, "model:other") == 0
