"""Documents of more than 10 MB on the grade screen, driven with the Pilot on a
real workspace file: the screen shows a bounded first part and the size at
once, pages through the rest with space / b / home / end, grades the document
and moves on as fast as ever, and memory does not grow with the document.

The time bounds are generous correctness bounds ("never blocks"), not
benchmarks: before parts, a 10.8 MB document took 91 s or more to show and
the app's process grew to about 1 GB (tests/benchmarks/bench_big_document.py).
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from textual.pilot import Pilot

from judgepool.display import literal, literal_lines
from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.pools import pool
from judgepool.services.text_parts import PART_CHARACTERS, PREVIEW_CHARACTERS
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.store import ledger
from judgepool.tui.app import JudgepoolApp, create_app
from judgepool.tui.grading import read_session
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.widgets.grading_panels import DocumentView
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text
from tests.tui.test_grade_screen import shown

QUERY = "teach"
# "Never blocks", in CPU seconds of this process (all its threads): the wall
# clock of a machine shared with other work is not the app's (at load 9 on the
# 2 cores a showing that takes 0.7 s alone took over 5). Quiet, the app starts
# and shows the document in 0.7 s; before parts it took 91 s or more.
SECONDS = 5.0
WORDS = re.findall(r"\w+", "tea water leaf green brew brewing steep hot cup cold boil plant river")


def _words(seed: int, size: int, line_every: float = 0.0) -> str:
    """``size`` characters of words drawn at random, each followed by a space
    or, with chance ``line_every``, a line break. Drawn with numpy, all at once
    (0.2 s for 10 MB; word by word with `random` it took 1.5 s, in every worker
    that ran one of these tests)."""
    rng = np.random.default_rng(seed)
    tokens = [word + " " for word in WORDS] + [word + "\n" for word in WORDS]
    count = size // 4 + 1  # a word and its separator take 4 characters or more
    picks = rng.integers(len(WORDS), size=count) + len(WORDS) * (rng.random(count) < line_every)
    return "".join(map(tokens.__getitem__, picks.tolist()))[:size]


def _multibyte(size_bytes: int) -> str:
    # 2-, 3- and 4-byte characters and a combining accent, with spaces between words.
    unit = "été 漢字 𝄞𝄢 e\u0301 naïve 😀👍 "
    return unit * (size_bytes // len(unit.encode()) + 1)


@functools.cache
def documents() -> dict[str, str]:
    """The pool's documents: made on first use (about 0.5 s of CPU) by a worker
    that runs one of these tests, not when the module is collected, which
    every worker does whether it runs them or not."""
    big_passage = _words(1, 10_800_000)  # one line
    return {
        "big-passage": big_passage,
        "mid-passage": big_passage[:1_080_000],  # the same words, a tenth as many
        "big-lines": _words(2, 10_200_000, line_every=0.2),  # about 380,000 lines
        "big-multibyte": _multibyte(10_500_000),
        "small-1": "green tea, brewed",
        "small-2": "black tea",
    }


TITLES = {"big-lines": "brew " * 100_000}
HUGE_QUERY_TEXT = "brew green tea " * 700_000  # 10.5 MB
HUGE_NARRATIVE = "relevant: " * 100_000


@pytest.fixture(scope="session")
def big_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace whose pool holds three documents of more than 10 MB and two
    small ones for ``teach``, and a small one for a query of 10.5 MB. Built
    once per process (the tests grade in copies of it): with ``-n`` a worker
    takes one test at a time, and a module-scoped fixture was built again
    each time the worker came back to this module from another (five builds
    of 7 to 44 s under load in one run of the suite)."""
    folder = tmp_path_factory.mktemp("big")
    docs = folder / "docs.jsonl"
    with docs.open("w", encoding="utf-8") as out:
        for doc_id, text in documents().items():
            row = {"id": doc_id, "text": text}
            if doc_id in TITLES:
                row["title"] = TITLES[doc_id]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    queries = folder / "queries.tsv"
    queries.write_text(
        f"{QUERY}\thow do I brew a good cup of green tea\n"
        f"huge\t{HUGE_QUERY_TEXT}\t{HUGE_NARRATIVE}\n",
        encoding="utf-8",
    )
    run = folder / "run.trec"
    run.write_text(
        "".join(
            f"{QUERY} Q0 {doc} {rank} {9 - rank} r\n" for rank, doc in enumerate(documents(), 1)
        )
        + "huge Q0 small-1 1 1 r\n"
    )
    path = folder / "base.sqlite"
    with init_workspace(path, scale="0..3") as ws:
        import_queries(ws, queries)
        import_documents(ws, docs)
        import_run(ws, run, name="r")
        pool(ws, depth=10)
    return path


@pytest.fixture
def big_ws(big_base: Path, tmp_path: Path) -> Path:
    """A fresh copy of the big workspace (tests grade in it)."""
    path = tmp_path / "big.sqlite"
    shutil.copyfile(big_base, path)
    return path


def app_on(path: Path, doc_id: str, query_id: str = QUERY) -> JudgepoolApp:
    """The app, positioned on ``doc_id``."""
    ws = open_workspace(path)
    session = read_session(ws, "alice")
    assert session.goto(query_id, doc_id) == (query_id, doc_id)
    return create_app(path, "alice", session, ws)


def document_view(screen: GradeScreen) -> DocumentView:
    return screen.query_one("#grade-document", DocumentView)


def part_shown(screen: GradeScreen) -> tuple[int, int, str]:
    """(start, end, text) of the part of the document on screen."""
    document = document_view(screen).shown
    assert document is not None
    part = document.text
    return part.start, part.end, part.text


def head(screen: GradeScreen) -> str:
    return shown(screen, "#document-head")


async def press_until_moved(pilot: Pilot[None], screen: GradeScreen, key: str) -> None:
    """Press ``key`` (space or b) until another part is shown: it scrolls first."""
    before = part_shown(screen)[0]
    for _ in range(300):
        await pilot.press(key)
        if part_shown(screen)[0] != before:
            return
    raise AssertionError(f"{key} never showed another part")


async def test_a_huge_document_shows_its_first_part_and_size_at_once(big_ws: Path) -> None:
    text = documents()["big-passage"]
    started = time.process_time()
    app = app_on(big_ws, "big-passage")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        on_screen = screen_text(app)
        seconds = time.process_time() - started
        start, end, part = part_shown(screen)
        assert seconds < SECONDS, f"{seconds:.2f} s to show a 10.8 MB document"
        assert start == 0 and PART_CHARACTERS * 0.9 <= end <= PART_CHARACTERS
        assert part == text[:end]
        assert f"showing the first {end:,} of 10,800,000 characters" in head(screen)
        assert f"showing the first {end:,} of 10,800,000 characters" in on_screen
        body = shown(screen, "#document-text")
        assert body.startswith(text[:end])
        assert body.endswith(f"… {10_800_000 - end:,} more characters: space at the bottom goes on")
        footer = on_screen.rstrip("\n").splitlines()[-1]
        assert "space b page" in footer


async def test_paging_shows_the_next_parts_and_the_end(big_ws: Path) -> None:
    text = documents()["big-passage"]
    app = app_on(big_ws, "big-passage")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        _, first_end, _ = part_shown(screen)
        await press_until_moved(pilot, screen, "space")
        start, end, part = part_shown(screen)
        assert start == first_end and part == text[start:end]
        assert f"showing characters {start + 1:,}–{end:,} of 10,800,000" in head(screen)
        assert shown(screen, "#document-text").startswith(
            f"… {start:,} characters before this part: b at the top goes back"
        )
        started = time.process_time()
        await pilot.press("end")
        assert time.process_time() - started < SECONDS
        start, end, part = part_shown(screen)
        assert end == len(text) and part == text[start:]
        assert len(part) <= PART_CHARACTERS
        assert f"showing the last {len(part):,} of 10,800,000 characters" in head(screen)
        assert shown(screen, "#document-text").endswith(literal(text[-100:]))
        # Past the end: space scrolls to the bottom, then says so.
        for _ in range(300):
            await pilot.press("space")
            if "the end of the document" in shown(screen, "#grade-status"):
                break
        assert part_shown(screen)[0] == start
        assert "the end of the document" in shown(screen, "#grade-status")
        last_start = start
        # Back: b shows the part before, from its bottom, continuing exactly.
        await press_until_moved(pilot, screen, "b")
        start, end, part = part_shown(screen)
        assert end == last_start and part == text[start:end]
        assert document_view(screen).scroll_y > 0
        await pilot.press("home")
        assert part_shown(screen)[:2] == (0, first_end)
        assert [e for e in ledger_events(big_ws)] == []  # reading writes nothing


def ledger_events(path: Path) -> list[ledger.JudgmentEvent]:
    with open_workspace(path) as ws:
        return ledger.list_events(ws)


async def test_grading_a_huge_document_and_the_next_stays_fast(big_ws: Path) -> None:
    app = app_on(big_ws, "big-passage")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        await pilot.press("space", "space")  # reading it for a while
        started = time.process_time()
        await pilot.press("2")
        screen_text(app)
        seconds = time.process_time() - started
        assert seconds < SECONDS, f"{seconds:.2f} s from the grade to the next document"
        current = screen.session.current
        assert current is not None and current[1] != "big-passage"
        assert head(screen).startswith(current[1])
        await pilot.press("1")
        saved = [(e.doc_id, e.grade) for e in ledger_events(big_ws)]
        assert saved == [("big-passage", 2), (current[1], 1)]
        # Back to the huge one: its first part, with the grade given.
        await pilot.press("k")
        started = time.process_time()
        await pilot.press("k")
        screen_text(app)
        seconds = time.process_time() - started
        assert seconds < SECONDS, f"{seconds:.2f} s from the key to the 10.8 MB document"
        assert screen.session.current == (QUERY, "big-passage")
        assert "your grade 2" in head(screen)
        assert part_shown(screen)[0] == 0


async def _peak_memory(path: Path, doc_id: str) -> int:
    """Python's peak allocation (tracemalloc, started once the app runs) while
    going to ``doc_id`` from the document before or after it, then to its last
    part, the screen before that, and its first part."""
    ws = open_workspace(path)
    session = read_session(ws, "alice")
    doc_ids = next(query.doc_ids for query in session.queries if query.id == QUERY)
    at = doc_ids.index(doc_id)
    neighbour, key = (doc_ids[at - 1], "j") if at else (doc_ids[at + 1], "k")
    session.goto(QUERY, neighbour)
    app = create_app(path, "alice", session, ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        screen_text(app)
        tracemalloc.start()
        try:
            await pilot.press(key)
            assert screen.session.current == (QUERY, doc_id)
            screen_text(app)
            for move in ("end", "b", "home"):
                await pilot.press(move)
                screen_text(app)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


@pytest.mark.slow
async def test_memory_does_not_grow_with_the_document(big_ws: Path) -> None:
    """A 10.8 MB document takes as much of Python's memory to show and page
    through as one ten times smaller: it is never read whole, and a part is
    bounded. (tracemalloc sees Python's allocations, not SQLite's. Most of the
    peak is Textual's rendering of a 20,000-character part; reading the
    document whole would add 10.8 MB for the string alone, and before parts
    the app's process grew by about 850 MB.)"""
    tenth = await _peak_memory(big_ws, "mid-passage")
    whole = await _peak_memory(big_ws, "big-passage")
    figures = f"{tenth / 1e6:.1f} MB for 1.08 MB, {whole / 1e6:.1f} MB for 10.8 MB"
    assert whole - tenth < 3_000_000, figures
    assert whole < 25_000_000, figures


async def test_multibyte_text_is_split_between_characters(big_ws: Path) -> None:
    text = documents()["big-multibyte"]
    app = app_on(big_ws, "big-multibyte")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        _, first_end, first = part_shown(screen)
        assert first == text[:first_end]
        assert f"of {len(text):,} characters" in head(screen)
        await press_until_moved(pilot, screen, "space")
        start, end, part = part_shown(screen)
        assert start == first_end and part == text[start:end]
        await pilot.press("end")
        start, end, part = part_shown(screen)
        assert end == len(text) and part == text[start:]
        for shown_part in (first, part):
            assert "\ufffd" not in shown_part


async def test_a_huge_document_of_many_lines_and_a_huge_title(big_ws: Path) -> None:
    text = documents()["big-lines"]
    app = app_on(big_ws, "big-lines")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        _, end, part = part_shown(screen)
        assert part == text[:end] and end <= PART_CHARACTERS
        assert f"showing the first {end:,} of {len(text):,} characters" in head(screen)
        # Line breaks show as line breaks (judgepool.display.literal_lines)
        assert shown(screen, "#document-text").startswith(literal_lines(text[:end]))
        title = TITLES["big-lines"]
        first_line = head(screen).splitlines()[0]
        assert first_line == (
            f"big-lines  (the first {PREVIEW_CHARACTERS:,} of {len(title):,} characters) "
            f"{title[:PREVIEW_CHARACTERS]} …"
        )
        await press_until_moved(pilot, screen, "space")
        start, end, part = part_shown(screen)
        assert part == text[start:end]


async def test_a_huge_query_text_and_narrative_are_cut(big_ws: Path) -> None:
    started = time.process_time()
    app = app_on(big_ws, "small-1", query_id="huge")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        screen_text(app)
        assert time.process_time() - started < SECONDS
        query = shown(screen, "#grade-query")
    shown_text, shown_narrative = query.removeprefix("huge  ").split("\n")
    for shown_line, whole in ((shown_text, HUGE_QUERY_TEXT), (shown_narrative, HUGE_NARRATIVE)):
        cut = re.fullmatch(r"\(the first ([\d,]+) of ([\d,]+) characters\) (.*) …", shown_line)
        assert cut is not None, shown_line[:80]
        shown_count, whole_count, prefix = cut.groups()
        assert whole.startswith(prefix)
        assert PREVIEW_CHARACTERS * 0.9 <= len(prefix) <= PREVIEW_CHARACTERS
        assert (shown_count, whole_count) == (f"{len(prefix):,}", f"{len(whole):,}")


async def test_page_keys_are_in_the_footer_only_when_there_is_more_to_read(
    tmp_path: Path,
) -> None:
    """A document longer than the view (one part) scrolls with space and b; the
    footer names the page keys while there is more to read than the view holds."""
    (tmp_path / "queries.tsv").write_text("q\tgreen tea\n")
    (tmp_path / "docs.tsv").write_text(
        "long\t" + "green tea leaves " * 400 + "\nshort\ta short one\n"
    )
    (tmp_path / "run.trec").write_text("q Q0 long 1 2 r\nq Q0 short 2 1 r\n")
    path = tmp_path / "w.sqlite"
    with init_workspace(path) as ws:
        import_queries(ws, tmp_path / "queries.tsv")
        import_documents(ws, tmp_path / "docs.tsv")
        import_run(ws, tmp_path / "run.trec")
        pool(ws, depth=10)

    def footer() -> str:
        return screen_text(app).rstrip("\n").splitlines()[-1]

    app = app_on(path, "long", query_id="q")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot)
        await pilot.pause()
        view = document_view(screen)
        assert "space b page" in footer()
        assert "showing" not in head(screen)  # one part: no part line
        await pilot.press("space")
        assert view.scroll_y > 0
        await pilot.press("b")
        assert view.scroll_y == 0
        await pilot.press("b")
        assert "the start of the document" in shown(screen, "#grade-status")
        await pilot.press("j")
        assert screen.session.current == ("q", "short")
        await pilot.pause()
        assert "page" not in footer() and "q quit" in footer()
        await pilot.press("space", "end")  # nothing to page: nothing happens
        assert screen.session.current == ("q", "short")
        assert ledger_events(path) == []
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = shown(app.screen, "#help-text")  # type: ignore[arg-type]
        assert re.search(r"space / pgdn +Read on: scroll down, then the next part", help_text)
        assert re.search(r"b / pgup +Read back: scroll up, then the previous part", help_text)
        assert re.search(r"home +First part", help_text)
        assert re.search(r"end +Last part", help_text)
