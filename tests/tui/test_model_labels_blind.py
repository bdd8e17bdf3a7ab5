"""Blind stays blind with a model's labels in the workspace (``prelabel``):
in the real app through its Pilot, on a real workspace file where the model
``model:secretjudge`` labelled every pooled item, a person grading blind
never has its grade (or its name) on the screen, on any view the app lets
them open; an item only the model labelled still waits for a person; an
adjudicator's queue leaves the model out; a lead sees its labels, said to
be a model's, on the adjudication screen, the side-by-side lists and the
agreement screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgepool.core.terms.contract import Contract
from judgepool.services.judging import judge
from judgepool.services.roles import set_role
from judgepool.services.workspace import open_workspace
from judgepool.store.model_replies import ModelReply, record_reply
from judgepool.tui.app import create_app
from judgepool.tui.dialogs.side_by_side import SideBySideScreen
from judgepool.tui.screens.grade import GradeScreen
from tests.tui.conftest import build_workspace, wait_ready
from tests.tui.pilot_support import screen_text, wait_until

SIZE = (110, 32)
WIDE = (130, 40)  # the side-by-side lists with the model column, names whole
MODEL = "model:secretjudge"
SECRET = "secretjudge"
LABELS = {"A": 0, "B": 2, "C": 1}


def _team(tmp_path: Path) -> Path:
    path = build_workspace(tmp_path / "team.sqlite", ["teaching"])
    with open_workspace(path) as ws:
        set_role(ws, "lena", "lead")
        set_role(ws, "bob", "annotator")
        set_role(ws, "carol", "adjudicator")
        # alice and dave disagree on A: the adjudication queue has an item
        judge(ws, "teach", "A", 3, annotator="alice")
        judge(ws, "teach", "A", 1, annotator="dave")
        for doc_id, grade in LABELS.items():
            reply = f'{{"grade": {grade}}}'
            record_reply(ws, MODEL, ModelReply("teach", doc_id, grade, reply, "d" * 64))
    return path


def _no_model(app: object, where: str) -> str:
    text = screen_text(app)  # type: ignore[arg-type]
    assert SECRET not in text, f"{where}: the model's label is on the screen\n{text}"
    return text


async def test_a_blind_annotator_never_sees_the_models_labels(tmp_path: Path) -> None:
    app = create_app(_team(tmp_path), "bob")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_ready(pilot)
        assert app.blind
        # every document of the queue: none is done, none said graded by another
        seen = set()
        for _ in range(len(LABELS) + 1):
            current = screen.session.current
            assert current is not None
            seen.add(current[1])
            judgment = screen.session.judgment(*current)
            if current[1] != "A":  # only the model labelled it: not judged for people
                assert not judgment.judged
            text = _no_model(app, f"grade screen, {current[1]}")
            assert "also graded" not in text
            await pilot.press("j")
            await pilot.pause()
        assert seen == set(LABELS)
        # grading an item the model labelled, and seeing it again
        await pilot.press("2")
        await pilot.pause()
        _no_model(app, "after grading")


@pytest.mark.parametrize(
    "keys",
    [
        ("m", "i", "question_mark"),  # own items, guidelines, help
        ("f", "e", "t"),  # search, a note, the settle order
        ("a", "s", "K", "D", "p", "H"),  # audit, scores, agreement, adjudication...: refused
    ],
)
async def test_no_view_shows_a_blind_annotator_the_models_labels(
    tmp_path: Path, keys: tuple[str, ...]
) -> None:
    app = create_app(_team(tmp_path), "bob")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_ready(pilot)
        # items the model labelled, one graded by bob, one marked unsure (his
        # own items list it)
        await pilot.press("2")
        await wait_until(pilot, lambda: "1 judged this session" in screen_text(app), "saved")
        await pilot.press("u")
        await wait_until(
            pilot,
            lambda: any(j.own_unsure for j in screen.session.judgments.values()),
            "the unsure mark",
        )
        # every view an annotator opens, and those refused to them
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            await app.workers.wait_for_complete()  # what the view reads, shown
            await pilot.pause()
            _no_model(app, f"after {key}")
            await pilot.press("escape")
            await pilot.pause()
            if not isinstance(app.screen, GradeScreen):
                app.action_show_screen("grade")
                await wait_until(pilot, lambda: isinstance(app.screen, GradeScreen), "grade")
        _no_model(app, "back on the grade screen")


async def test_an_adjudicator_settles_without_the_models_labels(tmp_path: Path) -> None:
    app = create_app(_team(tmp_path), "carol")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(
            pilot, lambda: type(app.screen).__name__ == "AdjudicateScreen", "adjudication"
        )
        await wait_until(pilot, lambda: "dave" in screen_text(app), "the disagreement")
        text = _no_model(app, "adjudication")
        assert "alice" in text


async def test_a_lead_sees_the_labels_as_a_models(tmp_path: Path) -> None:
    app = create_app(_team(tmp_path), "lena")
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot)
        _no_model(app, "the lead's grade screen, grading blind")
        await pilot.press("D")
        await wait_until(
            pilot, lambda: f"{MODEL} (a model's label) 0" in screen_text(app), "adjudication"
        )
        app.action_show_screen("agreement")
        await wait_until(
            pilot, lambda: type(app.screen).__name__ == "AgreementScreen", "the agreement"
        )
        await pilot.pause()
        await wait_until(
            pilot, lambda: f"{MODEL} vs people on 1 item (2 pairs)" in screen_text(app), "models"
        )
        app.action_show_screen("grade")
        await wait_until(pilot, lambda: isinstance(app.screen, GradeScreen), "grade")
        view = SideBySideScreen(
            "teaching/perfect-ab", "teaching/candidates-bc", "teach", Contract()
        )
        app.push_screen(view)
        await wait_until(pilot, lambda: view.lists is not None, "both lists")
        await wait_until(pilot, lambda: "model's label" in screen_text(app), "the column")
        text = screen_text(app)
        assert f"0 {MODEL}" in text and f"2 {MODEL}" in text


async def test_labels_arriving_while_a_blind_annotator_grades(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "live.sqlite", ["teaching"])
    with open_workspace(path) as ws:
        set_role(ws, "bob", "annotator")
    app = create_app(path, "bob")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_ready(pilot)
        current = screen.session.current
        assert current is not None
        before = app.live.refreshes
        # prelabel, in another process's place: every item, the current one too
        with open_workspace(path) as ws:
            for doc_id, grade in LABELS.items():
                reply = f'{{"grade": {grade}}}'
                record_reply(ws, MODEL, ModelReply("teach", doc_id, grade, reply, "d" * 64))
        await wait_until(pilot, lambda: app.live.refreshes > before, "the labels taken in")
        await pilot.pause()
        _no_model(app, "after the labels arrived")
        assert not screen.session.judgment(*current).judged
        for _ in LABELS:
            await pilot.press("j")
            await pilot.pause()
            _no_model(app, "moving on")


async def test_a_leads_drill_down_says_which_grades_a_model_gave(tmp_path: Path) -> None:
    from judgepool.tui.dialogs.drilldown import DrilldownScreen
    from judgepool.tui.widgets.score_table import PerQueryTable
    from tests.tui.review_support import settle

    app = create_app(_team(tmp_path), "lena")
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot)
        # the runs have holes: scored with them at gain 0
        app.contract = app.contract.with_changes(unjudged="zero")
        await pilot.press("s")
        await settle(pilot)
        table = app.screen.query_one(PerQueryTable)
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DrilldownScreen)
        text = screen_text(app)
        assert "model's label" in text and f"0 {MODEL}" in text
