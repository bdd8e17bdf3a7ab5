"""A refusal shown in the app names the app's way out (the contract key ``c``
and the policy), never the command line's flags (issue 10, point 11)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import App, ComposeResult
from textual.message import Message
from textual.widgets import Static

from judgepool.core.terms.errors import (
    DuplicateEntry,
    DuplicatesRejected,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.tui.background import Refused, post, read
from judgepool.tui.readers import ReadConnections
from judgepool.tui.refusals import app_refusal
from judgepool.tui.widgets.score_runs import RunSummaryTable
from tests.tui.conftest import build_workspace
from tests.tui.pilot_support import screen_text
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.test_scores_screen import SIZE, open_scores


async def test_the_scores_screen_names_the_contract_key_not_flags(tmp_path: Path) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scores(pilot)
        runs = screen.query_one(RunSummaryTable)
        runs.move_cursor(row=runs.get_row_index("alpha"))
        await settle(pilot)
        text = screen_text(app)
        assert "unjudged document(s) in the top k" in text
        assert "Press c to change the contract's unjudged policy" in text
        assert "--unjudged" not in text and "--consensus" not in text


def test_every_policy_refusal_has_an_app_way_out() -> None:
    unjudged = UnjudgedRejected([UnjudgedEntry("q1", "d1", 1)])
    disputed = unjudged.explained({("q1", "d1"): "an unresolved disagreement"})
    duplicates = DuplicatesRejected([DuplicateEntry("q1", "d1", (3, 4))])
    for error, way_out in (
        (unjudged, "unjudged policy: zero"),
        (disputed, "Adjudicate the disagreements"),
        (duplicates, "duplicates policy to first"),
    ):
        words = app_refusal(error)
        assert "--" not in words, words
        assert way_out in words
        assert words.splitlines()[0] == str(error).splitlines()[0]  # what is refused, as is
    assert "an unresolved disagreement" in app_refusal(disputed)


async def test_a_refusal_from_a_thread_job_is_in_the_apps_words(tmp_path: Path) -> None:
    # The app's views read in thread workers: a policy refusal raised there
    # reaches the view with the app's way out too.
    workspace = build_workspace(tmp_path / "t.sqlite", ["teaching"])
    failures: list[str] = []

    def refuse(_ws: object) -> None:
        raise UnjudgedRejected([UnjudgedEntry("q1", "d1", 1)])

    @dataclass
    class Read(Message):
        outcome: Refused | None

    class Reader(Static):
        # a view's worker, as the app's views write them (judgepool.tui.background)
        @work(thread=True, exclusive=True, group="t")
        def read_refused(self, readers: ReadConnections) -> None:
            post(self, Read(read(readers, refuse)))

        def on_read(self, message: Read) -> None:
            if isinstance(message.outcome, Refused):
                failures.append(message.outcome.reason)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Reader(id="reader")

    readers = ReadConnections(workspace)
    app = Host()
    async with app.run_test() as pilot:
        app.query_one(Reader).read_refused(readers)
        await app.workers.wait_for_complete()
        await settle(pilot)
    readers.close()
    (words,) = failures
    assert "Press c to change the contract's unjudged policy" in words
    assert "--unjudged" not in words
