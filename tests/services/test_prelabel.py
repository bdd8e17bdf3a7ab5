"""``prelabel`` against a real OpenAI-compatible server (`tests.openai_judge`,
aiohttp on 127.0.0.1) on real workspace files: what is asked and recorded,
the resume, and each fault the server can be told to make.

The waits between retries go through a recording ``sleep`` that does not
sleep: the tests see the delays asked for (a Retry-After honoured) without
spending them, and stay fast and deterministic under load.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections import deque
from pathlib import Path

import pytest

from judgepool.core.prompting.retry_delay import RetryPolicy
from judgepool.services import prelabel, prelabel_asking, prelabel_items
from judgepool.services.workspace import open_workspace
from tests.openai_judge import JudgeConfig, JudgeServer, judge_server
from tests.prelabel_support import HoledWorkspace, holed_workspace

RATER = "model:judge"


class Waits:
    """A sleep that records what it was asked to wait, and returns at once."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        await asyncio.sleep(0)


def run(
    holed: HoledWorkspace,
    server: JudgeServer,
    *,
    waits: Waits | None = None,
    policy: RetryPolicy | None = None,
    timeout: float = 10.0,
    api_key: str | None = None,
    concurrency: int = 4,
    items: str = "holes",
    limit: int | None = None,
    relabel_withdrawn: bool = False,
) -> prelabel.Tally:
    with open_workspace(holed.path) as ws:
        chosen = prelabel_items.chosen_items(ws, RATER, items)
        batch = prelabel_items.prepare_batch(
            ws, RATER, chosen, limit, relabel_withdrawn=relabel_withdrawn
        )
        tally = prelabel.Tally(len(batch.todo), batch.skipped, batch.withdrawn)
        url = prelabel_asking.chat_url(server.url)
        endpoint = prelabel_asking.Endpoint(url, "judge", api_key, timeout)
        asyncio.run(
            prelabel.label_batch(
                ws,
                RATER,
                batch,
                endpoint,
                tally,
                concurrency=concurrency,
                policy=policy or RetryPolicy(attempts=3),
                sleep=waits or Waits(),
                relabel_withdrawn=relabel_withdrawn,
            )
        )
    return tally


def model_grades(path: Path) -> dict[tuple[str, str], int]:
    conn = sqlite3.connect(path)
    try:
        return {
            (q, d): g
            for q, d, g in conn.execute(
                "SELECT query_id, doc_id, grade FROM current_judgments WHERE annotator = ?",
                (RATER,),
            )
        }
    finally:
        conn.close()


def events(path: Path) -> list[tuple[str, str, int, str, str, str | None]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT e.query_id, e.doc_id, e.grade, e.source, r.reply, r.prompt_digest "
            "FROM judgment_events e LEFT JOIN model_replies r ON r.event_id = e.id "
            "WHERE e.annotator = ? ORDER BY e.id",
            (RATER,),
        ).fetchall()
    finally:
        conn.close()


def doc_text(holed: HoledWorkspace, doc_id: str) -> str:
    query_id = next(q for q, d in holed.items if d == doc_id)
    number = query_id[1:]
    return f"document {doc_id} on topic {number}, passage {doc_id.split('-')[1]}"


def test_every_hole_graded_and_recorded_with_its_reply(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path)
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        tally = run(holed, server, api_key="sk-test")
    assert tally.labelled == len(holed.items) and not tally.failed
    assert model_grades(holed.path) == holed.truth
    recorded = events(holed.path)
    assert len(recorded) == len(holed.items)
    for _, _, grade, source, reply, digest in recorded:
        assert source == RATER and reply == f'{{"grade": {grade}}}'
        assert digest is not None and len(digest) == 64
    assert tally.tokens_reported and tally.completion_tokens == 6 * len(holed.items)
    body = server.bodies[0]
    assert body["model"] == "judge"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["grade"]
    prompt = body["messages"][-1]["content"]
    assert re.search(r"<narrative-([0-9a-f]{16})>A relevant document talks of topic", prompt)
    assert "3 = Perfectly relevant" in prompt
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


def test_a_rerun_skips_what_is_labelled_with_the_same_prompt(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path)
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        first = run(holed, server, limit=4)
        assert first.labelled == 4
        second = run(holed, server)
        assert (second.skipped, second.labelled) == (4, len(holed.items) - 4)
        third = run(holed, server)
        assert (third.todo, third.skipped) == (0, len(holed.items))
        assert len(server.bodies) == len(holed.items)
    assert len(events(holed.path)) == len(holed.items)


def test_a_changed_document_is_labelled_again(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=3)
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        run(holed, server)
        (tmp_path / "docs2.tsv").write_text("d0-2\tnew text of the passage\n", encoding="utf-8")
        from judgepool.services.imports import import_documents

        with open_workspace(holed.path) as ws:
            import_documents(ws, tmp_path / "docs2.tsv")
        again = run(holed, server)
    assert (again.skipped, again.labelled) == (2, 1)
    assert [e[1] for e in events(holed.path)][-1] == "d0-2"


def test_429_waits_as_retry_after_says(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=2)
    config = JudgeConfig(grades=holed.grades, retry_after="7")
    config.faults[doc_text(holed, "d0-1")] = deque(["429", "429"])
    waits = Waits()
    with judge_server(config) as server:
        tally = run(holed, server, waits=waits)
    assert tally.labelled == 2 and not tally.failed
    assert waits.asked == [7.0, 7.0]
    assert model_grades(holed.path) == holed.truth


def test_retry_after_is_capped(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=1)
    config = JudgeConfig(grades=holed.grades, retry_after="86400")
    config.faults[doc_text(holed, "d0-1")] = deque(["429"])
    waits = Waits()
    with judge_server(config) as server:
        run(holed, server, waits=waits, policy=RetryPolicy(attempts=3, retry_after_cap=60))
    assert waits.asked == [60.0]


def test_5xx_is_retried_with_backoff_then_a_failure(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=2)
    config = JudgeConfig(grades=holed.grades)
    config.faults[doc_text(holed, "d0-1")] = deque(["500", "503"])
    config.faults[doc_text(holed, "d0-2")] = deque(["500"] * 10)
    waits = Waits()
    policy = RetryPolicy(attempts=3, base=1.0, cap=8.0)
    with judge_server(config) as server:
        tally = run(holed, server, waits=waits, policy=policy, concurrency=1)
    assert tally.labelled == 1
    assert tally.failed == {"HTTP 500, 3 attempts": 1}
    assert model_grades(holed.path) == {("q0", "d0-1"): holed.truth[("q0", "d0-1")]}
    # backoff: the n-th wait within [2^(n-1) / 2, 2^(n-1)] seconds (jittered)
    assert len(waits.asked) == 4
    for wait, attempt in zip(waits.asked, [1, 2, 1, 2], strict=True):
        assert 2 ** (attempt - 1) / 2 <= wait <= 2 ** (attempt - 1)


def test_a_timeout_is_retried_then_a_failure(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=2)
    config = JudgeConfig(grades=holed.grades, hang=30)
    config.faults[doc_text(holed, "d0-1")] = deque(["hang"])  # once: then answered
    config.faults[doc_text(holed, "d0-2")] = deque(["hang", "hang"])
    with judge_server(config) as server:
        tally = run(holed, server, timeout=0.3, policy=RetryPolicy(attempts=2))
    assert tally.labelled == 1
    assert tally.failed == {"timed out (after 0.3 s), 2 attempts": 1}


def test_an_unreadable_reply_is_asked_once_more_then_a_failure(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=3)
    config = JudgeConfig(grades=holed.grades)
    config.faults[doc_text(holed, "d0-1")] = deque(["garbage"])
    config.faults[doc_text(holed, "d0-2")] = deque(["garbage", "garbage"])
    config.faults[doc_text(holed, "d0-3")] = deque(["loose", "loose"])
    waits = Waits()
    with judge_server(config) as server:
        tally = run(holed, server, waits=waits)
        assert len(server.bodies) == 6  # each asked twice, no more
    assert tally.labelled == 1
    assert tally.failed == {
        "unreadable reply: the reply is not JSON": 1,
        'unreadable reply: the reply is not the object {"grade": N}': 1,
    }
    assert waits.asked == []  # asked again at once: not an overloaded server
    assert set(model_grades(holed.path)) == {("q0", "d0-1")}


def test_a_dropped_connection_is_retried(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=2)
    config = JudgeConfig(grades=holed.grades)
    config.faults[doc_text(holed, "d0-1")] = deque(["drop"])
    config.faults[doc_text(holed, "d0-2")] = deque(["drop"] * 5)
    with judge_server(config) as server:
        tally = run(holed, server, policy=RetryPolicy(attempts=3))
    assert tally.labelled == 1
    assert tally.failed == {"connection dropped by the server, 3 attempts": 1}


def test_a_refused_key_stops_the_run(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=2, depth=5)
    with judge_server(JudgeConfig(grades=holed.grades, always="401")) as server:
        tally = run(holed, server, concurrency=2)
        assert len(server.bodies) <= 2  # the first refusals stop the rest
    assert tally.stopped_by is not None and tally.stopped_by.startswith(
        "the endpoint refused: HTTP 401"
    )
    assert tally.labelled == 0 and model_grades(holed.path) == {}


def test_no_server_listening_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=1)
    server = JudgeServer().start()
    server.stop()  # its port is free again: nothing listens
    tally = run(holed, server, policy=RetryPolicy(attempts=2))
    assert sum(tally.failed.values()) == 1
    assert next(iter(tally.failed)).startswith("could not connect")


def test_noise_moves_grades_by_one(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=4, depth=10)
    with judge_server(JudgeConfig(grades=holed.grades, noise=0.3, seed=1)) as server:
        run(holed, server)
    got = model_grades(holed.path)
    off = [abs(got[item] - holed.truth[item]) for item in holed.items]
    assert set(off) == {0, 1}
    assert 0 < sum(off) < len(off)


def test_items_from_a_file_pool_and_assignment(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=3)
    listing = tmp_path / "items.txt"
    listing.write_text("# two items\nq0 d0-3\nq0\td0-1\nq0 d0-3\n", encoding="utf-8")
    with open_workspace(holed.path) as ws:
        assert prelabel_items.chosen_items(ws, RATER, str(listing)) == [
            ("q0", "d0-3"),
            ("q0", "d0-1"),
        ]
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        tally = run(holed, server, items=str(listing))
    assert tally.labelled == 2


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("q0 d0-1\nq0\n", 2, "an item line is 'QUERY DOC'"),
        ("q0 d0-1 x\n", 1, "not 3 fields"),
        ("\n# nothing\n", None, "lists no item"),
    ],
)
def test_a_bad_item_file_is_refused_with_its_line(
    tmp_path: Path, text: str, line: int | None, why: str
) -> None:
    from judgepool.core.terms.errors import InputError

    holed = holed_workspace(tmp_path, queries=1, depth=1)
    listing = tmp_path / "items.txt"
    listing.write_text(text, encoding="utf-8")
    with open_workspace(holed.path) as ws, pytest.raises(InputError) as caught:
        prelabel_items.chosen_items(ws, RATER, str(listing))
    assert why in caught.value.message and caught.value.line == line


def test_people_grading_meanwhile_are_not_blocked(tmp_path: Path) -> None:
    import threading
    import time

    from judgepool.services.judging import judge

    holed = holed_workspace(tmp_path, queries=4, depth=10)
    outcome: list[prelabel.Tally] = []
    with judge_server(JudgeConfig(grades=holed.grades, latency=0.05)) as server:
        batch = threading.Thread(target=lambda: outcome.append(run(holed, server)))
        batch.start()
        try:
            assert server.wait_for_requests(8)
            waits = []
            # a person on a connection of their own, while the model's grades go in
            with open_workspace(holed.path, busy_timeout_ms=3000) as ws:
                for query_id, doc_id in holed.items[:10]:
                    started = time.monotonic()
                    judge(ws, query_id, doc_id, 1, annotator="alice")
                    waits.append(time.monotonic() - started)
        finally:
            batch.join(60)
    assert outcome and outcome[0].labelled == len(holed.items)
    # never near the busy timeout (a writer holding the lock for long would
    # have made these fail with WorkspaceBusy after 3 s)
    assert max(waits) < 3.0


def test_tokens_unreported_and_a_limit(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=5)
    with judge_server(JudgeConfig(grades=holed.grades, usage=False)) as server:
        tally = run(holed, server, limit=2)
    assert tally.labelled == 2 and not tally.tokens_reported
    assert tally.to_dict()["prompt_tokens"] is None


def test_an_item_without_text_fails_without_a_request(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=1)
    listing = tmp_path / "items.txt"
    listing.write_text("q0 d0-1\nq0 nosuchdoc\nq9 d0-1\n", encoding="utf-8")
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        tally = run(holed, server, items=str(listing))
        assert len(server.bodies) == 1
    assert tally.labelled == 1
    assert tally.failed == {
        "no text for the document in the workspace": 1,
        "no text for the query in the workspace": 1,
    }


def test_a_second_model_labels_the_same_holes(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=4)
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        first = run(holed, server)
        with open_workspace(holed.path) as ws:
            other = prelabel_items.chosen_items(ws, "model:other", "holes")
            mine = prelabel_items.chosen_items(ws, RATER, "holes")
    assert first.labelled == 4
    # no model's label makes an item judged for choosing the holes
    assert other == mine == holed.items[:4]


def test_a_slow_server_within_the_timeout_is_waited_for(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=4)
    waits = Waits()
    with judge_server(JudgeConfig(grades=holed.grades, latency=0.3)) as server:
        tally = run(holed, server, waits=waits, timeout=10.0, concurrency=4)
        assert len(server.bodies) == 4  # each asked once: slow is not a failure
    assert tally.labelled == 4 and waits.asked == []


def test_the_pool_and_the_assignment_as_items(tmp_path: Path) -> None:
    from judgepool.services.assignments import assign
    from judgepool.services.pools import pool

    holed = holed_workspace(tmp_path, queries=2, depth=5)
    with open_workspace(holed.path) as ws:
        with pytest.raises(Exception, match="no pool"):
            prelabel_items.chosen_items(ws, RATER, "pool")
        with pytest.raises(Exception, match="no assignment"):
            prelabel_items.chosen_items(ws, RATER, "assigned")
        pool(ws, depth=3)
        pooled = prelabel_items.chosen_items(ws, RATER, "pool")
        assert len(pooled) == 6 and set(pooled) <= set(holed.items)
        assign(ws, annotators=["ann", "ben"], overlap=1)
        assert sorted(prelabel_items.chosen_items(ws, RATER, "assigned")) == sorted(pooled)


def test_another_4xx_fails_the_item_and_the_run_goes_on(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=3)
    config = JudgeConfig(grades=holed.grades)
    config.faults[doc_text(holed, "d0-2")] = deque(["400"])
    waits = Waits()
    with judge_server(config) as server:
        tally = run(holed, server, waits=waits)
        assert len(server.bodies) == 3  # not retried: the same request would fail again
    assert tally.labelled == 2
    assert tally.failed == {'HTTP 400: {"error": {"message": "fault"}}': 1}
    assert waits.asked == []
