"""Readable text (mojibake repaired for display, `r` for the raw text) and
progress that never rounds up, on the real app."""

from __future__ import annotations

from pathlib import Path

from judgepool.core.readable import readable
from judgepool.services.imports import import_documents
from judgepool.services.workspace import open_workspace
from judgepool.tui.app import create_app
from judgepool.tui.widgets.grading_panels import floored_percent
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
