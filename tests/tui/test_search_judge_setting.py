"""Search and judge (f) as the lead has it, replayed on TREC DL 2020 query
1030303 ("who is aziz hashim"), BM25's top 5 pooled, two Hashim passages
found by their words: an already judged document is not put in the
annotator's queue (it was, and joined the pool); the workspace setting says
whether a new result joins the pool at once (``allowed``), waits for a
lead's review (``review``), or whether ``f`` searches at all (``off``).
Real workspace, real app through the Pilot."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from judgepool.services.imports import import_documents, import_queries
from judgepool.services.search_judge import add_found_document
from judgepool.services.settings import set_search_judging
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.dialogs.search import SearchDialog
from tests.cli.conftest import write_qrels
from tests.cli.test_team_cli import run
from tests.dl20_support import HASHIM_QUERY, dl20_workspace, hashim_files
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until

QUERY = HASHIM_QUERY[0]


def hashim_workspace(folder: Path) -> Path:
    path = dl20_workspace(folder / "hashim.sqlite", queries=[QUERY], depth=5)
    queries, docs = hashim_files(folder)
    with open_workspace(path) as ws:
        import_queries(ws, queries)
        import_documents(ws, docs)
    return path


def pooled(path: Path, doc: str) -> bool:
    with open_workspace(path) as ws:
        return bool(
            ws.conn.execute(
                "SELECT COUNT(*) FROM pool_members WHERE query_id = ? AND doc_id = ?", (QUERY, doc)
            ).fetchone()[0]
        )


async def choose(app: JudgepoolApp, pilot: object, words: str, doc: str) -> SearchDialog:
    """``f``, search ``words``, enter on ``doc``; the dialog, once it closed."""
    await pilot.press("f")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, SearchDialog), "the search")  # type: ignore[arg-type]
    dialog = app.screen
    assert isinstance(dialog, SearchDialog)
    dialog.query_one("#search-words", Input).value = words
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: dialog.searched == words, "the search")  # type: ignore[arg-type]
    row = [hit.doc_id for hit in dialog.hits].index(doc)
    for _ in range(row):
        await pilot.press("down")  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: not isinstance(app.screen, SearchDialog), "the choice")  # type: ignore[arg-type]
    return dialog


async def test_an_already_judged_result_is_not_put_in_my_queue(tmp_path: Path) -> None:
    path = hashim_workspace(tmp_path)
    # NIST judged 1305520 (0): imported, it is judged though not pooled
    qrels = write_qrels(tmp_path / "nist.qrels", {QUERY: {"1305520": 0}})
    assert run("import", path, "qrels", qrels).exit_code == 0
    app = create_app(path, "alice")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await wait_ready(pilot)
        shown = screen.session.current
        dialog = await choose(app, pilot, "breaker of bread", "1305520")
        await pilot.pause()
        assert screen.session.current == shown  # the same document: nothing added
        assert not pooled(path, "1305520")
        await wait_until(pilot, lambda: "already judged" in screen_text(app), "the refusal")
        judged = {hit.doc_id: getattr(hit, "judged", None) for hit in dialog.hits}
        assert judged == {"1305520": True, "6271629": False}  # the dialog said so


async def test_under_the_lead_s_review_a_new_result_waits_for_the_lead(tmp_path: Path) -> None:
    path = hashim_workspace(tmp_path)
    with open_workspace(path) as ws:
        set_search_judging(ws, "review")
    app = create_app(path, "alice")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await wait_ready(pilot)
        shown = screen.session.current
        await choose(app, pilot, "breaker of bread", "6271629")
        await wait_until(pilot, lambda: "proposed to a lead" in screen_text(app), "proposed")
        assert screen.session.current == shown
    assert not pooled(path, "6271629")
    listed = run("finds", path)
    assert listed.exit_code == 0, listed.output
    assert f"{QUERY}\t6271629\tproposed\talice\tbreaker of bread" in listed.stdout
    accepted = run("finds", path, "accept", QUERY, "6271629", "--lead", "lena")
    assert accepted.exit_code == 0, accepted.output
    assert "accepted 1 proposed document: it joins the pool" in accepted.stdout
    assert pooled(path, "6271629")
    assert (
        f"{QUERY}\t6271629\taccepted by lena\talice\tbreaker of bread" in run("finds", path).stdout
    )


async def test_with_search_and_judge_off_f_says_so(tmp_path: Path) -> None:
    path = hashim_workspace(tmp_path)
    done = run("settings", path, "--search-judge", "off")
    assert done.exit_code == 0, done.output
    assert "search and judge: off" in done.stdout
    app = create_app(path, "alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press("f")
        await wait_until(pilot, lambda: "search and judge is off" in screen_text(app), "off")
        assert not isinstance(app.screen, SearchDialog)


def test_the_lead_rejects_every_open_proposal_and_decides_each_once(tmp_path: Path) -> None:
    path = hashim_workspace(tmp_path)
    with open_workspace(path) as ws:
        set_search_judging(ws, "review")
        for doc, who in (("6271629", "alice"), ("1305520", "bob")):
            assert add_found_document(ws, QUERY, doc, words="bread", annotator=who) == "proposed"
    rejected = run("finds", path, "reject", "--lead", "lena")
    assert rejected.exit_code == 0, rejected.output
    assert rejected.stdout.splitlines()[0] == "rejected 2 proposed documents"
    assert not pooled(path, "6271629") and not pooled(path, "1305520")
    again = run("finds", path, "accept", QUERY, "6271629")
    assert again.exit_code == 2 and "no open proposal of query '1030303' doc '6271629'" in (
        again.output
    )
    assert run("settings", path, "--search-judge", "maybe").exit_code == 2  # click's choice
