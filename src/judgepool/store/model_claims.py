"""Claims on the items a ``judgepool prelabel`` run is asking a model about
(the table ``model_claims``, `judgepool.store.migrations.v10_model_claims`), so
that two runs of the same model at once never both ask about an item, and
neither labels one the other labelled meanwhile.

A run claims an item just before asking (`claim`; `claim_many`: the next
few at once), in a short transaction of its own that also reads what the
other runs may have done since this one chose its items: labelled the item
with the same prompt, or withdrawn the model's labels. Recording the grade
ends the claim in the same transaction (`settle`, called by
`judgepool.store.model_replies.record_reply`), and is refused when the
claim is no longer the run's: the labels were withdrawn meanwhile
(`drop_rater`), or the claim lapsed and another run took the item. A failed
item's claim is released at once, and every claim a run still has when it
ends (`release`, `release_all`).

A claim is free once its time is up (`LEASE_SECONDS` after its run last
renewed it; a live run renews all of its claims every `RENEW_SECONDS`) or at
once when it names a process of this host that no longer runs: a run killed
with ``kill -9`` leaves its claims behind, and the next run on the same
machine takes them over without waiting. A process ID the system has given
to a new process since only makes the claim wait for its time.
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from judgepool.store.workspace import Workspace

LEASE_SECONDS: Final = 120.0
"""How long a claim holds without being renewed: four renewals may be missed
(each waits for the write lock like any write) before another run takes it."""
RENEW_SECONDS: Final = 30.0

ClaimOutcome = Literal["claimed", "held", "labelled", "withdrawn"]
"""``claimed``: ask; ``held``: another live run has it; ``labelled``: it holds
a grade from the same prompt already; ``withdrawn``: the model's label of it
was withdrawn (and relabelling was not asked for)."""


@dataclass(frozen=True)
class Claimant:
    """One run, as its claims name it: a random token, the host and the process."""

    run: str
    host: str
    pid: int


def new_claimant() -> Claimant:
    """A claimant for a run starting in this process."""
    return Claimant(secrets.token_hex(8), socket.gethostname(), os.getpid())


def _process_gone(host: str, pid: int) -> bool:
    """Whether ``pid`` on ``host`` is known not to run: only a process of this
    host can be asked; one elsewhere is taken to run."""
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)  # signal 0: nothing is sent, the process is only looked up
    except ProcessLookupError:
        return True
    except OSError:
        return False  # PermissionError: another user's process, which runs
    return False


def _free(held: tuple[str, str, int, float], claimant: Claimant, at: float) -> bool:
    """Whether a claim (run, host, pid, expires_at) no longer keeps ``claimant`` out."""
    run, host, pid, expires_at = held
    if run == claimant.run or expires_at <= at:
        return True
    return _process_gone(host, int(pid))


def claim(
    ws: Workspace,
    rater: str,
    item: tuple[str, str],
    digest: str,
    claimant: Claimant,
    *,
    relabel_withdrawn: bool = False,
    now: float | None = None,
) -> ClaimOutcome:
    """Claim ``item`` for ``claimant``'s run of ``rater`` (see `ClaimOutcome`),
    in one transaction. ``digest``: the prompt the run would send; ``now``:
    seconds since the epoch (the clock's, unless a test sets it)."""
    (outcome,) = claim_many(
        ws, rater, [(item, digest)], claimant, relabel_withdrawn=relabel_withdrawn, now=now
    )
    return outcome


def claim_many(
    ws: Workspace,
    rater: str,
    wanted: Sequence[tuple[tuple[str, str], str]],
    claimant: Claimant,
    *,
    relabel_withdrawn: bool = False,
    now: float | None = None,
) -> list[ClaimOutcome]:
    """`claim` for each (item, digest) of ``wanted``, all in one transaction
    (a commit waits for the disk: one for a few items rather than one each)."""
    at = time.time() if now is None else now
    with ws.write() as conn:
        return [
            _claim(conn, rater, item, digest, claimant, relabel_withdrawn, at)
            for item, digest in wanted
        ]


def _claim(
    conn: sqlite3.Connection,
    rater: str,
    item: tuple[str, str],
    digest: str,
    claimant: Claimant,
    relabel_withdrawn: bool,
    at: float,
) -> ClaimOutcome:
    query_id, doc_id = item
    held = conn.execute(
        "SELECT run, host, pid, expires_at FROM model_claims "
        "WHERE rater = ? AND query_id = ? AND doc_id = ?",
        (rater, query_id, doc_id),
    ).fetchone()
    if held is not None and not _free(held, claimant, at):
        return "held"
    current = conn.execute(
        "SELECT c.grade, r.prompt_digest FROM current_judgments c "
        "LEFT JOIN model_replies r ON r.event_id = c.event_id "
        "WHERE c.query_id = ? AND c.doc_id = ? AND c.annotator = ?",
        (query_id, doc_id, rater),
    ).fetchone()
    if current is not None and current[0] is not None and current[1] == digest:
        return "labelled"
    if current is None and not relabel_withdrawn and _ever_graded(conn, rater, item):
        return "withdrawn"
    conn.execute(
        "INSERT OR REPLACE INTO model_claims "
        "(rater, query_id, doc_id, run, host, pid, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (rater, query_id, doc_id, claimant.run, claimant.host, claimant.pid,
         at + LEASE_SECONDS),
    )  # fmt: skip
    return "claimed"


def _ever_graded(conn: sqlite3.Connection, rater: str, item: tuple[str, str]) -> bool:
    # with no current judgment, any event of the rater on the item means its
    # latest one took the label back (a withdrawal, or an undo of the first)
    return bool(
        conn.execute(
            "SELECT EXISTS (SELECT 1 FROM judgment_events "
            "WHERE query_id = ? AND doc_id = ? AND annotator = ?)",
            (*item, rater),
        ).fetchone()[0]
    )


def settle(conn: sqlite3.Connection, rater: str, item: tuple[str, str], claimant: Claimant) -> bool:
    """End ``claimant``'s claim on ``item`` inside the caller's write
    transaction (the one recording its grade); False when the run holds no
    claim on it any more (withdrawn meanwhile, or lapsed and taken)."""
    cursor = conn.execute(
        "DELETE FROM model_claims WHERE rater = ? AND query_id = ? AND doc_id = ? AND run = ?",
        (rater, *item, claimant.run),
    )
    return cursor.rowcount == 1


def release(ws: Workspace, rater: str, item: tuple[str, str], claimant: Claimant) -> None:
    """Give up the run's claim on ``item`` (its request failed: a rerun, or
    another run, may ask again)."""
    with ws.write() as conn:
        settle(conn, rater, item, claimant)


def release_all(ws: Workspace, claimant: Claimant) -> int:
    """Give up every claim the run still holds (it ends); how many there were."""
    with ws.write() as conn:
        cursor = conn.execute("DELETE FROM model_claims WHERE run = ?", (claimant.run,))
    return cursor.rowcount


def renew(ws: Workspace, claimant: Claimant, now: float | None = None) -> None:
    """Move the time of every claim of the run to ``LEASE_SECONDS`` from now."""
    at = time.time() if now is None else now
    with ws.write() as conn:
        conn.execute(
            "UPDATE model_claims SET expires_at = ? WHERE run = ?",
            (at + LEASE_SECONDS, claimant.run),
        )


def drop_rater(conn: sqlite3.Connection, rater: str) -> None:
    """End every claim on ``rater``'s items inside the caller's write
    transaction (its labels are being withdrawn): a run asking meanwhile
    records none of the answers it gets from then on."""
    conn.execute("DELETE FROM model_claims WHERE rater = ?", (rater,))


def claims_of(ws: Workspace, rater: str) -> list[tuple[str, str, str]]:
    """The claims on ``rater``'s items: (query, document, run), by item."""
    return [
        (str(query_id), str(doc_id), str(run))
        for query_id, doc_id, run in ws.conn.execute(
            "SELECT query_id, doc_id, run FROM model_claims WHERE rater = ? "
            "ORDER BY query_id, doc_id",
            (rater,),
        )
    ]
