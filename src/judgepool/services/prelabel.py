"""``judgepool prelabel``: a model on an OpenAI-compatible endpoint grades a
batch of items, each grade recorded as the rater ``model:NAME``.

One chat-completions request per item (`judgepool.core.prompting.grading_prompt`),
``concurrency`` of them in flight, through httpx. Each answer is recorded
once read, in its own short transaction with its reply and the prompt's
digest (`judgepool.store.model_replies`): people grading meanwhile wait no
longer than one insert, and a run stopped anyhow (Ctrl-C, kill -9) keeps
every grade it recorded and nothing half-written; the next run skips them
(`judgepool.services.prelabel_items.prepare_batch`).

Each request, its retries and its bounds (one deadline for all of it, a
body read no further than a few MB, no redirect followed) are
`judgepool.services.prelabel_asking`'s; what is kept of a reply is bounded
too (`judgepool.store.model_replies.REPLY_KEPT`). The tally says what came
of each item, with the reasons.

Two runs of one model at once share the work rather than doubling it: each
claims its next few items before asking (`judgepool.store.model_claims`),
skips what the other holds or labelled meanwhile, and renews its claims
while it runs.
An answer that comes once its claim is gone is not recorded, and stops the
run: the model's labels were withdrawn meanwhile (``prelabel --withdraw``
ends every claim), so the run should not go on labelling. Labels a run
recorded between the withdrawal and its stop (few: at most one a request
then in flight) are new labels, which a second withdrawal takes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final

import httpx

from judgepool.core.prompting.grading_prompt import GradingPrompt
from judgepool.core.prompting.retry_delay import RetryPolicy
from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.prelabel_asking import Answer, Asker, Endpoint, EndpointRefused, Sleep
from judgepool.services.prelabel_items import Batch, PreparedItem
from judgepool.store import model_claims
from judgepool.store.model_claims import Claimant
from judgepool.store.model_replies import ModelReply, record_reply
from judgepool.store.workspace import Workspace

WITHDRAWN_MEANWHILE: Final = "not asked: its label was withdrawn meanwhile (prelabel --withdraw)"
CLAIM_LOST: Final = "not recorded: its claim was ended while it was asked"
STOPPED_BY_CLAIM: Final = (
    "a claim of this run was ended by another: the model's labels were withdrawn meanwhile "
    "(prelabel --withdraw), or the claim lapsed and another run took the item; the answer "
    "was not recorded"
)


class _ClaimLost(Exception):
    """An answer came for an item whose claim another process ended; the run
    stops, as what ended it (a withdrawal, most likely) meant it to."""


@dataclass
class Tally:
    """What came of a run's items so far (the summary, and the progress bar)."""

    todo: int
    skipped: int = 0
    withdrawn: int = 0  # left out: their labels were withdrawn (not in todo)
    labelled: int = 0
    elsewhere: int = 0  # of todo: another run held them, or labelled them meanwhile
    failed: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_reported: bool = False
    started: float = field(default_factory=time.monotonic)
    stopped_by: str | None = None

    @property
    def done(self) -> int:
        return self.labelled + self.elsewhere + sum(self.failed.values())

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def to_dict(self) -> dict[str, Any]:
        return {
            "to_label": self.todo,
            "labelled": self.labelled,
            "skipped": self.skipped,
            "withdrawn_not_asked": self.withdrawn,
            "left_to_another_run": self.elsewhere,
            "failed": sum(self.failed.values()),
            "failures": dict(sorted(self.failed.items())),
            "seconds": round(self.seconds, 3),
            "prompt_tokens": self.prompt_tokens if self.tokens_reported else None,
            "completion_tokens": self.completion_tokens if self.tokens_reported else None,
            "stopped_by": self.stopped_by,
        }


def _record(
    ws: Workspace,
    rater: str,
    item: PreparedItem,
    prompt: GradingPrompt,
    answer: Answer,
    claimant: Claimant,
    tally: Tally,
) -> bool:
    """Record the answer and count it, in the writer thread: a write the loop
    stopped waiting for (Ctrl-C) still ends, and is still counted. False when
    the run's claim on the item was gone (nothing recorded)."""
    recorded = record_reply(
        ws,
        rater,
        ModelReply(
            item.query_id,
            item.doc_id,
            answer.grade,
            answer.reply,
            prompt.digest,
            answer.prompt_tokens,
            answer.completion_tokens,
        ),
        claimant,
    )
    if recorded is None:
        return False
    # only this thread counts labels and tokens
    tally.labelled += 1
    if answer.prompt_tokens is not None:
        tally.tokens_reported = True
        tally.prompt_tokens += answer.prompt_tokens
    if answer.completion_tokens is not None:
        tally.tokens_reported = True
        tally.completion_tokens += answer.completion_tokens
    return True


Asked = tuple[PreparedItem, GradingPrompt]


class _Claimed:
    """The run's next items, claimed a few at a time (one transaction, so one
    wait for the disk, for as many items as there are requests in flight):
    each worker takes the next item claimed. The items that are not this
    run's to ask (no text, held or labelled by another run, withdrawn
    meanwhile) are counted as they are met."""

    def __init__(
        self,
        items: Iterable[PreparedItem],
        size: int,
        claim: Callable[[list[Asked]], Awaitable[list[model_claims.ClaimOutcome]]],
        tally: Tally,
        on_item: Callable[[Tally], None],
    ) -> None:
        self.items = iter(items)
        self.size = size
        self.claim = claim
        self.tally = tally
        self.on_item = on_item
        self.ready: deque[Asked] = deque()
        self.lock = asyncio.Lock()

    async def next(self) -> Asked | None:
        """The next item this run holds a claim on, None when there is none left."""
        async with self.lock:
            while not self.ready:
                chunk = list(itertools.islice(self.items, self.size))
                if not chunk:
                    return None
                asked: list[Asked] = []
                for item in chunk:
                    if item.prompt is not None:
                        asked.append((item, item.prompt))
                    else:
                        self.tally.failed[item.problem or "no text"] += 1
                        self.on_item(self.tally)
                outcomes = await self.claim(asked) if asked else []
                for one, outcome in zip(asked, outcomes, strict=True):
                    if outcome == "claimed":
                        self.ready.append(one)
                        continue
                    if outcome == "withdrawn":
                        self.tally.failed[WITHDRAWN_MEANWHILE] += 1
                    else:  # another run holds it, or labelled it
                        self.tally.elsewhere += 1
                    self.on_item(self.tally)
            return self.ready.popleft()


async def label_batch(
    ws: Workspace,
    rater: str,
    batch: Batch,
    endpoint: Endpoint,
    tally: Tally,
    *,
    concurrency: int = 4,
    policy: RetryPolicy | None = None,
    on_item: Callable[[Tally], None] = lambda tally: None,
    sleep: Sleep = asyncio.sleep,
    relabel_withdrawn: bool = False,
) -> Tally:
    """Ask for and record the grade of every item of ``batch``, ``concurrency``
    at a time, each claimed first; ``tally`` (the caller's, so an interrupted
    run still has it) counts each outcome and ``on_item`` is called after
    each. ``relabel_withdrawn``: ask about an item whose label was withdrawn
    (as `judgepool.services.prelabel_items.prepare_batch` was told)."""
    policy = policy or RetryPolicy()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    loop = asyncio.get_running_loop()
    claimant = model_claims.new_claimant()
    # one writer: the claims and grades are written one after another
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prelabel-writer")

    def write(job: Callable[..., Any], *args: Any) -> Awaitable[Any]:
        # In the writer thread, so the loop keeps talking to the endpoint while
        # SQLite syncs a commit to disk. A cancellation (Ctrl-C) stops the
        # waiting, not the write: the transaction ends, committed or rolled back.
        return loop.run_in_executor(writer, job, *args)

    async with httpx.AsyncClient(
        timeout=endpoint.timeout, limits=limits, follow_redirects=False
    ) as client:
        asker = Asker(client, endpoint, ws.scale, policy, sleep)

        def claim(asked: list[Asked]) -> Awaitable[list[model_claims.ClaimOutcome]]:
            wanted = [((item.query_id, item.doc_id), prompt.digest) for item, prompt in asked]
            return write(
                functools.partial(
                    model_claims.claim_many,
                    ws,
                    rater,
                    wanted,
                    claimant,
                    relabel_withdrawn=relabel_withdrawn,
                )
            )

        claimed = _Claimed(batch.todo, max(1, concurrency), claim, tally, on_item)

        async def work() -> None:
            # the items are shared: each worker takes the next one claimed when free
            while (taken := await claimed.next()) is not None:
                item, prompt = taken
                outcome = await asker.ask(prompt)
                if isinstance(outcome, str):
                    tally.failed[outcome] += 1
                    key = (item.query_id, item.doc_id)
                    await write(model_claims.release, ws, rater, key, claimant)
                elif not await write(_record, ws, rater, item, prompt, outcome, claimant, tally):
                    tally.failed[CLAIM_LOST] += 1
                    raise _ClaimLost
                on_item(tally)

        async def renew() -> None:
            # the real clock, not `sleep`: a claim's time is the clock's
            while True:
                await asyncio.sleep(model_claims.RENEW_SECONDS)
                # busy for long: the next renewal comes well before the lease ends
                with contextlib.suppress(JudgepoolError):
                    await write(model_claims.renew, ws, claimant)

        workers = [asyncio.create_task(work()) for _ in range(max(1, concurrency))]
        renewing = asyncio.create_task(renew())
        try:
            await asyncio.gather(*workers)
        except EndpointRefused as exc:
            tally.stopped_by = f"the endpoint refused: {exc}"
        except _ClaimLost:
            tally.stopped_by = STOPPED_BY_CLAIM
        except JudgepoolError as exc:
            # the workspace: read-only now, or held by another writer too long
            tally.stopped_by = f"could not record a grade: {exc}"
        finally:
            for task in (*workers, renewing):
                task.cancel()
            await asyncio.gather(*workers, renewing, return_exceptions=True)
            # a write under way ends before the workspace can be closed
            writer.shutdown(wait=True)
            # if the workspace cannot be written now, they lapse on their own
            with contextlib.suppress(JudgepoolError):
                model_claims.release_all(ws, claimant)
    return tally
