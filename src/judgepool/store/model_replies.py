"""A model's grades as `judgepool prelabel` records them: the event of the
rater ``model:NAME`` and, beside it, the prompt's digest and the model's
reply (`judgepool.store.migrations.v09_model_replies`), both in one short
transaction, so a killed run leaves either both or neither, and people
grading at the same time wait for the write lock no longer than one insert.

A reply is kept whole up to `REPLY_KEPT` characters, and cut there past it,
its whole length recorded beside it (``reply_chars``) and said wherever it
is read (`reply_of`): a reply the strict reading took as a grade is a dozen
characters, but it may be padded with megabytes of white space, which would
otherwise swell the workspace by as much for every item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from judgepool.store import ledger, model_claims
from judgepool.store.model_claims import Claimant
from judgepool.store.workspace import Workspace

REPLY_KEPT: Final = 2000
"""Characters of a reply kept: a hundred times ``{"grade": N}``."""


@dataclass(frozen=True)
class ModelReply:
    """What the model said of one item: its grade, the reply it was read from,
    the prompt's digest and the tokens the endpoint reported (None: not told)."""

    query_id: str
    doc_id: str
    grade: int
    reply: str
    prompt_digest: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def record_reply(
    ws: Workspace, rater: str, answer: ModelReply, claimant: Claimant | None = None
) -> int | None:
    """Record one grade of ``rater`` (``model:NAME``, also the event's source)
    with its reply, in one transaction; returns the event's ID. With
    ``claimant``, the run's claim on the item ends in the same transaction
    (`judgepool.store.model_claims.settle`), and nothing is recorded (None)
    when the run no longer holds it."""
    cut = len(answer.reply) > REPLY_KEPT
    with ws.write() as conn:
        if claimant is not None and not model_claims.settle(
            conn, rater, (answer.query_id, answer.doc_id), claimant
        ):
            return None
        event_id = ledger.append_event(
            conn,
            query_id=answer.query_id,
            doc_id=answer.doc_id,
            grade=answer.grade,
            unsure=False,
            annotator=rater,
            source=rater,
        )
        conn.execute(
            "INSERT INTO model_replies (event_id, rater, prompt_digest, reply, prompt_tokens, "
            "completion_tokens, reply_chars) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                event_id,
                rater,
                answer.prompt_digest,
                answer.reply[:REPLY_KEPT],
                answer.prompt_tokens,
                answer.completion_tokens,
                len(answer.reply) if cut else None,
            ),
        )
    return event_id


def labelled_digests(ws: Workspace, rater: str) -> dict[tuple[str, str], str]:
    """The prompt digest behind each item's current grade by ``rater``, where a
    prelabel run gave it (an imported grade has none)."""
    return {
        (str(query_id), str(doc_id)): str(digest)
        for query_id, doc_id, digest in ws.conn.execute(
            "SELECT c.query_id, c.doc_id, r.prompt_digest FROM current_judgments c "
            "JOIN model_replies r ON r.event_id = c.event_id "
            "WHERE c.annotator = ? AND c.grade IS NOT NULL",
            (rater,),
        )
    }


def reply_of(ws: Workspace, event_id: int) -> str | None:
    """The model's reply behind an event, None for an event without one; a
    reply kept cut ends saying so, with its whole length."""
    row = ws.conn.execute(
        "SELECT reply, reply_chars FROM model_replies WHERE event_id = ?", (event_id,)
    ).fetchone()
    if row is None:
        return None
    reply, whole = str(row[0]), row[1]
    if whole is None:
        return reply
    return f"{reply}… [cut: the reply was {int(whole):,} characters, the first {len(reply):,} kept]"


def query_model_grades(ws: Workspace, query_id: str) -> dict[str, list[tuple[str, int]]]:
    """Every model's current grade of the query's documents: document ->
    [(model:NAME, grade)], by model name."""
    found: dict[str, list[tuple[str, int]]] = {}
    for doc_id, rater, grade in ws.conn.execute(
        "SELECT doc_id, annotator, grade FROM current_judgments "
        "WHERE query_id = ? AND annotator LIKE 'model:%' AND grade IS NOT NULL "
        "ORDER BY doc_id, annotator",
        (query_id,),
    ):
        found.setdefault(str(doc_id), []).append((str(rater), int(grade)))
    return found
