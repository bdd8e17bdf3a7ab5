"""Search and judge (f on the grade screen): a document the pool missed is
found by full-text search, joins the pool with source `search`, and is graded
like any other. Real workspace, real app through the Pilot."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from judgepool.services.imports import import_documents
from judgepool.services.search_judge import search_for_query
from judgepool.services.workspace import open_workspace
from judgepool.store.pool_finds import pool_finds
from judgepool.tui.app import create_app
from judgepool.tui.dialogs.search import SearchDialog
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until

EXTRA = (
    "matcha\tMatcha is a powdered [i]green tea[/i]: whisk it, do not steep it.\n"
    "coffee\tEspresso is brewed by forcing hot water through ground coffee.\n"
)


def _with_extra_documents(ws_path: Path, tmp_path: Path) -> None:
    docs = tmp_path / "extra.tsv"
    docs.write_text(EXTRA, encoding="utf-8")
    with open_workspace(ws_path) as ws:
        import_documents(ws, docs)


def test_the_query_words_find_documents_holding_any_of_them(
    teaching_ws: Path, tmp_path: Path
) -> None:
    _with_extra_documents(teaching_ws, tmp_path)
    with open_workspace(teaching_ws) as ws:
        every = search_for_query(ws, "teach", "matcha whisk")
        assert [hit.doc_id for hit in every.hits] == ["matcha"]
        assert not every.any_word and not every.hits[0].pooled
        # no passage holds the whole query: any of its words, best first
        some = search_for_query(ws, "teach", "how do I brew a good cup of green tea")
        assert some.any_word
        found = {hit.doc_id: hit.pooled for hit in some.hits}
        assert found["matcha"] is False and found["A"] is True


async def test_a_found_document_joins_the_pool_and_is_graded(
    teaching_ws: Path, tmp_path: Path
) -> None:
    _with_extra_documents(teaching_ws, tmp_path)
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchDialog), "the search")
        dialog = app.screen
        assert isinstance(dialog, SearchDialog)
        # it starts with the query's words
        assert "green tea" in dialog.query_one("#search-words", Input).value
        assert "matcha" in [hit.doc_id for hit in dialog.hits]
        dialog.query_one("#search-words", Input).value = ""
        await pilot.press(*"whisk", "enter")
        await wait_until(pilot, lambda: dialog.searched == "whisk", "the search for whisk")
        assert [hit.doc_id for hit in dialog.hits] == ["matcha"]
        # markup in a document is shown as typed
        assert "[i]green tea[/i]" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, SearchDialog), "the choice")
        await wait_until(
            pilot, lambda: "added to the pool: matcha" in screen_text(app), "matcha shown"
        )
        await pilot.press("2")
        await wait_until(pilot, lambda: "saved 2" in screen_text(app), "the grade")
    with open_workspace(teaching_ws) as ws:
        finds = pool_finds(ws)
        assert [(f.query_id, f.doc_id, f.source, f.words, f.annotator) for f in finds] == [
            ("teach", "matcha", "search", "whisk", "alice")
        ]
        members = ws.conn.execute(
            "SELECT COUNT(*) FROM pool_members WHERE query_id = 'teach' AND doc_id = 'matcha'"
        ).fetchone()[0]
        assert members == 1
        grade = ws.conn.execute(
            "SELECT grade FROM current_judgments WHERE doc_id = 'matcha' AND annotator = 'alice'"
        ).fetchone()[0]
        assert grade == 2
