"""One way to write a grade (`judgepool.tui.grade_writer`) and one definition of
the digit keys (`judgepool.tui.digit_keys`), shared by the grade screen, the
comparison's side-by-side lists and the adjudication screen. Driven by the
Pilot on real workspace files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding
from textual.dom import DOMNode

from judgepool.services.consensus import workspace_judgments
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui import grade_writer
from judgepool.tui.app import create_app
from judgepool.tui.dialogs.side_by_side import SideBySideScreen
from judgepool.tui.digit_keys import GradesByDigit
from judgepool.tui.messages import GradeSaved
from judgepool.tui.screens.adjudicate import AdjudicateScreen
from judgepool.tui.screens.adjudicate_keys import ADJUDICATE_BINDINGS
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.grade.keys import GRADE_BINDINGS
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.test_adjudication_screen import _team

Notices = list[tuple[str, dict[str, Any]]]


def _digits(bindings: list[Any], action: str) -> list[tuple[str, str, str]]:
    return [
        (b.key, b.action, b.group.description if b.group else "")
        for b in bindings
        if isinstance(b, Binding) and b.key.isdigit()
    ]


def test_the_screens_that_grade_bind_the_digits_one_way() -> None:
    for bindings, action in (
        (GRADE_BINDINGS, "grade"),
        (ADJUDICATE_BINDINGS, "settle"),
        (SideBySideScreen.BINDINGS, "grade"),
    ):
        assert _digits(bindings, action) == [
            (str(digit), f"{action}({digit})", action) for digit in range(10)
        ]
    for screen in (GradeScreen, AdjudicateScreen, SideBySideScreen):
        assert issubclass(screen, GradesByDigit)
    # not a node at run time: Textual reads a screen's CSS types from its first
    # base that is one, which must stay Screen (or ModalScreen) itself
    assert not issubclass(GradesByDigit, DOMNode)


async def test_each_screen_offers_the_digits_of_the_scale_only(teaching_ws: Path) -> None:
    _team(teaching_ws)
    app = create_app(teaching_ws, "carol")  # an adjudicator, who grades too
    async with app.run_test(size=(120, 36)) as pilot:
        grade = await wait_ready(pilot)
        scale = app.ws.scale
        assert [d for d in range(10) if grade.check_action("grade", (d,))] == list(
            range(scale.minimum, scale.maximum + 1)
        )
        assert grade.check_action("undo", ()) is True  # the rest as before
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
        settle = app.screen
        assert [d for d in range(10) if settle.check_action("settle", (d,))] == list(
            range(scale.minimum, scale.maximum + 1)
        )
        assert settle.check_action("grade", (1,)) is True  # not this screen's digits


async def test_a_grade_is_written_taken_into_the_plan_and_announced(
    teaching_ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await wait_ready(pilot)
        notices: Notices = []
        monkeypatch.setattr(app, "notify", lambda words, **kw: notices.append((words, kw)))
        heard: list[GradeSaved] = []
        app.grade_saved_signal.subscribe(screen, heard.append, immediate=True)
        item = screen.session.current
        assert item is not None and app.session.total_judged == 0
        written = grade_writer.judge(app, item, 2)
        assert isinstance(written, grade_writer.Written)
        assert (written.grade, written.unsure, written.noted) == (2, False, False)
        assert app.session.judgment(*item).own_grade == 2
        assert app.session.total_judged == 1  # the grade screen's progress bars
        assert heard == [GradeSaved(*item, 2)]
        # a refusal: nothing written, nothing recorded or announced, one notice
        refused = grade_writer.judge(app, item, 7)
        assert isinstance(refused, grade_writer.NotSaved)
        assert refused.words.startswith("not saved: grade 7 is outside the workspace's scale")
        assert notices == [(refused.words, {"severity": "error", "markup": False})]
        assert app.session.judgment(*item).own_grade == 2
        assert heard == [GradeSaved(*item, 2)]
    with open_workspace(teaching_ws) as ws:
        judged, _ = workspace_judgments(ws)
    assert judged[item[0]][item[1]] == 2


async def test_a_settling_grade_refused_is_shown_as_a_grade_refused(
    teaching_ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _team(teaching_ws)
    app = create_app(teaching_ws, "carol")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
        notices: Notices = []
        monkeypatch.setattr(app, "notify", lambda words, **kw: notices.append((words, kw)))
        # a lead takes carol's role while her queue is open
        with open_workspace(teaching_ws) as ws, ws.write() as conn:
            ledger.set_role(conn, "carol", "annotator")
        await pilot.press("2")
        await pilot.pause()
        words = "not saved: 'carol' is not an adjudicator"
        assert len(notices) == 1 and notices[0][0].startswith(words)
        assert notices[0][1] == {"severity": "error", "markup": False}
        assert words in screen_text(app)  # the status line, as the grade screen's
    with open_workspace(teaching_ws) as ws:
        judged, _ = workspace_judgments(ws, "adjudicated")
    query_id, doc_id = items[1]
    assert doc_id not in judged.get(query_id, {})  # still unresolved
