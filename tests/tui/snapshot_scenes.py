"""The scenes the snapshot tests picture at 80 × 24 and 120 × 36: the demo
workspace (four runs, six pairs) with a screen or dialog opened by its keys,
and the grade screen's dialogs on the teaching set."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from textual.pilot import Pilot
from textual.widgets import Input

from judgepool.tui.app import JudgepoolApp
from judgepool.tui.widgets.pair_verdicts import PairVerdicts
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import wait_until
from tests.tui.review_support import review_app, settle
from tests.tui.story_support import build_story_workspace

# the demo's screens and dialogs, by the keys that open them from the grade screen
DEMO_KEYS: Final = {
    "audit": ("a",),
    "audit-plot": ("a", "down", "down", "P"),
    "scores": ("s",),
    "scores-plot": ("s", "P"),
    "pairs": ("a", "p"),
    "pairs-plot": ("a", "p", "P", "down"),
    "side-by-side": ("a", "p", "enter", "enter"),
    "drill-down": ("s", "d"),
    "comparison": ("s", "v"),
    "all-holes": ("a", "H"),
    "contract": ("a", "c"),
}
# the grade screen's dialogs, by their key
GRADE_DIALOGS: Final = {"note": "e", "go-to-query": "slash"}


def demo_app(directory: Path) -> JudgepoolApp:
    """The app on the demo workspace, as its one local user (the lead)."""
    return review_app(build_story_workspace(directory))


async def steady_cursors(pilot: Pilot[Any]) -> None:
    """A text field's cursor shown steadily: a blinking one is in the picture
    or not depending on when it is taken."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


async def press_through(pilot: Pilot[Any], keys: tuple[str, ...]) -> None:
    """Press ``keys`` one by one, each screen's work done before the next; a
    review screen's pairs compared before anything opens over it."""
    await wait_ready(pilot)
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
        pairs = pilot.app.screen.query(PairVerdicts)
        if pairs:
            table = pairs.first()
            await wait_until(pilot, lambda table=table: table.compared is not None, "the pairs")
            await settle(pilot)
    await steady_cursors(pilot)


async def open_dialog(pilot: Pilot[Any], key: str) -> None:
    """The grade screen, then the dialog ``key`` opens over it."""
    await wait_ready(pilot)
    await pilot.press(key)
    await wait_until(pilot, lambda: pilot.app.screen.id != "grade", "the dialog")
    await steady_cursors(pilot)
