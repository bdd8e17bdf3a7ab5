"""``judgepool prelabel``: a model on an OpenAI-compatible endpoint grades a
batch of items, each grade recorded as the rater ``model:NAME``.

One chat-completions request per item (`judgepool.core.grading_prompt`),
``concurrency`` of them in flight, through httpx. Each answer is recorded
once read, in its own short transaction with its reply and the prompt's
digest (`judgepool.store.model_replies`): people grading meanwhile wait no
longer than one insert, and a run stopped anyhow (Ctrl-C, kill -9) keeps
every grade it recorded and nothing half-written; the next run skips them
(`judgepool.services.prelabel_items.prepare_batch`).

What can go wrong with a request is either transient (429, 5xx, a timeout,
a dropped connection: retried with backoff, honouring Retry-After,
`judgepool.core.retry_delay`), an unreadable answer (asked once more, then
a failure, never a grade), a refusal that will not change (401, 403, 404:
the run stops, every later item would meet it too) or another 4xx (that
item fails). The tally says what came of each item, with the reasons.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from judgepool.core.errors import InputError, JudgepoolError
from judgepool.core.grades import Scale
from judgepool.core.grading_prompt import GradingPrompt, UnreadableAnswer, read_answer
from judgepool.core.retry_delay import RetryPolicy, retry_delay
from judgepool.display import quoted
from judgepool.services.prelabel_items import Batch, PreparedItem
from judgepool.store.model_replies import ModelReply, record_reply
from judgepool.store.workspace import Workspace

# Refusals that every later request would meet as well (a wrong key, a model
# the endpoint does not serve, a wrong path): the run stops at the first.
_FATAL: Final = frozenset({401, 403, 404})
_REASON_TEXT: Final = 120


@dataclass(frozen=True)
class Endpoint:
    """Where to ask: the chat-completions URL, the model to name in the
    request, the API key (None: no Authorization header) and the seconds a
    request may take."""

    url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0


def chat_url(base: str) -> str:
    """The chat-completions URL of an endpoint given as its base URL
    (``http://host:port/v1``, as OpenAI clients take it) or as the full URL."""
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"--endpoint {quoted(base)} is not an http(s) URL; give the server's "
            "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1"
        )
    try:
        parts.port  # noqa: B018  (reading it checks it)
    except ValueError:
        raise InputError(f"--endpoint {quoted(base)} has a bad port") from None
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        return base
    return base.rstrip("/") + "/chat/completions"


class EndpointRefused(Exception):
    """The endpoint refused in a way no retry changes; the run stops."""


@dataclass
class Tally:
    """What came of a run's items so far (the summary, and the progress bar)."""

    todo: int
    skipped: int = 0
    labelled: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_reported: bool = False
    started: float = field(default_factory=time.monotonic)
    stopped_by: str | None = None

    @property
    def done(self) -> int:
        return self.labelled + sum(self.failed.values())

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def to_dict(self) -> dict[str, Any]:
        return {
            "to_label": self.todo,
            "labelled": self.labelled,
            "skipped": self.skipped,
            "failed": sum(self.failed.values()),
            "failures": dict(sorted(self.failed.items())),
            "seconds": round(self.seconds, 3),
            "prompt_tokens": self.prompt_tokens if self.tokens_reported else None,
            "completion_tokens": self.completion_tokens if self.tokens_reported else None,
            "stopped_by": self.stopped_by,
        }


@dataclass(frozen=True)
class _Answer:
    grade: int
    reply: str
    prompt_tokens: int | None
    completion_tokens: int | None


Sleep = Callable[[float], Awaitable[None]]


def _short(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= _REASON_TEXT else one_line[:_REASON_TEXT] + "…"


def _content(response: httpx.Response) -> tuple[object, dict[str, Any]]:
    """The first choice's message content and the usage, as far as they are there."""
    try:
        body = response.json()
    except (ValueError, UnicodeDecodeError):
        raise UnreadableAnswer("the response is not JSON") from None
    if not isinstance(body, dict):
        raise UnreadableAnswer("the response is not a chat completion")
    usage = body.get("usage")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise UnreadableAnswer("the response has no choice")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content, usage if isinstance(usage, dict) else {}


def _tokens(usage: dict[str, Any], key: str) -> int | None:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Asker:
    """Asks the endpoint for one item's grade, retrying as the module says."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        endpoint: Endpoint,
        scale: Scale,
        policy: RetryPolicy,
        sleep: Sleep,
    ) -> None:
        self.client = client
        self.endpoint = endpoint
        self.scale = scale
        self.policy = policy
        self.sleep = sleep
        self.rng = random.Random()
        self.headers = {"Content-Type": "application/json"}
        if endpoint.api_key:
            self.headers["Authorization"] = f"Bearer {endpoint.api_key}"

    async def ask(self, prompt: GradingPrompt) -> _Answer | str:
        """The answer, or why there is none (a failure's reason)."""
        body = json.dumps(prompt.body(self.endpoint.model), ensure_ascii=False).encode("utf-8")
        unreadable_left = 1
        attempt = 0
        while True:
            attempt += 1
            retry_after: str | None = None
            try:
                response = await self.client.post(
                    self.endpoint.url, content=body, headers=self.headers
                )
            except httpx.TimeoutException:
                reason = f"timed out (after {self.endpoint.timeout:g} s)"
            except httpx.RemoteProtocolError:
                reason = "connection dropped by the server"
            except httpx.TransportError as exc:
                reason = f"could not connect: {_short(str(exc) or type(exc).__name__)}"
            else:
                status = response.status_code
                if status in _FATAL:
                    raise EndpointRefused(f"HTTP {status}: {_short(response.text)}")
                if status == 429 or status >= 500:
                    reason = f"HTTP {status}"
                    retry_after = response.headers.get("Retry-After")
                elif status >= 400:
                    return f"HTTP {status}: {_short(response.text)}"
                else:
                    try:
                        content, usage = _content(response)
                        grade = read_answer(content, self.scale)
                    except UnreadableAnswer as exc:
                        if unreadable_left:
                            unreadable_left -= 1
                            attempt -= 1  # asked again at once, not a transient failure
                            continue
                        return f"unreadable reply: {exc}"
                    return _Answer(
                        grade,
                        str(content),
                        _tokens(usage, "prompt_tokens"),
                        _tokens(usage, "completion_tokens"),
                    )
            if attempt >= self.policy.attempts:
                return f"{reason}, {attempt} attempts"
            await self.sleep(retry_delay(self.policy, attempt, retry_after, self.rng))


def _record(
    ws: Workspace,
    rater: str,
    item: PreparedItem,
    prompt: GradingPrompt,
    answer: _Answer,
    tally: Tally,
) -> None:
    """Record the answer and count it, in the writer thread: a write the loop
    stopped waiting for (Ctrl-C) still ends, and is still counted."""
    record_reply(
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
    )
    # only this thread counts labels and tokens
    tally.labelled += 1
    if answer.prompt_tokens is not None:
        tally.tokens_reported = True
        tally.prompt_tokens += answer.prompt_tokens
    if answer.completion_tokens is not None:
        tally.tokens_reported = True
        tally.completion_tokens += answer.completion_tokens


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
) -> Tally:
    """Ask for and record the grade of every item of ``batch``, ``concurrency``
    at a time; ``tally`` (the caller's, so an interrupted run still has it)
    counts each outcome and ``on_item`` is called after each."""
    policy = policy or RetryPolicy()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    items: Iterator[PreparedItem] = iter(batch.todo)
    loop = asyncio.get_running_loop()
    # one writer: the grades are written one after another, as they came
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prelabel-writer")
    async with httpx.AsyncClient(timeout=endpoint.timeout, limits=limits) as client:
        asker = _Asker(client, endpoint, ws.scale, policy, sleep)

        async def work() -> None:
            # the items are shared: each worker takes the next one when free
            for item in items:
                if item.prompt is None:
                    tally.failed[item.problem or "no text"] += 1
                else:
                    outcome = await asker.ask(item.prompt)
                    if isinstance(outcome, str):
                        tally.failed[outcome] += 1
                    else:
                        # In the writer thread, so the loop keeps talking to the
                        # endpoint while SQLite syncs the commit to disk. A
                        # cancellation (Ctrl-C) stops the waiting, not the write:
                        # the transaction ends either way, committed or rolled back.
                        await loop.run_in_executor(
                            writer, _record, ws, rater, item, item.prompt, outcome, tally
                        )
                on_item(tally)

        workers = [asyncio.create_task(work()) for _ in range(max(1, concurrency))]
        try:
            await asyncio.gather(*workers)
        except EndpointRefused as exc:
            tally.stopped_by = f"the endpoint refused: {exc}"
        except JudgepoolError as exc:
            # the workspace: read-only now, or held by another writer too long
            tally.stopped_by = f"could not record a grade: {exc}"
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            # a write under way ends before the workspace can be closed
            writer.shutdown(wait=True)
    return tally
