"""One request of ``judgepool prelabel`` to an OpenAI-compatible endpoint,
bounded and retried (`Asker`); `judgepool.services.prelabel` runs many.

What can go wrong with a request is either transient (429, 5xx, a timeout,
a dropped connection: retried with backoff, honouring Retry-After,
`judgepool.core.prompting.retry_delay`), an unreadable answer (asked once more, then
a failure, never a grade), a refusal that will not change (401, 403, 404,
and any redirect, which is never followed: `EndpointRefused`, the run stops,
every later item would meet it too) or another status that is not 2xx (that
item fails).

What an endpoint sends is bounded: each request has one deadline, the
endpoint's ``timeout``, for all of it (connecting, sending, the status and
every byte of the body), so a server that drips a byte a second is cut off
like one that says nothing; a body is read as it streams, and a reply past
`MAX_REPLY_BYTES` is abandoned there (a failure, not retried: the same
prompt would bring the same reply); an error's body is read no further than
its first few KB, for the reason shown. The body is asked for uncompressed,
so what is counted is what is held.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from judgepool.core.prompting.grading_prompt import GradingPrompt, UnreadableAnswer, read_answer
from judgepool.core.prompting.retry_delay import RetryPolicy, retry_delay
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.grades import Scale
from judgepool.display import quoted

# Refusals that every later request would meet as well (a wrong key, a model
# the endpoint does not serve, a wrong path): the run stops at the first.
_FATAL: Final = frozenset({401, 403, 404})
_REASON_TEXT: Final = 120
MAX_REPLY_BYTES: Final = 4 * 1024 * 1024
"""The most of a 2xx body read: a chat completion holding ``{"grade": N}`` is
a few hundred bytes, one with a model's reasoning a few tens of KB."""
_ERROR_BYTES: Final = 4096  # of an error's body: enough for its reason


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


@dataclass(frozen=True)
class Answer:
    """A grade read from a reply, the reply's text and the tokens the endpoint
    reported (None: not told)."""

    grade: int
    reply: str
    prompt_tokens: int | None
    completion_tokens: int | None


Sleep = Callable[[float], Awaitable[None]]


def _short(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= _REASON_TEXT else one_line[:_REASON_TEXT] + "…"


def _content(data: bytes) -> tuple[object, dict[str, Any]]:
    """The first choice's message content and the usage, as far as they are there."""
    try:
        body = json.loads(data)
    except ValueError:  # UnicodeDecodeError is one
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


@dataclass(frozen=True)
class _Exchange:
    """One request's outcome: the status, the headers and the body read (None:
    a 2xx body past `MAX_REPLY_BYTES`, abandoned)."""

    status: int
    headers: httpx.Headers
    body: bytes | None

    @property
    def text(self) -> str:
        return (self.body or b"").decode("utf-8", "replace")


def _declared_over(headers: httpx.Headers, limit: int) -> bool:
    declared = headers.get("Content-Length", "")
    return declared.isascii() and declared.isdigit() and int(declared) > limit


class Asker:
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
        # identity: a compressed body would be inflated before it is counted
        self.headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
        if endpoint.api_key:
            self.headers["Authorization"] = f"Bearer {endpoint.api_key}"

    async def _exchange(self, body: bytes) -> _Exchange:
        """One request within its one deadline (`TimeoutError` past it), the
        body read as it streams and no further than its bound."""
        async with asyncio.timeout(self.endpoint.timeout):
            async with self.client.stream(
                "POST", self.endpoint.url, content=body, headers=self.headers
            ) as response:
                ok = response.is_success
                limit = MAX_REPLY_BYTES if ok else _ERROR_BYTES
                if ok and _declared_over(response.headers, limit):
                    return _Exchange(response.status_code, response.headers, None)
                data = bytearray()
                async for chunk in response.aiter_bytes():
                    data += chunk
                    if len(data) > limit:
                        if ok:
                            return _Exchange(response.status_code, response.headers, None)
                        del data[limit:]
                        break
                # leaving the block unread closes the connection: the rest never comes
                return _Exchange(response.status_code, response.headers, bytes(data))

    async def ask(self, prompt: GradingPrompt) -> Answer | str:
        """The answer, or why there is none (a failure's reason)."""
        body = json.dumps(prompt.body(self.endpoint.model), ensure_ascii=False).encode("utf-8")
        unreadable_left = 1
        attempt = 0
        while True:
            attempt += 1
            retry_after: str | None = None
            try:
                exchange = await self._exchange(body)
            except (TimeoutError, httpx.TimeoutException):
                reason = f"timed out (after {self.endpoint.timeout:g} s)"
            except httpx.RemoteProtocolError:
                reason = "connection dropped by the server"
            except httpx.TransportError as exc:
                reason = f"could not connect: {_short(str(exc) or type(exc).__name__)}"
            else:
                status = exchange.status
                if status in _FATAL:
                    raise EndpointRefused(f"HTTP {status}: {_short(exchange.text)}")
                if 300 <= status < 400:
                    # a POST redirected is no answer, and following it would send
                    # the prompt (and the key) where nobody said to
                    where = exchange.headers.get("Location")
                    to = f" to {_short(where)}" if where else ""
                    raise EndpointRefused(
                        f"HTTP {status}: a redirect{to}, not followed; give the URL the "
                        "server answers at as --endpoint"
                    )
                if status == 429 or status >= 500:
                    reason = f"HTTP {status}"
                    retry_after = exchange.headers.get("Retry-After")
                elif not 200 <= status < 300:
                    return f"HTTP {status}: {_short(exchange.text)}"
                elif exchange.body is None:
                    return f"reply over {MAX_REPLY_BYTES // 2**20} MB"
                else:
                    try:
                        content, usage = _content(exchange.body)
                        grade = read_answer(content, self.scale)
                    except UnreadableAnswer as exc:
                        if unreadable_left:
                            unreadable_left -= 1
                            attempt -= 1  # asked again at once, not a transient failure
                            continue
                        return f"unreadable reply: {exc}"
                    return Answer(
                        grade,
                        str(content),
                        _tokens(usage, "prompt_tokens"),
                        _tokens(usage, "completion_tokens"),
                    )
            if attempt >= self.policy.attempts:
                return f"{reason}, {attempt} attempts"
            await self.sleep(retry_delay(self.policy, attempt, retry_after, self.rng))
