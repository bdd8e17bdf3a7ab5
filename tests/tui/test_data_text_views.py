"""Every view that shows data text, over the hostile sets, on the real app
driven by its Pilot: the hostile set (markup, terminal escapes) and its
companion hostile-unicode (two MS MARCO passages whose mojibake the app
repairs, one of them holding a LEFT-TO-RIGHT MARK once repaired; a Tamil
couplet; bidi and zero-width characters; wide and combining ones; IDs that
look alike: tests/fixtures/README.md).

In every state of every view, the screen as drawn (`screen_text`):

- holds no control character (no escape sequence reached the terminal) and
  no mojibake (``visÂ·cerÂ·al``, ``â€``);
- shows no escape of a character that draws nothing in text to read (the
  literal ``\\u200e`` of the issue): those are left out, IDs aside;
- is drawn where the app laid it out: every border character sits in the
  column a terminal puts it in (measured with `wcwidth`, which measures as
  glibc, tmux and most terminals do: a Tamil vowel sign takes a cell there
  and none in Rich's layout, so a row of Tamil pushed the border out);
- shows the look-alike IDs as distinct strings.

The grade screen (each document, repaired and raw), the adjudication screen,
the side-by-side lists and document, the drill-down, every run's holes, the
search dialog and the note dialog (whose fields start with data text) are
each run through it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import wcwidth
from rich.cells import cell_len
from textual.widgets import DataTable, Input

from judgepool.core.terms.contract import Contract
from judgepool.services import app_queries, judging
from judgepool.services.review import drill_down
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.dialogs.all_holes import AllHolesScreen
from judgepool.tui.dialogs.drilldown import DrilldownScreen
from judgepool.tui.dialogs.note import NoteDialog
from judgepool.tui.dialogs.search import SearchDialog
from judgepool.tui.dialogs.side_by_side import SideBySideScreen
from judgepool.tui.screens.adjudicate import AdjudicateScreen
from judgepool.tui.widgets.grading_panels import DocumentView
from judgepool.tui.widgets.side_by_side import RankedColumn
from tests.tui.conftest import build_workspace, wait_ready
from tests.tui.pilot_support import screen_text, wait_until

SIZE = (120, 36)
RUN_A, RUN_B = "hostile-unicode/look-a", "hostile-unicode/look-b"
QUERY = "visceral"
# The look-alike IDs and how each must be shown: no two alike.
LOOK_ALIKES = {
    "look-d1": "look-d1",
    "look-d1\ufe0f": "look-d1\\ufe0f",  # a variation selector, which draws nothing
    "look-d1\u3164": "look-d1\\u3164",  # a Hangul filler, which draws nothing
    "look-d1\\ufe0f": "look-d1\\\\ufe0f",  # a backslash typed: doubled
    "ஆதி": "ஆத\\u0bbf",  # a spacing vowel sign: its width is uncertain
}
# Escapes of characters that draw nothing, which text to read must not show
# (the IDs above show theirs, as they must).
DRAWS_NOTHING = ("\\u200b", "\\u200c", "\\u200d", "\\u200e", "\\u200f", "\\u202e", "\\u2060")
DRAWS_NOTHING += ("\\ufeff", "\\xad", "\\u061c", "\\u2066", "\\U000e0041")
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def _is_border(char: str) -> bool:
    """Box drawing and block elements: the borders, scrollbars and rules."""
    return 0x2500 <= ord(char) <= 0x259F


def misdrawn(text: str) -> list[str]:
    """The rows of ``text`` (a screen) in which a border character is not in
    the column the app laid it out in, when a terminal draws the row."""
    rows = []
    for row in text.splitlines():
        for index, char in enumerate(row):
            if _is_border(char) and wcwidth.wcswidth(row[:index]) != cell_len(row[:index]):
                rows.append(row)
                break
    return rows


def check(app: JudgepoolApp, where: str) -> str:
    """The screen, once it holds nothing that should not be there (see the module)."""
    text = screen_text(app)
    assert not _CONTROL.search(text), f"{where}: a control character reached the screen"
    for mojibake in ("Â·", "â€", "Ã©"):
        assert mojibake not in text, f"{where}: mojibake {mojibake!r} shown"
    for escape in DRAWS_NOTHING:
        assert escape not in text, f"{where}: {escape} shown in text to read"
    assert misdrawn(text) == [], f"{where}: the border moves:\n" + "\n".join(misdrawn(text))
    return text


def workspace(tmp_path: Path) -> Path:
    """Both hostile sets, unjudged; alice and bob disagree on four items, with
    notes that are themselves hostile."""
    path = build_workspace(tmp_path / "hostile.sqlite", ["hostile", "hostile-unicode"])
    note = "vis\u200bcerÂ·al தமிழ் \u202eevil\u202c [b]x[/b] \x1b[31mred"
    with open_workspace(path) as ws:
        for query, doc in (
            ("hostile", "hostile-markup"),
            (QUERY, "7685383"),
            (QUERY, "kural-1"),
            (QUERY, "zero-width"),
        ):
            judging.judge(ws, query, doc, 0, annotator="alice", note=note)
            judging.judge(ws, query, doc, 3, annotator="[i]bob[/i]")
    return path


def rows_of(table: DataTable[Any], column: int) -> list[str]:
    """The plain text of one column's cells, as the table holds them."""
    return [table.get_row_at(row)[column].plain for row in range(table.row_count)]


def assert_distinct(shown: Iterable[str], text: str) -> None:
    """Every look-alike ID is shown as its own string, and is on the screen."""
    shown = list(shown)
    for doc, expected in LOOK_ALIKES.items():
        assert expected in shown, f"{doc!r} shown as none of {shown}"
        assert expected in text
    assert len(set(shown)) == len(shown)


async def test_the_grade_screen_shows_every_document_repaired_and_raw(tmp_path: Path) -> None:
    app = create_app(workspace(tmp_path), "lena")
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        seen: dict[tuple[str, str], str] = {}
        doc_view = grade.query_one("#grade-document", DocumentView)
        while True:
            current = grade.session.current
            assert current is not None
            await wait_until(
                pilot, lambda doc=current[1]: doc_view.part_of(doc) is not None, "the text"
            )
            seen[current] = check(app, f"grade screen, {current}")
            if len(seen) == 14:
                break
            await pilot.press("j")
            await wait_until(
                pilot, lambda was=current: grade.session.current != was, "the next document"
            )
        assert "[bold]not bold[/bold]" in seen[("hostile", "hostile-markup")]
        assert "\\x1b[31mred\\x1b[0m" in seen[("hostile", "hostile-escapes")]
        moji = seen[(QUERY, "2672608")]
        assert "vis·cer·al. adj." in moji and "text repaired for reading" in moji
        assert "what does vis·cer·al mean" in moji  # the query, repaired too
        assert "visceral (comparative" in seen[(QUERY, "7685383")]  # its mark left out
        assert "en.wikipedia.org" in seen[(QUERY, "zero-width")]
        assert "gnp.exe" in seen[(QUERY, "bidi")] and "שלום" in seen[(QUERY, "bidi")]
        kural = seen[(QUERY, "kural-1")]
        assert "அகர ம\\u0bc1தல" in kural  # Tamil, each vowel sign an escape
        assert "漢字かな交じり文" in seen[(QUERY, "wide")]
        for doc, shown in LOOK_ALIKES.items():
            assert shown in seen[(QUERY, doc)]
        # raw (r): the stored characters, each that draws nothing an escape
        app.queue_for_grading(QUERY, "7685383")
        await wait_until(pilot, lambda: grade.session.current == (QUERY, "7685383"), "7685383")
        await pilot.press("r")
        await wait_until(pilot, lambda: "raw text, as stored" in screen_text(app), "raw text")
        text = screen_text(app)
        assert "visceral â\\x80\\x8e(comparative" in text
        assert misdrawn(text) == []
        app.queue_for_grading(QUERY, "zero-width")
        await wait_until(pilot, lambda: "en\\u200b.wikipedia" in screen_text(app), "raw marks")
        assert misdrawn(screen_text(app)) == []


async def test_the_adjudication_screen_shows_each_disagreement(tmp_path: Path) -> None:
    app = create_app(workspace(tmp_path), "lena")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        await wait_until(pilot, lambda: len(screen.listed) == 4, "the four disagreements")
        table = screen.query_one("#adjudicate-table", DataTable)
        assert "kural-1" in rows_of(table, 1)
        view = screen.query_one("#adjudicate-document", DocumentView)
        for index, found in enumerate(screen.listed):
            if index:
                await pilot.press("j")
            doc = found.item.doc_id
            await wait_until(pilot, lambda doc=doc: view.part_of(doc) is not None, doc)
            text = check(app, f"adjudication, {doc}")
            assert "note: viscer·al தம\\u0bbfழ் evil [b]x[/b] \\x1b[31mred" in text
            assert "[i]bob[/i] 3" in text
            if doc == "7685383":
                assert "visceral (comparative" in text


async def test_the_side_by_side_lists_and_document(tmp_path: Path) -> None:
    app = create_app(workspace(tmp_path), "lena")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        view = SideBySideScreen(RUN_A, RUN_B, QUERY, Contract())
        app.push_screen(view)
        await wait_until(pilot, lambda: view.lists is not None, "both lists")
        column = view.query_one("#sbs-a", RankedColumn)
        text = check(app, "side by side")
        assert "what does vis·cer·al mean" in text  # the query in the heading, repaired
        for row, doc in enumerate(column.docs):
            column.move_cursor(row=row)
            shown = LOOK_ALIKES.get(doc, doc)
            await wait_until(pilot, lambda shown=shown: _document_id(view) == shown, doc)
            text = check(app, f"side by side, {doc}")
            if doc == "7685383":
                assert "visceral (comparative" in text
        # the top 10 of each run: every look-alike is in one list or the other
        both = rows_of(column, 1) + rows_of(view.query_one("#sbs-b", RankedColumn), 1)
        assert_distinct(set(both), screen_text(app))


def _document_id(view: SideBySideScreen) -> str:
    """The ID the side-by-side document panel shows first, as shown."""
    return str(view.query_one("#sbs-text").render()).split("\n")[0].split("  ")[0]


async def test_the_drill_down(tmp_path: Path) -> None:
    path = workspace(tmp_path)
    with open_workspace(path) as ws:
        drilldown = drill_down(ws, RUN_A, QUERY, Contract(k=20))
    app = create_app(path, "lena")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        app.push_screen(DrilldownScreen(drilldown))
        await wait_until(pilot, lambda: isinstance(app.screen, DrilldownScreen), "the drill-down")
        await pilot.pause()
        text = check(app, "drill-down")
        table = app.screen.query_one("#drill-ranked", DataTable)
        assert_distinct(rows_of(table, 1), text)


async def test_every_runs_holes(tmp_path: Path) -> None:
    app = create_app(workspace(tmp_path), "lena")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        holes = AllHolesScreen(Contract(k=20))
        app.push_screen(holes)
        await wait_until(pilot, lambda: holes.holes is not None, "the holes")
        table = holes.query_one("#holes-table", DataTable)
        await wait_until(pilot, lambda: table.row_count > 0, "the list")
        text = check(app, "every run's holes")
        assert "vis·cer·al. adj." in text  # the start of the text, repaired
        assert_distinct(rows_of(table, 1), text)
        for row in range(table.row_count):
            table.move_cursor(row=row)
            await pilot.pause()
            check(app, f"every run's holes, row {row}")


async def test_the_search_dialog(tmp_path: Path) -> None:
    app = create_app(workspace(tmp_path), "lena")
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        # the words start as the query's text: the hostile query's escapes, then
        # the mojibake and Tamil of the other, shown as they read
        for query in ("hostile", QUERY):
            await wait_until(pilot, lambda q=query: (grade.session.current or ("",))[0] == q, query)
            await pilot.press("f")
            await wait_until(pilot, lambda: isinstance(app.screen, SearchDialog), "the search")
            await wait_until(pilot, lambda: app.screen.searched != "", "the query's words")
            text = check(app, f"search for query {query}")
            if query == "hostile":
                assert "shows its \\x1b[1mmarkup\\x1b[0m literally?" in text
                await pilot.press("escape")
                await pilot.press("right_square_bracket")
        assert "what does vis·cer·al mean, in தம\\u0bbfழ் or עברית?" in text
        dialog = app.screen
        assert isinstance(dialog, SearchDialog)
        assert dialog.searched == "what does visÂ·cerÂ·al mean, in தமிழ் or עברית?"  # as stored
        table = dialog.query_one("#search-results", DataTable)
        for words, expected in (
            ("visceral", "vis·cer·al. adj."),
            ("characters", "en.wikipedia.org"),
            ("ID", "My ID is look-d1"),
        ):
            field = dialog.query_one("#search-words", Input)
            field.value = words
            field.focus()
            await pilot.press("enter")
            await wait_until(pilot, lambda words=words: dialog.searched == words, words)
            await pilot.pause()
            text = check(app, f"search for {words}")
            assert expected in text
        assert_distinct(rows_of(table, 0), text)


async def test_the_note_dialog_starts_with_the_note_as_shown(tmp_path: Path) -> None:
    path = workspace(tmp_path)
    note = "\x1b[31mred\u200b and vis\u00c2\u00b7cer"
    with open_workspace(path) as ws:
        judging.judge(ws, "hostile", "hostile-markup", 1, annotator="lena", note=note)
    app = create_app(path, "lena")
    async with app.run_test(size=SIZE) as pilot:
        grade = await wait_ready(pilot)
        app.queue_for_grading("hostile", "hostile-markup")
        await wait_until(
            pilot, lambda: grade.session.current == ("hostile", "hostile-markup"), "the note's"
        )
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteDialog), "the note dialog")
        field = app.screen.query_one("#note-input", Input)
        assert field.value == "\\x1b[31mred and vis·cer"
        check(app, "the note dialog")
        await pilot.press("enter")  # unchanged: the stored note stays as it is
        await wait_until(pilot, lambda: app.screen is grade, "the grade screen")
        with open_workspace(path) as ws:
            held = app_queries.item_judgment(ws, "lena", "hostile", "hostile-markup")
        assert held.own_note == note
