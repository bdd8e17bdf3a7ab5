"""The help (``?``) lists every key of every screen and dialog, read from
their bindings (a class left out of it, or a key, fails here); a description
too long for the box wraps under itself, beside its keys, at 80 × 24; and it
shows what the role reaches: an annotator's help leaves out the screens of
adjudicators and leads, and says so in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.screen import Screen

from judgepool.core.terms.contract import Scale
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.screens.help import (
    HelpScreen,
    KeyList,
    Section,
    help_sections,
    key_name,
    parts,
)
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.test_adjudication_screen import _team
from tests.tui.test_browser_keys import judgepool_nodes

EVERY_DIGIT = Scale.parse("0..9")


def listed(section: Section) -> set[str]:
    """The keys a section's rows name (a grade row names several)."""
    keys: set[str] = set()
    for shown, _ in section.rows:
        keys.update(shown.split(" / ") if " / " in shown else shown.split())
    return keys


def test_help_lists_every_key_of_every_screen_and_dialog() -> None:
    from judgepool.tui.screens.help import own_bindings

    sections, _ = help_sections(JudgepoolApp.BINDINGS, EVERY_DIGIT)
    by_title = {section.title: section for section in sections}
    everywhere = listed(by_title["Everywhere"])
    for binding in Binding.make_bindings(JudgepoolApp.BINDINGS):
        assert key_name(binding) in everywhere, binding
    helped = {kind: part for part in parts() for kind in part.classes}
    missing: list[str] = []
    nodes = [n for n in judgepool_nodes() if "BINDINGS" in vars(n) and n is not JudgepoolApp]
    assert {"GradeScreen", "DrilldownScreen", "NoteDialog", "HoleTable"} <= {
        n.__name__ for n in nodes
    }
    for node in nodes:
        part = helped.get(node)
        if part is None:
            missing.append(f"{node.__name__}: no section of help")
            continue
        own = listed(by_title[part.title])
        repeated = {key_name(b) for b in Binding.make_bindings(vars(node)["BINDINGS"])} - {
            key_name(b) for b in Binding.make_bindings(own_bindings(part))
        }
        for binding in Binding.make_bindings(vars(node)["BINDINGS"]):
            key = key_name(binding)
            # the app's own keys a dialog binds again are listed under Everywhere
            if key not in own and not (key in repeated and key in everywhere):
                missing.append(f"{node.__name__}: {key} ({binding.action})")
    assert missing == []
    assert all(issubclass(kind, Screen) or kind.__name__ == "HoleTable" for kind in helped)


@pytest.mark.parametrize("annotator", ["lena", "bob"], ids=["lead", "annotator"])
async def test_a_wrapped_description_keeps_its_indent_at_80x24(
    teaching_ws: Path, annotator: str
) -> None:
    _team(teaching_ws)
    app = create_app(teaching_ws, annotator)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        box = [line for line in lines if line.startswith("│")]
        # the lead's D row wraps, the annotator's f5 row: each under its description
        long_row = "Adjudicate: settle the" if annotator == "lena" else "Re-read the workspace"
        at = next(i for i, line in enumerate(box) if long_row in line)
        column = box[at].index(long_row)
        follow = box[at + 1]
        assert follow[column - 1] == " " and follow[column] != " ", (box[at], follow)
        # nothing but a section's title starts at the box's left edge
        titles = {section.title for section in help_sections(app.BINDINGS, EVERY_DIGIT)[0]}
        text = app.screen.query_one(KeyList).render().plain
        keys_part = text.split("\nFor other roles")[0].split("\nGrades of")[0]
        for line in keys_part.splitlines():
            if line and not line.startswith("  "):
                assert line in titles, line
        width = app.screen.query_one(KeyList).size.width
        assert max(len(line) for line in text.splitlines()) <= width


async def help_text_of(path: Path, annotator: str) -> str:
    app = create_app(path, annotator)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        return app.screen.query_one(KeyList).render().plain


async def test_the_help_shows_what_the_role_reaches(teaching_ws: Path) -> None:
    _team(teaching_ws)  # alice and bob annotators, carol adjudicator, lena lead
    leads = (
        "Audit screen",
        "Scores screen",
        "Runs pair by pair",
        "Every run's holes",
        "The columns of the pairs",
        "Agreement screen",
        "Show the audit screen",
        "Agreement between annotators",
    )
    bob = await help_text_of(teaching_ws, "bob")
    for title in (*leads, "Adjudicate screen", "Adjudicate: settle"):
        assert title not in bob, title
    assert "Grade screen" in bob and "Go to a query" in bob and "Show the grade screen" in bob
    withheld = (
        "For other roles: audit, scores, agreement (leads); adjudicate (adjudicators and leads)."
    )
    assert withheld in " ".join(bob.split())
    carol = await help_text_of(teaching_ws, "carol")
    assert "Adjudicate screen" in carol and "Settle the highlighted disagreement" in carol
    for title in leads:
        assert title not in carol, title
    assert "For other roles: audit, scores, agreement (leads)." in " ".join(carol.split())
    lena = await help_text_of(teaching_ws, "lena")
    for title in (*leads, "Adjudicate screen", "Grade screen", "Signing in"):
        assert title in lena, title
    assert "For other roles" not in lena
