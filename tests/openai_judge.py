"""A real OpenAI-compatible chat-completions server for the tests of
``judgepool prelabel``, written with aiohttp (installed through
textual-serve), on 127.0.0.1 on a free port, in a thread of its own.

It plays a judge: it reads the query and the document out of judgepool's
prompt (between their tags), answers ``{"grade": N}`` from a hidden table of
true grades keyed by (query text, document text), a grade off by one with
probability ``noise`` (drawn per item from ``seed``, so the same item always
gets the same answer), and reports token usage. It can be told to be slow
(``latency``) and, per document text, to meet its next requests with faults,
one per request, in order (`FAULTS`); ``always`` meets every request with
one. What it received is kept (``bodies``, ``headers``) for the tests to read.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# "429": Too Many Requests with Retry-After (`retry_after`); "500", "503";
# "hang": no answer for `hang` seconds (the client times out first);
# "garbage": a 200 whose content is not JSON; "loose": JSON but not the
# object asked for; "drop": the connection closed without a response;
# "401": the key refused; "400": a request the server will not take.
FAULTS = ("429", "500", "503", "hang", "garbage", "loose", "drop", "401", "400")

_QUERY = re.compile(r"<query>(.*?)</query>", re.S)
_DOCUMENT = re.compile(r"<document>(.*?)</document>", re.S)


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


class JudgeServer:
    """The server; `url` is its OpenAI-compatible base URL."""

    def __init__(self, config: JudgeConfig | None = None) -> None:
        self.config = config or JudgeConfig()
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.answered = 0
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
        with self._seen:
            return self._seen.wait_for(lambda: len(self.bodies) >= count, timeout)

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
        query = query_match.group(1) if query_match else ""
        document = document_match.group(1) if document_match else ""
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
        if fault == "garbage":
            content = "The document is relevant, I would say a 2."
        elif fault == "loose":
            content = json.dumps({"grade": 2, "why": "it mentions the topic"})
        else:
            content = json.dumps({"grade": self.grade_of(query, document)})
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
        if config.usage:
            prompt_tokens = len(text.split())
            reply["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": 6,
                "total_tokens": prompt_tokens + 6,
            }
        self.answered += 1
        return web.json_response(reply)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
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
