"""The agreement screen (K) at 80 × 24, replayed on TREC DL 2020: three people
grade BM25's top 10 of three queries and a model labels them, so the screen
has pairs, the overall box and the models' box; the two boxes took every
line, and the screen showed its header and neither a pair nor the heat map.
Driven by the Pilot on a real workspace file."""

from __future__ import annotations

from pathlib import Path

from judgepool.services.judging import judge
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import open_workspace
from judgepool.store import ledger
from judgepool.tui.app import create_app
from judgepool.tui.screens.agreement import AgreementScreen
from judgepool.tui.widgets.confusion_plot import ConfusionHeatMap
from tests.cli.conftest import write_qrels
from tests.dl20_support import dl20_grades, dl20_workspace
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until


def team_of_three(path: Path) -> None:
    """alice grades as NIST did, bob one grade lower, carol one higher (within
    the scale), each on every pooled item; gpt's labels are NIST's; lena leads."""
    with open_workspace(path) as ws:
        items = ws.conn.execute(
            "SELECT query_id, doc_id FROM pool_members ORDER BY query_id, doc_id"
        ).fetchall()
        labels: dict[str, dict[str, int]] = {}
        for query_id, doc_id in items:
            nist = dl20_grades(query_id).get(doc_id, 0)
            labels.setdefault(query_id, {})[doc_id] = nist
            for who, grade in (("alice", nist), ("bob", max(nist - 1, 0)),
                               ("carol", min(nist + 1, 3))):  # fmt: skip
                judge(ws, query_id, doc_id, grade, annotator=who)
        import_qrels(ws, write_qrels(path.with_name("gpt.qrels"), labels), source="model:gpt")
        with ws.write() as conn:
            ledger.set_role(conn, "lena", "lead")


async def test_at_80x24_the_agreement_screen_shows_the_pairs_and_the_heat_map(
    tmp_path: Path,
) -> None:
    path = dl20_workspace(tmp_path / "agreement.sqlite", queries=3)
    team_of_three(path)
    app = create_app(path, "lena")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        await pilot.press("K")
        await wait_until(pilot, lambda: isinstance(app.screen, AgreementScreen), "agreement")
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        await wait_until(pilot, lambda: screen.report is not None, "the agreement")
        await pilot.pause()
        text = screen_text(app)
        # every pair's row, the header above them, and the highlighted pair's map
        for pair in ("alice – bob", "alice – carol", "bob – carol"):
            assert pair in text, text
        heat = screen.query_one(ConfusionHeatMap)
        assert heat.region.height >= ConfusionHeatMap.MIN_HEIGHT, heat.region
        assert heat.table is not None and heat.table.items == 30
        # the overall and the models' boxes are still there, their first lines at
        # least, and what the models' box no longer shows scrolls into view
        assert "All annotators" in text and "Models vs people" in text
        assert "3 annotators: alice, bob, carol" in text
        assert "people 3 → model" not in text
        screen.query_one("#agreement-models-box").scroll_end(animate=False)
        await wait_until(pilot, lambda: "people 3 → model" in screen_text(app), "scrolled")
