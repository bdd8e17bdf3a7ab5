"""The team's grading guidelines in the app: shown by themselves on an
annotator's first open (in a terminal and in a served session, after sign-in),
once per text, again when the text changes (also while the app is open), on
``i`` at any time; the grades with their labels above them; escape sequences
and Rich markup in the text shown as characters, never acting."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input, Markdown

from judgepool.services import guidelines, sign_in
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.dialogs.guidelines import GuidelinesDialog, markdown_source
from judgepool.tui.dialogs.note import NoteDialog
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.sign_in import SignInScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import is_drawn, screen_text, wait_until

GUIDE = """# How we grade

Grade **3** when the passage answers the query outright.

| grade | example |
|---|---|
| 0 | a passage about coffee |
"""
HOSTILE = (
    "# Grading \x1b[31mred\x1b[0m guide\n\n"
    "A [bold]bold[/bold] claim and [@click=app.quit]a click[/] \x1b]0;pwned title\x07 here.\n\n"
    "```\ncode \x1b[2J block\n```\n\n"
    "- a \u202eright-to-left\u202c item\n"
)
LABELS = "0 Irrelevant · 1 Related · 2 Highly relevant · 3 Perfectly relevant · u unsure"


def set_guide(path: Path, text: str = GUIDE) -> str:
    with open_workspace(path) as ws:
        return guidelines.set_guidelines(ws, text).guidelines.digest


def seen_by(path: Path, digest: str) -> list[str]:
    with open_workspace(path) as ws:
        return guidelines.seen_by(ws, digest)


def showing_guidelines(app: JudgepoolApp) -> bool:
    """The guidelines dialog is up, its Markdown mounted and the dialog drawn (a
    dialog pushed by the live refresh is laid out a moment after it is pushed)."""
    screen = app.screen
    return (
        isinstance(screen, GuidelinesDialog)
        and any(md.children for md in screen.query(Markdown))
        and is_drawn(app)
        and "(i shows them again)" in screen_text(app)
    )


async def first_open(path: Path, annotator: str, size: tuple[int, int] = (120, 40)) -> str:
    """The screen's text when ``annotator`` opens the app, the guidelines closed after."""
    app = create_app(path, annotator)
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        await wait_until(pilot, lambda: showing_guidelines(app), "the guidelines")
        shown = screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, GradeScreen)
        return shown


async def test_the_guidelines_show_on_first_open_with_the_grade_labels(teaching_ws: Path) -> None:
    digest = set_guide(teaching_ws)
    shown = await first_open(teaching_ws, "alice")
    assert "Grading guidelines" in shown and "Please read the team's guidelines" in shown
    assert LABELS in shown
    assert "How we grade" in shown and "a passage about coffee" in shown
    assert seen_by(teaching_ws, digest) == ["alice"]


async def test_the_guidelines_show_once_per_annotator(teaching_ws: Path) -> None:
    set_guide(teaching_ws)
    await first_open(teaching_ws, "alice")
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("2")  # the first key grades: nothing covers the grade screen
        assert isinstance(app.screen, GradeScreen)
        assert "saved 2" in screen_text(app)
    await first_open(teaching_ws, "bob")  # bob has not been shown them yet


async def test_a_changed_text_is_shown_once_again(teaching_ws: Path) -> None:
    set_guide(teaching_ws)
    await first_open(teaching_ws, "alice")
    digest = set_guide(teaching_ws, GUIDE + "\nMark **unsure** (u) rather than guess.\n")
    shown = await first_open(teaching_ws, "alice")
    assert "The guidelines changed since you last read them" in shown
    assert "rather than guess" in shown
    assert seen_by(teaching_ws, digest) == ["alice"]
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("2")
        assert isinstance(app.screen, GradeScreen)


async def test_a_change_while_the_app_is_open_is_shown_over_the_grade_screen(
    teaching_ws: Path,
) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("e")  # typing a note: nothing comes over the note dialog
        assert isinstance(app.screen, NoteDialog)
        set_guide(teaching_ws)
        await wait_until(pilot, lambda: app.live.refreshes > 0, "the change to be taken in")
        assert isinstance(app.screen, NoteDialog)
        await pilot.press("escape")  # back on the grade screen: they come
        await wait_until(pilot, lambda: showing_guidelines(app), "the new guidelines")
        await pilot.press("escape")
        set_guide(teaching_ws, GUIDE + "\nA second version.\n")
        await wait_until(pilot, lambda: showing_guidelines(app), "the changed guidelines")
        await wait_until(pilot, lambda: "A second version." in screen_text(app), "the new text")
        assert "changed since you last read them" in screen_text(app)


async def test_i_shows_the_guidelines_at_any_time(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        await pilot.press("i")
        assert isinstance(app.screen, GuidelinesDialog)
        shown = screen_text(app)
        assert "no grading guidelines yet" in shown and LABELS in shown
        await pilot.press("i")  # i again closes
        assert app.screen is screen
    set_guide(teaching_ws)
    await first_open(teaching_ws, "alice")
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        await pilot.press("i")
        await wait_until(pilot, lambda: showing_guidelines(app), "the guidelines")
        assert "The team's grading guidelines" in screen_text(app)
        await pilot.press("escape", "2")
        assert app.screen is screen and "saved 2" in screen_text(app)


async def test_a_long_text_pages_with_space_and_b(teaching_ws: Path) -> None:
    set_guide(teaching_ws, "".join(f"## Example {n}\n\nParagraph {n}.\n\n" for n in range(60)))
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await wait_until(pilot, lambda: showing_guidelines(app), "the guidelines")
        await wait_until(pilot, lambda: "Example 0" in screen_text(app), "the text")
        await pilot.press("space")
        await wait_until(pilot, lambda: "Example 0" not in screen_text(app), "the next page")
        await pilot.press("b")
        await wait_until(pilot, lambda: "Example 0" in screen_text(app), "the page before")


async def test_escapes_and_markup_in_the_guidelines_show_as_characters(teaching_ws: Path) -> None:
    set_guide(teaching_ws, HOSTILE)
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await wait_until(pilot, lambda: showing_guidelines(app), "the guidelines")
        await wait_until(pilot, lambda: "block" in screen_text(app), "every block")
        shown = screen_text(app)
        for drawn in ("\x1b", "\x07", "\u202e", "\u202c"):
            assert drawn not in shown
        for literal in (
            "Grading \\x1b[31mred\\x1b[0m guide",
            "A [bold]bold[/bold] claim and [@click=app.quit]a click[/] \\x1b]0;pwned title\\x07",
            "code \\x1b[2J block",
            "a \\u202eright-to-left\\u202c item",
        ):
            assert literal in shown
        await pilot.press("escape")
        assert isinstance(app.screen, GradeScreen)  # no [@click=app.quit] took effect


class _RawMarkdown(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Markdown(self.text)


@pytest.mark.parametrize("escaped", [False, True], ids=["as given", "escaped"])
async def test_textuals_markdown_lets_escapes_through_unless_they_are_escaped(
    escaped: bool,
) -> None:
    # Why markdown_source exists: Textual's Markdown draws ESC as it is.
    text = markdown_source(HOSTILE) if escaped else HOSTILE
    app = _RawMarkdown(text)
    async with app.run_test(size=(100, 20)) as pilot:
        await wait_until(pilot, lambda: "block" in screen_text(app), "the text")
        assert ("\x1b" in screen_text(app)) is not escaped


def test_markdown_source_keeps_line_breaks_and_tabs() -> None:
    assert markdown_source("a\r\n\tb\x1b\rc\x00") == "a\n\tb\\x1b\nc\\x00"


async def test_a_served_session_is_shown_the_guidelines_after_sign_in(teaching_ws: Path) -> None:
    with open_workspace(teaching_ws) as ws:
        token = sign_in.add_annotator(ws, "alice")
    digest = set_guide(teaching_ws)
    app = create_app(teaching_ws, "", sign_in_first=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SignInScreen), "sign-in")
        assert "How we grade" not in screen_text(app)  # nothing before sign-in
        app.screen.query_one("#sign-in-name", Input).value = "alice"
        await pilot.press("tab", *token, "enter")
        await wait_until(pilot, lambda: showing_guidelines(app), "the guidelines")
        assert "How we grade" in screen_text(app)
    assert seen_by(teaching_ws, digest) == ["alice"]


async def test_every_grade_shows_beside_its_label(tmp_path: Path) -> None:
    # 0..4 named at both ends only: the others are their own number
    path = tmp_path / "five.sqlite"
    init_workspace(path, scale="0..4", labels={0: "Bad", 4: "Great"}).close()
    app = create_app(path, "alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        shown = screen_text(app)
        assert " 0  Bad    1     2     3     4  Great    u  unsure" in shown
        await pilot.press("i")
        assert "0 Bad · 1 · 2 · 3 · 4 Great · u unsure" in screen_text(app)


async def test_the_trec_labels_show_beside_the_digits_at_80_columns(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        shown = screen_text(app)
        assert "0  Irrelevant    1  Related    2  Highly relevant    3  Perfectly relevant" in shown
