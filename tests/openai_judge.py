"""A real OpenAI-compatible chat-completions server for the tests of
``judgepool prelabel``, written with aiohttp (installed through
textual-serve), on 127.0.0.1 on a free port, in a thread of its own.

It plays a judge: it reads the query and the document out of judgepool's
prompt (between their tags, marked as `judgepool.core.prompting.grading_prompt` marks
them: the closing tag with the same mark as the opening one), answers
``{"grade": N}`` from a hidden table of true grades keyed by (query text,
document text), a grade off by one with probability ``noise`` (drawn per
item from ``seed``, so the same item always gets the same answer), and
reports token usage. It can be told to be slow
(``latency``) and, per document text, to meet its next requests with faults,
one per request, in order (`FAULTS`); ``always`` meets every request with
one. What it received is kept (``bodies``, ``headers``) for the tests to read,
and what it sent of a streamed body (``streamed``, bytes per request) and the
requests that reached the redirect's target (``redirected``).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# "429": Too Many Requests with Retry-After (`retry_after`); "500", "503";
# "hang": no answer for `hang` seconds (the client times out first);
# "garbage": a 200 whose content is not JSON; "loose": JSON but not the
# object asked for; "drop": the connection closed without a response;
# "401": the key refused; "400": a request the server will not take;
# "drip": a 200 whose answer comes a byte every `drip` seconds; "huge": a 200
# streamed without a length, `huge` bytes of it; "declared": the same with its
# length declared (Content-Length); "padded": a 200 whose content
# is the answer padded with `padded` spaces (still one JSON object); "302": a
# redirect, its body a well-formed answer, to a path that answers too.
FAULTS = (
    "429", "500", "503", "hang", "garbage", "loose", "drop", "401", "400",
    "drip", "huge", "declared", "padded", "302",
)  # fmt: skip

_QUERY = re.compile(r"<query-([0-9a-f]+)>(.*?)</query-\1>", re.S)
_DOCUMENT = re.compile(r"<document-([0-9a-f]+)>(.*?)</document-\1>", re.S)


@dataclass
class JudgeConfig:
    """What the judge knows and how it behaves (changeable while it runs)."""

    grades: dict[tuple[str, str], int] = field(default_factory=dict)
    scale: tuple[int, int] = (0, 3)
    noise: float = 0.0
    seed: int = 0
    latency: float = 0.0
    faults: dict[str, deque[str]] = field(default_factory=dict)
    always: str | None = None
    retry_after: str = "0"
    hang: float = 30.0
    usage: bool = True
    drip: float = 0.1
    huge: int = 100 * 1024 * 1024
    padded: int = 1024 * 1024


class JudgeServer:
    """The server; `url` is its OpenAI-compatible base URL."""

    def __init__(self, config: JudgeConfig | None = None) -> None:
        self.config = config or JudgeConfig()
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.answered = 0
        self.streamed: list[int] = []
        self.finished = 0  # streamed bodies ended: sent whole, or cut off by the client
        self.redirected = 0
        self._seen = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="openai-judge", daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def grade_of(self, query: str, document: str) -> int:
        """The grade the judge gives (the true one, or off by one: the noise)."""
        config = self.config
        true = config.grades.get((query, document), config.scale[0])
        rng = random.Random(f"{config.seed}|{query}|{document}")
        if rng.random() >= config.noise:
            return true
        low, high = config.scale
        moved = true + rng.choice((-1, 1))
        return moved if low <= moved <= high else true + (1 if moved < low else -1)

    def wait_for_requests(self, count: int, timeout: float = 30.0) -> bool:
        """Block until ``count`` requests were received (False on timeout)."""
        return self.wait_for(lambda: len(self.bodies) >= count, timeout)

    def wait_for(self, done: Callable[[], bool], timeout: float = 30.0) -> bool:
        """Block until ``done()`` holds, checked at each request received and
        each streamed body ended (False on timeout)."""
        with self._seen:
            return self._seen.wait_for(done, timeout)

    def _fault(self, document: str) -> str | None:
        queued = self.config.faults.get(document)
        if queued:
            return queued.popleft()
        return self.config.always

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._seen:
            self.bodies.append(body)
            self.headers.append(dict(request.headers))
            self._seen.notify_all()
        text = body["messages"][-1]["content"]
        query_match, document_match = _QUERY.search(text), _DOCUMENT.search(text)
        query = query_match.group(2) if query_match else ""
        document = document_match.group(2) if document_match else ""
        config = self.config
        if config.latency:
            await asyncio.sleep(config.latency)
        fault = self._fault(document)
        if fault == "429":
            return web.json_response(
                {"error": {"message": "rate limited"}},
                status=429,
                headers={"Retry-After": config.retry_after},
            )
        if fault in ("500", "503", "401", "400"):
            return web.json_response({"error": {"message": "fault"}}, status=int(fault))
        if fault == "hang":
            await asyncio.sleep(config.hang)
        if fault == "drop":
            assert request.transport is not None
            request.transport.abort()
            raise asyncio.CancelledError  # nothing is sent on a closed connection
        if fault in ("huge", "declared"):
            length = config.huge if fault == "declared" else None
            return await self._stream(request, b" " * 65536, config.huge, 0.0, length=length)
        if fault == "garbage":
            content = "The document is relevant, I would say a 2."
        elif fault == "loose":
            content = json.dumps({"grade": 2, "why": "it mentions the topic"})
        else:
            content = json.dumps({"grade": self.grade_of(query, document)})
        if fault == "padded":
            content = content[:-1] + " " * config.padded + "}"
        reply = self._completion(body, text, content)
        if fault == "302":
            return web.json_response(
                reply, status=302, headers={"Location": "/v1/redirected/chat/completions"}
            )
        if fault == "drip":
            data = json.dumps(reply).encode("utf-8")
            return await self._stream(request, data, len(data), config.drip, step=1)
        self.answered += 1
        return web.json_response(reply)

    def _completion(self, body: dict[str, Any], text: str, content: str) -> dict[str, Any]:
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.bodies)}",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
        }
        if self.config.usage:
            prompt_tokens = len(text.split())
            reply["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": 6,
                "total_tokens": prompt_tokens + 6,
            }
        return reply

    async def _stream(
        self,
        request: web.Request,
        data: bytes,
        total: int,
        pause: float,
        step: int = 0,
        length: int | None = None,
    ) -> web.StreamResponse:
        """A 200 of ``total`` bytes of ``data`` (repeated), ``step`` bytes at a
        time (0: all of ``data``) with ``pause`` seconds between, until done or
        the client goes, its ``length`` declared or (None) not; what was sent
        is recorded."""
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        if length is not None:
            response.content_length = length
        await response.prepare(request)
        index = len(self.streamed)
        self.streamed.append(0)
        size = step or len(data)
        try:
            while self.streamed[index] < total:
                start = self.streamed[index] % len(data)
                chunk = (data * 2)[start : start + min(size, total - self.streamed[index])]
                await response.write(chunk)
                self.streamed[index] += len(chunk)
                if pause:
                    await asyncio.sleep(pause)
            await response.write_eof()
        except ConnectionError:
            pass  # the client went away: what it cut off is what the test looks at
        finally:
            with self._seen:
                self.finished += 1
                self._seen.notify_all()
        return response

    async def _redirected(self, request: web.Request) -> web.Response:
        self.redirected += 1
        return web.json_response({"error": {"message": "a redirect was followed"}})

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_route("*", "/v1/redirected/chat/completions", self._redirected)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.2)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self._runner.cleanup())
        self._loop.close()

    def start(self) -> JudgeServer:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the judge server did not start")
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)


@contextmanager
def judge_server(config: JudgeConfig | None = None) -> Iterator[JudgeServer]:
    """A running judge server, stopped at the end."""
    server = JudgeServer(config).start()
    try:
        yield server
    finally:
        server.stop()
