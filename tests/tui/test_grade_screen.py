"""The grade screen driven with keys through the Pilot, on real workspace files:
grades, unsure, undo and notes reach the ledger; navigation and "next
unjudged" go where they should; data text shows literally."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Static

from judgepool.services import app_queries
from judgepool.services.imports import import_queries
from judgepool.services.judging import judge
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from judgepool.tui.screens.grade import GradeScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text


def events(path: Path) -> list[ledger.JudgmentEvent]:
    with open_workspace(path) as ws:
        return ledger.list_events(ws)


def shown(screen: GradeScreen, selector: str) -> str:
    """The text a Static of the screen renders."""
    rendered = screen.query_one(selector, Static).render()
    plain = getattr(rendered, "plain", None)
    assert isinstance(plain, str)
    return plain


async def test_digit_grades_the_document_and_advances(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        first = screen.session.current if screen.session else None
        assert first is not None
        assert first[1] in shown(screen, "#document-head")
        await pilot.press("2")
        saved = events(teaching_ws)
        assert [(e.query_id, e.doc_id, e.grade, e.annotator, e.source) for e in saved] == [
            (first[0], first[1], 2, "alice", "human")
        ]
        assert screen.session is not None
        assert screen.session.current != first
        assert "saved 2" in shown(screen, "#grade-status")
        assert "1 judged this session" in shown(screen, "#grade-status")


async def test_digits_outside_the_scale_do_nothing(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        before = screen.session.current if screen.session else None
        await pilot.press("7", "9")
        assert events(teaching_ws) == []
        assert screen.session is not None and screen.session.current == before


async def test_unsure_defers_and_undo_appends(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        assert screen.session is not None
        first = screen.session.current
        await pilot.press("u")
        second = screen.session.current
        await pilot.press("3")
        assert second is not None and second != first
        # Undo the grade, then the unsure: two more events, nothing deleted.
        await pilot.press("z")
        assert screen.session.current == second
        await pilot.press("z")
        assert screen.session.current == first
        saved = events(teaching_ws)
        assert [(e.doc_id, e.grade, e.unsure, e.undoes) for e in saved] == [
            (first[1], None, True, None),
            (second[1], 3, False, None),
            (second[1], None, False, saved[1].id),
            (first[1], None, False, saved[0].id),
        ]
        with open_workspace(teaching_ws) as ws:
            assert app_queries.item_judgments(ws, "alice") == {}
        await pilot.press("z")  # nothing left to undo in this session
        assert len(events(teaching_ws)) == 4
        assert "nothing to undo" in shown(screen, "#grade-status")


async def test_next_unjudged_skips_graded_documents(two_queries_ws: Path) -> None:
    with open_workspace(two_queries_ws) as ws:
        # Another annotator has graded two documents already.
        judge(ws, "teach", "B", 2, annotator="bob")
        judge(ws, "hostile", "hostile-markup", 1, annotator="bob")
    app = create_app(two_queries_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        session = screen.session
        assert session is not None
        visited = []
        for _ in range(4):
            assert session.current is not None
            visited.append(session.current)
            await pilot.press("n")
        graded_by_bob = {("teach", "B"), ("hostile", "hostile-markup")}
        assert not graded_by_bob & set(visited)
        assert len(set(visited)) == 4  # all four unjudged documents, each once
        for _ in range(4):
            await pilot.press("1", "n")
        assert session.total_judged == session.total == 6
        where = session.current
        await pilot.press("n")
        assert session.current == where
        assert "every document of the pool is graded" in shown(screen, "#grade-status")


async def test_documents_and_queries_navigation(two_queries_ws: Path) -> None:
    app = create_app(two_queries_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        session = screen.session
        assert session is not None
        assert session.position == (0, 0)
        await pilot.press("j")
        assert session.position == (0, 1)
        await pilot.press("down", "down")
        assert session.position == (1, 0)  # past the last document: the next query
        await pilot.press("k")
        assert session.position == (0, 2)
        await pilot.press("up", "up", "up")
        assert session.position == (0, 0)  # stays at the first document
        await pilot.press("right_square_bracket")
        assert session.position == (1, 0)
        assert "how do I brew" in shown(screen, "#grade-query")
        await pilot.press("left_square_bracket")
        assert session.position == (0, 0)
        assert events(two_queries_ws) == []  # moving writes nothing


async def test_note_is_saved_with_the_grade(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        assert screen.session is not None
        first = screen.session.current
        await pilot.press("e")
        await pilot.press(*"too short", "enter")
        assert events(teaching_ws) == []  # no grade yet: the note waits for it
        await pilot.press("1")
        await pilot.press("k", "e", *" [bold]!", "enter")
        saved = events(teaching_ws)
        assert first is not None
        assert [(e.doc_id, e.grade, e.note) for e in saved] == [
            (first[1], 1, "too short"),
            (first[1], 1, "too short [bold]!"),
        ]


async def test_hostile_text_shows_literally(hostile_ws: Path) -> None:
    app = create_app(hostile_ws, "[b]alice[/b]")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        seen: dict[str, str] = {}
        for _ in range(3):
            assert screen.session is not None and screen.session.current is not None
            seen[screen.session.current[1]] = screen_text(app)
            await pilot.press("j")
    markup, escapes, named = (
        seen["hostile-markup"],
        seen["hostile-escapes"],
        seen["[red]hostile-id[/red]"],
    )
    for text in (markup, escapes, named):
        assert "[b]alice[/b]" in text
        assert "which [bold]document[/bold] shows its \\x1b[1mmarkup\\x1b[0m literally?" in text
        assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", text)  # newlines only
    assert "[bold]not bold[/bold]" in markup
    assert "[link=https://example.com]x[/link]" in markup
    assert "[@click=app.quit]not an action[/]" in markup
    assert ":warning: not an emoji" in markup
    assert "\\[bold]" in markup
    assert "\\x1b[31mred\\x1b[0m" in escapes
    assert "\\x1b]0;pwned title\\x07" in escapes
    assert "\\x9b32mgreen" in escapes  # the 8-bit CSI, a C1 control
    assert "abc\\x08\\x08\\x08XYZ" in escapes
    assert "[red]hostile-id[/red]" in named
    assert "[blink]\\x1b[5mblink" in named


async def test_run_and_rank_stay_hidden(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        assert screen.session is not None
        for _ in range(3):
            text = screen_text(app)
            assert "perfect-ab" not in text and "candidates-bc" not in text
            assert "rank" not in text.lower()
            await pilot.press("j")


async def test_a_workspace_without_a_pool_says_what_to_do(tmp_path: Path) -> None:
    with init_workspace(tmp_path / "empty.sqlite"):
        pass
    app = create_app(tmp_path / "empty.sqlite", "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("2", "u", "z", "n", "j", "right_square_bracket", "e")
        assert "Nothing to grade yet" in screen_text(app)
        assert events(tmp_path / "empty.sqlite") == []


async def test_the_query_shows_its_narrative_and_terms_are_highlighted(
    teaching_ws: Path, tmp_path: Path
) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text(
        "teach\thow do I brew a good cup of green tea\tRelevant: [i]how[/i] to brew it.\n"
    )
    with open_workspace(teaching_ws) as ws:
        import_queries(ws, queries)
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        assert "Relevant: [i]how[/i] to brew it." in shown(screen, "#grade-query")
        assert screen.session is not None
        for _ in range(3):
            if screen.session.current == ("teach", "A"):
                break
            await pilot.press("j")
        assert screen.session.current == ("teach", "A")
        body = screen.query_one("#document-text", Static).render()
        spans = getattr(body, "spans", [])
        plain = getattr(body, "plain", "")
        lit = {plain[span.start : span.end] for span in spans}
        assert {"Brewing", "green", "tea", "cup"} <= lit
        assert "water" not in lit
