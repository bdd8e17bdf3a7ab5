"""The adjudication screen (D) and the agreement screen (K), driven by the Pilot
on real workspace files."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Input, Static

from judgepool.services import judging
from judgepool.services.adjudication import adjudicate
from judgepool.services.consensus import workspace_judgments
from judgepool.services.imports import import_documents, import_queries
from judgepool.services.text_parts import PART_CHARACTERS
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.dialogs.note import NoteDialog
from judgepool.tui.screens.adjudicate import AdjudicateScreen
from judgepool.tui.screens.agreement import AgreementScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.test_readable_text import MOJIBAKE


def _team(path: Path, *, carol_settles_one: bool = True) -> list[tuple[str, str]]:
    """alice and bob disagree on two items (gaps 1 and 3) and agree on one;
    carol is the adjudicator, lena the lead. Returns the pooled items, in order."""
    with open_workspace(path) as ws:
        items = [
            (q, d)
            for q, d in ws.conn.execute(
                "SELECT query_id, doc_id FROM pool_members ORDER BY query_id, doc_id"
            )
        ]
        (q1, d1), (q2, d2), (q3, d3) = items[:3]
        for who, grades in (("alice", (0, 1, 2)), ("bob", (3, 2, 2))):
            for (q, d), grade in zip(((q1, d1), (q2, d2), (q3, d3)), grades, strict=True):
                judging.judge(ws, q, d, grade, annotator=who, note=f"{who}'s [b]note[/b]")
        # carol has no grade yet, so the command line would not know her: the store's role
        with ws.write() as conn:
            ledger.set_role(conn, "carol", "adjudicator")
            ledger.set_role(conn, "lena", "lead")  # the lead, who sees agreement
        if carol_settles_one:
            adjudicate(ws, q1, d1, 1, adjudicator="carol")
    return items


async def test_an_adjudicator_settles_disagreements_with_a_digit(teaching_ws: Path) -> None:
    items = _team(teaching_ws)
    app = create_app(teaching_ws, "carol")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        # carol graded the first item already: it is resolved, so one is unresolved
        listed = [(f.item.query_id, f.item.doc_id) for f in screen.listed]
        assert listed == [items[1]]
        text = screen_text(app)
        assert "1 unresolved of 2" in text
        # every grade with its annotator and note, markup shown literally
        assert "alice 1" in text and "bob 2" in text
        assert "alice's [b]note[/b]" in text
        await pilot.press("r")  # the resolved one too, after
        assert [(f.item.query_id, f.item.doc_id) for f in screen.listed] == [items[1], items[0]]
        assert "settled 1" in screen_text(app)
        await pilot.press("r")
        await pilot.press("2")
        await pilot.pause()
        assert screen.listed == ()
        assert "0 unresolved of 2" in screen_text(app)
    with open_workspace(teaching_ws) as ws:
        judged, _ = workspace_judgments(ws, "adjudicated")
        query_id, doc_id = items[1]
        assert judged[query_id][doc_id] == 2
        assert judged[items[0][0]][items[0][1]] == 1


async def test_the_queue_follows_grades_from_another_terminal(teaching_ws: Path) -> None:
    items = _team(teaching_ws)
    app = create_app(teaching_ws, "carol")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        assert "1 unresolved of 2" in screen_text(app)
        # bob, in another process, now grades the third item away from alice's 2
        with open_workspace(teaching_ws) as ws:
            judging.judge(ws, *items[2], 0, annotator="bob")
        await wait_until(
            pilot, lambda: "2 unresolved of 3" in screen_text(app), "the new disagreement"
        )
        assert (items[2][0], items[2][1]) in [
            (f.item.query_id, f.item.doc_id) for f in screen.listed
        ]


async def test_others_are_told_why_they_cannot_adjudicate(teaching_ws: Path) -> None:
    _team(teaching_ws)
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")  # an annotator's D is no key at all
        await pilot.pause()
        assert not isinstance(app.screen, AdjudicateScreen)
        assert not app._notifications
        app.action_adjudicate()  # as a command would, if one reached it
        await pilot.pause()
        assert not isinstance(app.screen, AdjudicateScreen)
        # toasts are not in the exported screenshot: read the app's notifications
        told = [note.message for note in app._notifications]
        assert len(told) == 1
        assert "'alice' is not an adjudicator" in told[0]
        assert "annotators WORKSPACE role NAME adjudicator" in told[0]


async def test_the_minimum_gap_narrows_the_queue(teaching_ws: Path) -> None:
    items = _team(teaching_ws, carol_settles_one=False)
    app = create_app(teaching_ws, "carol")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        assert [(f.item.query_id, f.item.doc_id) for f in screen.listed] == items[:2]
        await pilot.press("plus", "plus")  # gap 3: only alice 0 / bob 3
        assert screen.min_gap == 3
        assert [(f.item.query_id, f.item.doc_id) for f in screen.listed] == [items[0]]
        assert "gap ≥ 3" in screen_text(app)
        await pilot.press("minus", "minus", "minus")
        assert screen.min_gap == 1
        assert len(screen.listed) == 2


async def test_the_agreement_screen_shows_pairs_and_all(teaching_ws: Path) -> None:
    _team(teaching_ws)
    app = create_app(teaching_ws, "lena")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await pilot.press("K")
        await wait_until(pilot, lambda: isinstance(app.screen, AgreementScreen), "agreement")
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        assert screen.report is not None
        text = screen_text(app)
        assert "alice – bob" in text
        assert "Fleiss' κ" in text and "Krippendorff's α ordinal" in text
        pair = screen.report.overall.pairs[0]
        assert (pair.a, pair.b, pair.items) == ("alice", "bob", 3)
        # alice and bob agree on one item of three
        assert pair.raw_agreement.value is not None
        assert abs(pair.raw_agreement.value - 1 / 3) < 1e-9
        assert "0.333" in text


async def test_help_lists_the_new_keys_and_the_status_words(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(120, 400)) as pilot:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: "Agreement screen (K)" in screen_text(app), "help")
        text = screen_text(app)
        for line in (
            "Adjudicate screen (D, adjudicators and leads)",
            "Settle the highlighted disagreement with that grade",
            "Add a note to your settling grade",
            "Next disagreement of the queue",
            "Show the text raw, as stored",
            "Find documents by full-text search",
            "The audit's status column",
            "complete",
            "no qrels",
        ):
            assert line in text, line
        # help and quit are listed once, under Everywhere
        assert text.count("List every key") == 1


# -- reading what is settled ---------------------------------------------------------

NARRATIVE = "Relevant: says how to brew it ([i]water, time[/i]); about green tea only: related."
WHEN = "2026-01-02T03:04:05.000000Z"


def _adjudication_app(path: Path, annotator: str = "carol") -> JudgepoolApp:
    return create_app(path, annotator)


async def _open_queue(pilot: Pilot[None]) -> AdjudicateScreen:
    app = pilot.app
    await wait_ready(pilot)
    await pilot.press("D")
    await wait_until(pilot, lambda: isinstance(app.screen, AdjudicateScreen), "adjudication")
    screen = app.screen
    assert isinstance(screen, AdjudicateScreen)
    await pilot.pause()
    return screen


def _rendered(screen: AdjudicateScreen, selector: str) -> Content:
    """What a Static of the screen renders."""
    rendered = screen.query_one(selector, Static).render()
    assert isinstance(rendered, Content)
    return rendered


def _highlighted_words(screen: AdjudicateScreen) -> set[str]:
    body = _rendered(screen, "#document-text")
    return {body.plain[span.start : span.end] for span in body.spans}


async def test_the_adjudicator_reads_the_query_every_grade_and_the_document(
    teaching_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger, "now", lambda: WHEN)
    queries = tmp_path / "queries.tsv"
    queries.write_text(f"teach\thow do I brew a good cup of green tea\t{NARRATIVE}\n")
    with open_workspace(teaching_ws) as ws:
        import_queries(ws, queries)
    items = _team(teaching_ws)
    app = _adjudication_app(teaching_ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_queue(pilot)
        text = screen_text(app)
        # the query's text and its narrative, markup in it as typed
        assert "how do I brew a good cup of green tea" in text
        assert NARRATIVE in _rendered(screen, "#adjudicate-query").plain
        # the document B, its query terms highlighted
        assert items[1] == ("teach", "B")
        assert "Green tea turns bitter when the water is too hot" in text
        assert {"Green", "tea"} <= _highlighted_words(screen)
        # every grade with its annotator, label, time and note
        assert "alice 1 Related  2026-01-02 03:04:05 UTC  note: alice's [b]note[/b]" in text
        assert "bob 2 Highly relevant  2026-01-02 03:04:05 UTC  note: bob's [b]note[/b]" in text
        # the resolved item too (r), then on it (j): carol's adjudication, as hers
        await pilot.press("r", "j")
        await wait_until(pilot, lambda: "Brewing green tea" in screen_text(app), "document A")
        text = screen_text(app)
        assert "alice 0 Irrelevant  2026-01-02 03:04:05 UTC" in text
        assert "bob 3 Perfectly relevant  2026-01-02 03:04:05 UTC" in text
        assert "carol's settling grade 1 Related  2026-01-02 03:04:05 UTC" in text
        await pilot.press("k")  # back up the queue: B again
        await wait_until(pilot, lambda: "Green tea turns bitter" in screen_text(app), "document B")


async def test_a_long_document_is_read_in_parts_with_the_grade_screens_keys(
    teaching_ws: Path, tmp_path: Path
) -> None:
    long_text = " ".join(f"word{n} green tea" for n in range(5_000))  # about 3 parts
    assert len(long_text) > 2 * PART_CHARACTERS
    docs = tmp_path / "long.tsv"
    docs.write_text(f"long\t{long_text}\n")
    with open_workspace(teaching_ws) as ws:
        import_documents(ws, docs)
        judging.judge(ws, "teach", "long", 0, annotator="alice")
        judging.judge(ws, "teach", "long", 3, annotator="bob")
    app = _adjudication_app(teaching_ws)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open_queue(pilot)

        def head() -> str:
            return _rendered(screen, "#document-head").plain

        def body() -> str:
            return _rendered(screen, "#document-text").plain

        assert "showing the first" in head()
        assert f"of {len(long_text):,} characters" in head()
        assert body().startswith("word0 green tea word1")
        assert "space/b read on/back" in head()
        # the paging keys are in the footer, as on the grade screen
        await wait_until(
            pilot, lambda: "space b page" in screen_text(app).splitlines()[-1], "the paging keys"
        )
        # space (and pgdn) scroll to the bottom of the part, then show the next one
        for presses in range(200):
            if "showing characters" in head():
                break
            await pilot.press("space" if presses % 2 else "pagedown")
        assert "showing characters" in head(), head()
        assert body().startswith("… ")  # what came before, said
        # b (and pgup) at its top: the part before, from its end
        await pilot.press("b")
        await wait_until(pilot, lambda: "showing the first" in head(), "the first part again")
        await pilot.press("end")
        await wait_until(pilot, lambda: "showing the last" in head(), "the last part")
        assert body().rstrip().endswith("word4999 green tea")
        await pilot.press("pageup")
        assert "showing the last" in head()  # scrolled up within the part
        # a grade from another terminal re-reads the queue: the part stays
        with open_workspace(teaching_ws) as ws:
            judging.judge(ws, "teach", "long", 2, annotator="bob", note="changed my mind")
        await wait_until(pilot, lambda: "changed my mind" in head(), "bob's new grade")
        assert "bob 2 Highly relevant" in head()
        assert "showing the last" in head()
        await pilot.press("home")
        await wait_until(pilot, lambda: "showing the first" in head(), "the first part")


async def test_markup_escapes_and_mojibake_in_the_item_show_as_typed(
    hostile_ws: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "moji.tsv"
    docs.write_text(f"moji\t{MOJIBAKE}\n", encoding="utf-8")
    with open_workspace(hostile_ws) as ws:
        import_documents(ws, docs)
        for doc, (a, b) in (("hostile-markup", (0, 2)), ("moji", (1, 3))):
            judging.judge(ws, "hostile", doc, a, annotator="alice", note="[b]x[/b] \x1b[31mred")
            judging.judge(ws, "hostile", doc, b, annotator="[i]bob[/i]")
        with ws.write() as conn:
            ledger.set_role(conn, "carol", "adjudicator")
    app = _adjudication_app(hostile_ws)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open_queue(pilot)
        assert [f.item.doc_id for f in screen.listed] == ["hostile-markup", "moji"]
        text = screen_text(app)
        assert "which [bold]document[/bold] shows its \\x1b[1mmarkup\\x1b[0m literally?" in text
        assert "[bold]not bold[/bold], [italic]not italic[/italic]" in text
        assert "alice 0 Irrelevant" in text and "note: [b]x[/b] \\x1b[31mred" in text
        assert "[i]bob[/i] 2 Highly relevant" in text
        assert "\x1b" not in text
        await pilot.press("down")
        await wait_until(pilot, lambda: "café" in screen_text(app), "the repaired document")
        text = screen_text(app)
        assert "The company’s [b]plan[/b] for café \\x1b owners" in text
        # repaired for reading; r here lists the resolved ones, so no key is named
        assert "text repaired for reading" in text and "shows it raw" not in text


def _carols(path: Path) -> list[tuple[int | None, str | None, bool]]:
    with open_workspace(path) as ws:
        return [
            (e.grade, e.note, e.adjudicates)
            for e in ledger.list_events(ws)
            if e.annotator == "carol"
        ]


async def test_the_note_key_notes_the_settling_grade(teaching_ws: Path) -> None:
    items = _team(teaching_ws, carol_settles_one=False)
    app = _adjudication_app(teaching_ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_queue(pilot)
        assert _carols(teaching_ws) == []
        # before she settles: the note waits for the settling grade
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteDialog), "the note dialog")
        await pilot.press(*"both [b]half[/b] right", "enter")
        await wait_until(pilot, lambda: app.screen is screen, "the queue again")
        assert _carols(teaching_ws) == []
        assert "a note waits for your settling grade" in screen_text(app)
        await pilot.press("2")
        assert _carols(teaching_ws) == [(2, "both [b]half[/b] right", True)]
        assert "settled 2 for teach A with a note" in screen_text(app)
        # settled, it left the queue of unresolved ones; r shows it, with her note
        await pilot.press("r")
        assert [(f.item.query_id, f.item.doc_id) for f in screen.listed][-1] == items[0]
        await pilot.press("j")
        await wait_until(
            pilot,
            lambda: "note: both [b]half[/b] right" in _rendered(screen, "#document-head").plain,
            "her note on her settling grade",
        )
        # e on her settled item: her note to change, saved with her settling grade
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteDialog), "the note dialog")
        note_input = app.screen.query_one("#note-input", Input)
        assert note_input.value == "both [b]half[/b] right"
        note_input.value = "bob is right"
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: "note: bob is right" in _rendered(screen, "#document-head").plain,
            "the new note",
        )
        assert "note saved with your settling grade for teach A" in screen_text(app)
        assert _carols(teaching_ws) == [
            (2, "both [b]half[/b] right", True),
            (2, "bob is right", True),
        ]
