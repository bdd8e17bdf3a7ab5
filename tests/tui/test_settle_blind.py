"""Grading blind, the settle order (``t`` on the grade screen) says nothing of
runs, pairs or verdicts to a grader who is not a lead: its line, the status
line, help and its refusal speak of documents alone, so no one grades towards
the verdict a pair awaits. A lead, or anyone while grading is not blind,
reads the pairs as before. Driven by the Pilot on the demo workspace (and on
one without runs)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from judgepool.services.imports import import_documents, import_queries
from judgepool.services.roles import set_role
from judgepool.services.settings import set_blind_grading
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.screens.help import HelpScreen
from judgepool.tui.widgets.settle_order import SettleOrder
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import settle
from tests.tui.story_support import build_story_workspace, true_grade

SIZE: Final = (150, 45)
# whole words: the document on screen is data, and may hold "rerun" or "brunch"
TELLING: Final = re.compile(r"\b(pairs?|flip\w*|probable|runs?|verdicts?|better)\b", re.I)


def _team(path: Path) -> Path:
    with open_workspace(path) as ws:
        set_role(ws, "lena", "lead")
        set_role(ws, "bob", "annotator")
    return path


def _told(app: JudgepoolApp, where: str) -> str:
    """The screen and the notifications, checked for a word of runs or pairs."""
    text = screen_text(app) + "\n" + "\n".join(n.message for n in app._notifications)
    found = TELLING.findall(text)
    assert not found, f"{where}: {found} on the screen\n{text}"
    return text


async def test_a_blind_annotator_reads_of_documents_only(tmp_path: Path) -> None:
    app = create_app(_team(build_story_workspace(tmp_path)), "bob")
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        assert app.blind
        bar = grade.query_one(SettleOrder)
        await pilot.press("t")
        await wait_until(pilot, lambda: bar.last is not None, "the settle order")
        await pilot.pause()
        assert bar.last is not None and bar.last.hole is not None
        first = (bar.last.hole.query_id, bar.last.hole.doc_id)
        text = _told(app, "the settle order's start")
        assert f"settle order: {bar.last.holes} documents to grade, the most needed first" in text
        assert "next: the most needed document" in text
        # the words said as the order starts and when it runs dry, flashed too
        # briefly to catch on screen, are the widget's
        for words in (bar.start_words(), bar.none_left_words()):
            assert not TELLING.search(words), words

        await pilot.press(str(true_grade(*first)))  # the next document comes, ranked again
        await wait_until(
            pilot,
            lambda: bar.last is not None and bar.last.hole is not None
            and grade.session.current == (bar.last.hole.query_id, bar.last.hole.doc_id)
            and grade.session.current != first,
            "the next document",
        )  # fmt: skip
        await pilot.pause()
        assert "saved " in _told(app, "after a grade")

        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        assert "Settle order: grade first the documents most needed" in _told(app, "help")


@pytest.mark.parametrize(("who", "blind"), [("lena", True), ("bob", False)])
async def test_a_lead_or_anyone_not_blind_reads_the_pairs(
    tmp_path: Path, who: str, blind: bool
) -> None:
    path = _team(build_story_workspace(tmp_path))
    with open_workspace(path) as ws:
        set_blind_grading(ws, blind)
    app = create_app(path, who)
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        bar = grade.query_one(SettleOrder)
        await pilot.press("t")
        await wait_until(pilot, lambda: bar.last is not None, "the settle order")
        await pilot.pause()
        text = screen_text(app)
        assert re.search(r"settle order: \d+ holes left, .*pairs? could flip", text), text
        assert "next: the hole that decides most" in text
        assert bar.start_words() == "settle order: the holes that decide comparisons come first"


async def test_a_refusal_names_no_run_to_a_blind_annotator(tmp_path: Path) -> None:
    (tmp_path / "queries.tsv").write_text("q1\tgreen tea\n", encoding="utf-8")
    (tmp_path / "docs.tsv").write_text("d1\tabout tea\n", encoding="utf-8")
    path = tmp_path / "empty.sqlite"
    with init_workspace(path) as ws:
        import_queries(ws, tmp_path / "queries.tsv")
        import_documents(ws, tmp_path / "docs.tsv")
    for who, reason in (
        ("bob", "no settle order: not available now; the pool order goes on"),
        ("lena", "no settle order: the workspace has no runs: import runs to compare first"),
    ):
        app = create_app(_team(path), who)
        async with app.run_test(size=SIZE) as pilot:
            grade = await wait_ready(pilot)
            await pilot.press("t")
            await settle(pilot)
            assert not grade.query_one(SettleOrder).active
            assert reason in screen_text(app), who
            if who == "bob":
                _told(app, "the refusal")
