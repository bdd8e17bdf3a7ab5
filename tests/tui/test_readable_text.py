"""Readable text (mojibake repaired for display, `r` for the raw text; an
Arabic letter whose byte became a space stays a letter) and progress that
never rounds up, on the real app."""

from __future__ import annotations

from pathlib import Path

from judgepool.core.readable import readable
from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.pools import pool
from judgepool.services.workspace import init_workspace, open_workspace
from judgepool.tui.app import create_app
from judgepool.tui.widgets.grading_panels import floored_percent
from tests.dl20_support import dl20_run
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import screen_text, wait_until

MOJIBAKE = "The companyâ\x80\x99s [b]plan[/b] for cafÃ© \\x1b owners"


def test_readable_repairs_the_encoding_only() -> None:
    assert readable(MOJIBAKE) == "The company’s [b]plan[/b] for café \\x1b owners"
    # curly quotes, entities and escapes stay as they are
    kept = "“quoted” &amp; \x1b[31mred"
    assert readable(kept) == kept
    assert readable("plain") == "plain"
    # a C1 control alone is an 8-bit terminal escape, shown as one, not as "›"
    assert readable("8-bit CSI \x9b32mgreen") == "8-bit CSI \x9b32mgreen"
    assert readable("companyâ\x80\x99s and \x9b32m") == "company’s and \x9b32m"


def test_progress_is_floored() -> None:
    assert floored_percent(1455, 1456) == 99
    assert floored_percent(1456, 1456) == 100
    assert floored_percent(2, 3) == 66
    assert floored_percent(0, 0) == 0


async def test_the_grade_screen_shows_text_repaired_and_raw_on_r(
    teaching_ws: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "moji.tsv"
    docs.write_text(f"moji\t{MOJIBAKE}\n", encoding="utf-8")
    with open_workspace(teaching_ws) as ws:
        import_documents(ws, docs)
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.queue_for_grading("teach", "moji")
        await wait_until(
            pilot, lambda: "r shows it raw" in screen_text(app), "the repaired text and its key"
        )
        text = screen_text(app)
        assert "[b]plan[/b] for café" in text
        assert "text repaired for reading: r shows it raw" in text
        await pilot.press("r")
        await wait_until(pilot, lambda: "raw text, as stored" in screen_text(app), "the raw text")
        text = screen_text(app)
        assert "company’s" not in text and "companyâ" in text
        assert "cafÃ©" in text
        assert "raw text, as stored" in text
        await pilot.press("r")
        await wait_until(pilot, lambda: "company’s" in screen_text(app), "the text repaired again")
    with open_workspace(teaching_ws) as ws:
        stored = ws.conn.execute("SELECT text FROM documents WHERE id = 'moji'").fetchone()[0]
    assert stored == MOJIBAKE


async def test_progress_bars_round_down(teaching_ws: Path) -> None:
    app = create_app(teaching_ws, "alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press("1", "2")
        await wait_until(pilot, lambda: "2 of 3 judged" in screen_text(app), "two grades")
        text = screen_text(app)
        assert " 66% 2 of 3 judged" in text
        assert "67%" not in text


def test_a_lone_c1_control_stays_a_control_beside_repaired_mojibake() -> None:
    # ftfy alone reads a lone 8-bit CSI as windows-1252 ('›'); the app must
    # show it as the escape it is, and still repair the mojibake around it
    text = "\x9b32mgreen companyâ\x80\x99s \x85 end"
    assert readable(text) == "\x9b32mgreen company’s \x85 end"


# MS MARCO passages as stored, in DL20 runs for query 1030303 ("who is aziz
# hashim"; 1305520 is BM25's 10th): UTF-8 read as Latin-1, and the 0x85 of
# the letter م (Latin-1's NEL, whitespace) collapsed to a space on the way
HASHIM = (
    "Hashim (Arabic: \xd9\x87\xd8\xa7\xd8\xb4\xd9 \xe2\x80\x8e) is a common male Arabic given "
    "name, which signifies breaker of bread."
)
HASHIMI = (
    "Idries Shah, n\xc3\xa9 Sayed Idries el-Hashimi (Arabic: \xd8\xb3\xd9\x8a\xd8\xaf "
    "\xd8\xa5\xd8\xaf\xd8\xb1\xd9\x8a\xd8\xb3 \xd9\x87\xd8\xa7\xd8\xb4\xd9 \xd9\x8a ) and"
)


def test_a_letter_whose_byte_became_a_space_stays_a_letter() -> None:
    # ftfy took the space for a no-break space: after Ù, the digit ٠
    assert readable(HASHIM).startswith("Hashim (Arabic: هاشم\u200e) is a common male")
    assert "٠" not in readable(HASHIM)
    assert (
        readable(HASHIMI)
        == "Idries Shah, né Sayed Idries el-Hashimi (Arabic: سيد إدريس هاشمي ) and"
    )
    # where the no-break space makes a letter, ftfy's reading stands
    assert readable("voil\xc3\xa0 l\xc3  bas") == "voilà là bas"
    # text that is no mojibake is left as it is, spaces and all
    assert readable("OÙ EST-IL ?") == "OÙ EST-IL ?"


async def test_the_grade_screen_shows_the_arabic_name_as_written(tmp_path: Path) -> None:
    (tmp_path / "queries.tsv").write_text("1030303\twho is aziz hashim\n", encoding="utf-8")
    (tmp_path / "docs.tsv").write_text(f"1305520\t{HASHIM}\n", encoding="utf-8")
    path = tmp_path / "hashim.sqlite"
    with init_workspace(path, scale="0..3") as ws:
        import_queries(ws, tmp_path / "queries.tsv")
        import_documents(ws, tmp_path / "docs.tsv")
        import_run(ws, dl20_run(tmp_path, "bm25", ["1030303"]), name="bm25")
        pool(ws, depth=10)
    app = create_app(path, "alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.queue_for_grading("1030303", "1305520")
        await wait_until(pilot, lambda: "breaker of bread" in screen_text(app), "the passage")
        text = screen_text(app)
        assert "هاشم" in text and "هاش٠" not in text
