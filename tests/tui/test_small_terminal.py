"""Every screen at 80 × 24: the footer shows help and quit (and the review
screens' every key), the audit's per-query table and the scores' run table
keep their key columns, the box plot does not take the per-query table's
room; the audit and scores keep every pair's verdict line (scrolling when
there are more than fit) and the highlighted pair in words, at 80 × 24, 80 ×
30, 100 × 24 and 120 × 36; the pairs dialog keeps every column whole and the
contract dialog its buttons. Pilot tests here; the pictures are in
test_snapshots_80x24.py and test_snapshots_120x36.py."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from judgepool.core.comparing.verdict_words import sentence_of
from judgepool.core.comparing.verdicts import PairStats
from judgepool.services.imports import import_run
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.dialogs.verdicts import VerdictsScreen
from judgepool.tui.screens.help import HelpScreen, KeyList
from judgepool.tui.widgets.audit_findings import AuditQueryTable
from judgepool.tui.widgets.ndcg_plot import NdcgBoxPlot
from judgepool.tui.widgets.pair_verdicts import PairVerdicts, PairWords
from judgepool.tui.widgets.score_contract import EDITABLE, ContractDialog
from judgepool.tui.widgets.score_table import PerQueryTable
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until
from tests.tui.review_support import build_review_workspace, review_app, settle
from tests.tui.story_support import build_story_workspace
from tests.tui.test_adjudication_screen import _team

SMALL = (80, 24)


def _footer(app: JudgepoolApp) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("key", ["g", "a", "s"])
async def test_the_footer_shows_help_and_quit(tmp_path: Path, key: str) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press(key)
        await settle(pilot)
        footer = _footer(app)
        assert "? help" in footer and "q quit" in footer, footer


@pytest.mark.parametrize("key", ["D", "K"])
async def test_the_team_screens_footer_shows_help_and_quit(teaching_ws: Path, key: str) -> None:
    _team(teaching_ws)
    # agreement is the lead's; adjudication (and search) carol's, the adjudicator
    app = create_app(teaching_ws, "lena" if key == "K" else "carol")
    async with app.run_test(size=SMALL) as pilot:
        await wait_ready(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: app.screen.id != "grade", "the screen")
        await pilot.pause()
        footer = _footer(app)
        assert "? help" in footer and "q quit" in footer, footer


async def test_the_audit_table_keeps_its_rows_and_key_columns(tmp_path: Path) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("a")
        await settle(pilot)
        table = app.screen.query_one(AuditQueryTable)
        # every query of the run fits: 5 rows and the header
        assert table.region.height >= 6, table.region
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if "query" in line and "status" in line)
        for column in ("query", "status", "judged@10", "unjudged@10"):
            assert column in header, header
        assert any("q5" in line and "no qrels" in line for line in lines)


async def test_the_scores_run_table_keeps_its_key_columns_and_the_box_plot_gives_way(
    tmp_path: Path,
) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("s")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if line.lstrip().startswith("run "))
        for column in ("run", "nDCG@10 (mean)", "judged@10", "scored"):
            assert column in header, header
        assert any(line.lstrip().startswith("beta") and "0.7500" in line for line in lines)
        plot = app.screen.query_one(NdcgBoxPlot)
        assert not plot.display
        table = app.screen.query_one(PerQueryTable)
        assert table.region.width == 80
    # at 120 columns the box plot is beside the table, never over it
    (tmp_path / "wide").mkdir()
    app = review_app(build_review_workspace(tmp_path / "wide"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await settle(pilot)
        plot = app.screen.query_one(NdcgBoxPlot)
        table = app.screen.query_one(PerQueryTable)
        assert plot.display
        assert not table.region.overlaps(plot.region)


# -- the pairs: a line each, and the highlighted one in words ----------------------

SIZES = [(80, 24), (80, 30), (100, 24), (120, 36)]
# a third run, fully judged: three pairs, one of them without holes
GAMMA = """\
q1 Q0 C 1 3.0 gamma
q1 Q0 B 2 2.0 gamma
q1 Q0 A 3 1.0 gamma
q2 Q0 E 1 2.0 gamma
q2 Q0 G 2 1.0 gamma
q3 Q0 H 1 1.0 gamma
q4 Q0 J 1 1.0 gamma
"""


def three_runs(directory: Path) -> Path:
    """The review workspace with a third run (gamma): three pairs."""
    path = build_review_workspace(directory)
    (directory / "gamma.trec").write_text(GAMMA)
    with open_workspace(path) as ws:
        import_run(ws, directory / "gamma.trec", name="gamma")
    return path


async def shown_verdicts(pilot: Pilot[Any], key: str) -> PairVerdicts:
    """The screen ``key`` opens, once its pairs are compared and shown."""
    await pilot.press(key)
    await settle(pilot)
    table = pilot.app.screen.query_one(PairVerdicts)
    await wait_until(pilot, lambda: table.compared is not None, "the pairs compared")
    await settle(pilot)
    return table


def verdict_line(pair: PairStats) -> re.Pattern[str]:
    """A pair's line: the two runs, the difference, the verdict, the holes."""
    return re.compile(
        rf"{pair.a}\s+{pair.b}\s+[+-]\d\.\d{{4}}\s+(?:\[.*\]\s+)?{pair.verdict}\s+{pair.holes}\b"
    )


def words_shown(app: JudgepoolApp) -> str:
    """What the pair-in-words line shows, read off the screen in its region."""
    region = app.screen.query_one(PairWords).region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return " ".join(" ".join(line[region.x : region.right] for line in lines).split())


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("key", ["a", "s"], ids=["audit", "scores"])
async def test_every_pair_keeps_its_verdict_line_and_the_first_is_in_words(
    tmp_path: Path, key: str, size: tuple[int, int]
) -> None:
    app = review_app(three_runs(tmp_path))
    async with app.run_test(size=size) as pilot:
        table = await shown_verdicts(pilot, key)
        assert table.compared is not None
        pairs = table.compared.report.pairs
        assert len(pairs) == 3
        lines = screen_text(app).splitlines()
        for pair in pairs:
            assert any(verdict_line(pair).search(line) for line in lines), (pair, lines)
        assert words_shown(app) == sentence_of(pairs[0]).short


async def test_many_pairs_scroll_a_line_each_and_each_is_said_in_words(tmp_path: Path) -> None:
    app = review_app(build_story_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await wait_ready(pilot)
        for key in ("a", "s"):
            table = await shown_verdicts(pilot, key)
            assert table.compared is not None
            pairs = table.compared.report.pairs
            assert len(pairs) == 6  # more than the lines the pairs have at 80 x 24
            table.focus()
            for index, pair in enumerate(pairs):
                if index:
                    await pilot.press("down")
                    await pilot.pause()
                lines = screen_text(app).splitlines()
                assert any(verdict_line(pair).search(line) for line in lines), (key, pair)
                assert words_shown(app) == sentence_of(pair).short, key


@pytest.mark.parametrize("size", [(80, 24), (100, 24)], ids=["80x24", "100x24"])
@pytest.mark.parametrize(
    ("key", "keys"),
    [
        ("a", ("p pairs", "j judge", "h next hole", "H all holes", "c contract", "f5 re-audit")),
        (
            "s",
            ("p pairs", "o sort", "r reverse", "d drill", "v compare", "c contract", "f5 rescore"),
        ),
    ],
    ids=["audit", "scores"],
)
async def test_the_review_footers_show_every_key_of_the_screen(
    tmp_path: Path, key: str, keys: tuple[str, ...], size: tuple[int, int]
) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=size) as pilot:
        await pilot.press(key)
        await settle(pilot)
        footer = _footer(app)
        for shown in ("? help", "q quit", *keys):
            assert shown in footer, (shown, footer)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
async def test_the_pairs_dialog_shows_every_column_whole(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = review_app(build_story_workspace(tmp_path))
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        table = await shown_verdicts(pilot, "a")
        assert table.compared is not None
        pairs = table.compared.report.pairs
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, VerdictsScreen), "the pairs")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        headers = [
            r"run A\s+A − B\s+bounds\s+verdict\s+P\(A>B\)\s+p t\b",
            r"run B\s+W/T/L\s+bootstrap 95 %\s+holes\s+effect\s+p rand\b",
        ]
        for header in headers:
            assert any(re.search(header, line) for line in lines), (header, lines)
        # each pair's two lines, the holes whole: scrolled to in the table when many
        for index, pair in enumerate(pairs):
            if index:
                await pilot.press("down")
                await pilot.pause()
                lines = screen_text(app).splitlines()
            p, number = r"\d\.\d{4}", r"[+-]\d\.\d{4}"
            share = r"\d\.\d{3}"
            over = rf"{pair.a}\s+{number}\s+\[.*\]\s+{pair.verdict}\s+{share}\s+{p}\b"
            under = rf"{pair.b}\s+\d+/\d+/\d+\s+\[.*\]\s+{pair.holes}\s+-?\d\.\d\d\s+{p}\b"
            assert any(
                re.search(over, top) and re.search(under, bottom)
                for top, bottom in itertools.pairwise(lines)
            ), (pair, lines)
            assert sentence_of(pair).short[:40] in " ".join(" ".join(lines).split())
        # the legend: under the pairs when there is room, on ? in any case
        legend = app.screen.query_one("#verdicts-legend")
        assert (legend.region.height > 0) == (size[1] >= 32), legend.region
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        assert "The columns of the pairs" in app.screen.query_one(KeyList).render().plain


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
async def test_the_contract_dialog_keeps_its_buttons_in_view(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = review_app(build_review_workspace(tmp_path))
    async with app.run_test(size=size) as pilot:
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ContractDialog), "the contract")
        await pilot.pause()
        text = screen_text(app)
        for button in ("Apply", "Save as default", "Cancel"):
            assert button in text, button
        # the last field is reached by scrolling the fields, the buttons stay
        await pilot.press(*["tab"] * (len(EDITABLE) - 1))
        await pilot.pause()
        entity = app.screen.query_one("#contract-entity")
        assert entity.has_focus
        assert app.screen.region.contains_region(entity.region)
        assert "Save as default" in screen_text(app)
