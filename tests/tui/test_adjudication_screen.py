"""The adjudication screen (D) and the agreement screen (K), driven by the Pilot
on real workspace files."""

from __future__ import annotations

from pathlib import Path

from judgepool.services import judging
from judgepool.services.adjudication import adjudicate
from judgepool.services.consensus import workspace_judgments
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from judgepool.tui.screens.adjudicate import AdjudicateScreen
from judgepool.tui.screens.agreement import AgreementScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until


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
    async with app.run_test(size=(120, 200)) as pilot:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: "Agreement screen (K)" in screen_text(app), "help")
        text = screen_text(app)
        for line in (
            "Adjudicate screen (D, adjudicators only)",
            "Settle the highlighted disagreement with that grade",
            "Show the text raw, as stored",
            "Find documents by full-text search",
            "The audit's status column",
            "complete",
            "no qrels",
        ):
            assert line in text, line
        # help and quit are listed once, under Everywhere
        assert text.count("List every key") == 1
