"""The agreement screen (K) compares the people who graded: imported qrels (as
the demo imports them, under a name of their own) and a model's labels are no
annotators, nor is an adjudicator's settling grade, and the screen says what
it left out. Driven by the Pilot on a real workspace file."""

from __future__ import annotations

from pathlib import Path

from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import create_app
from judgepool.tui.screens.agreement import AgreementScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.test_adjudication_screen import _team


async def test_the_agreement_screen_compares_people_and_says_what_it_left_out(
    teaching_ws: Path, tmp_path: Path
) -> None:
    items = _team(teaching_ws)  # alice and bob grade three items; carol settles one
    (tmp_path / "teaching.qrels").write_text("".join(f"{q} 0 {d} 3\n" for q, d in items))
    (tmp_path / "gpt.qrels").write_text("".join(f"{q} 0 {d} 1\n" for q, d in items[:2]))
    with open_workspace(teaching_ws) as ws:
        import_qrels(ws, tmp_path / "teaching.qrels", annotator="qrels:teaching")
        import_qrels(ws, tmp_path / "gpt.qrels", source="model:gpt")
    app = create_app(teaching_ws, "lena")
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press("K")
        await wait_until(pilot, lambda: isinstance(app.screen, AgreementScreen), "agreement")
        screen = app.screen
        assert isinstance(screen, AgreementScreen) and screen.report is not None
        assert [(p.a, p.b) for p in screen.report.overall.pairs] == [("alice", "bob")]
        text = screen_text(app)
        assert "2 annotators: alice, bob" in text
        assert (
            f"left out: qrels:teaching (imported judgments, {len(items)} items), model:gpt "
            "(a model's labels, 2 items), 1 adjudication (not annotations)"
        ) in text
        assert "--annotators" not in text  # the command line's option, not the app's
        assert "qrels:teaching –" not in text and "– model:gpt" not in text and "carol" not in text


async def test_a_model_is_set_against_the_imports_where_no_person_graded(
    two_queries_ws: Path, tmp_path: Path
) -> None:
    items = _team(two_queries_ws, carol_settles_one=False)  # people grade the first three
    assert len(items) == 6
    importer = "qrels:[b]nist[/b]"  # a name of their own, shown as it is
    (tmp_path / "nist.qrels").write_text("".join(f"{q} 0 {d} 3\n" for q, d in items))
    (tmp_path / "gpt.qrels").write_text("".join(f"{q} 0 {d} 1\n" for q, d in items))
    with open_workspace(two_queries_ws) as ws:
        import_qrels(ws, tmp_path / "nist.qrels", annotator=importer)
        import_qrels(ws, tmp_path / "gpt.qrels", source="model:gpt")
    app = create_app(two_queries_ws, "lena")
    async with app.run_test(size=(200, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("K")
        await wait_until(pilot, lambda: isinstance(app.screen, AgreementScreen), "agreement")
        # alice and bob on the first three (two pairs each), the imports on the rest
        line = (
            f"model:gpt vs people on 3 items and imports ({importer}) on 3 items where no "
            "person graded (9 pairs)"
        )
        await wait_until(pilot, lambda: line in screen_text(app), "the model's line")
        text = screen_text(app)
        # the reference's 3s: bob's one and the imports' three, all graded 1 by the model
        assert "Models vs people (imports where no person graded)" in text
        assert "reference 3 → model  0: 0 (0.00)  1: 4 (1.00)  2: 0 (0.00)" in text
        assert "people 3 →" not in text
