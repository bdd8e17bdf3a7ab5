"""Reading the app's terminal and waiting for it, through Textual's public API only.

`screen_text` is what the terminal shows, as plain text: read from the SVG of
`App.export_screenshot` (the screen and any screen under a dialog, as the
user sees them). `wait_until` waits for a condition with a deadline, instead
of a fixed pause that is too short on a loaded machine and too long elsewhere.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from textual.app import App
from textual.pilot import Pilot

# One run of text of the exported SVG: its x position and its terminal line.
_TEXT = re.compile(
    r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+"'
    r' clip-path="url\(#[^"]*-line-(\d+)\)">(.*?)</text>',
    re.DOTALL,
)
# How long `wait_until` lets the app run between checks: from the first to the longest.
_FIRST_PAUSE = 0.02
_LONGEST_PAUSE = 0.2
# The clip rectangle of line 0: as wide as the terminal, in the SVG's units.
_LINE_CLIP = re.compile(r'<clipPath id="[^"]*-line-0">\s*<rect x="0" y="[\d.]+" width="([\d.]+)"')


def is_drawn(app: App[Any]) -> bool:
    """The current screen has been laid out at least once. A screen pushed by a
    timer or a worker (not by a key the pilot waited on) has no lines for a
    moment: its screenshot is empty, and a test reading it must wait first."""
    return _LINE_CLIP.search(app.export_screenshot()) is not None


def screen_text(app: App[Any]) -> str:
    """Every character on the screen, one line per terminal row (trailing spaces
    dropped). Characters are as drawn: a control character the app let through
    would be here, as it would reach the terminal."""
    svg = app.export_screenshot()
    width, height = app.size
    clip = _LINE_CLIP.search(svg)
    # An empty frame is never read as a screen without the text sought: a check
    # that something is absent would pass on it by accident.
    assert clip is not None, "the screen is not laid out yet: wait_until is_drawn(app) first"
    cell_width = float(clip.group(1)) / width
    rows: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for x, line, escaped in _TEXT.findall(svg):
        # rich writes a space as &#160;: a no-break space of the data stays one
        text = html.unescape(escaped.replace("&#160;", " "))
        rows[int(line)].append((round(float(x) / cell_width), text))
    return "\n".join(_row(rows[line]) for line in range(height))


def _row(pieces: list[tuple[int, str]]) -> str:
    """One terminal row from its runs of text and the columns they start at
    (runs of spaces alone are not in the SVG: the gaps are filled here)."""
    out: list[str] = []
    at = 0
    for column, text in sorted(pieces):
        if column > at:
            out.append(" " * (column - at))
            at = column
        out.append(text)
        at += cell_len(text)
    return "".join(out).rstrip()


async def wait_until(
    pilot: Pilot[Any],
    condition: Callable[[], bool],
    what: str,
    timeout: float = 30.0,
) -> None:
    """Let the app run until ``condition()`` holds; fail, saying ``what`` was
    awaited, after ``timeout`` seconds (generous: the wait ends as soon as the
    condition holds, and a loaded machine must not fail a test that is right)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pause = 0.0
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        await (pilot.pause(pause) if pause else pilot.pause())
        # Checked at once, then less and less often (every 0.2 s at most): a
        # condition often reads the screen (an SVG of it, about 50 ms of CPU),
        # and checked at Pilot's pace while a worker computed, that took the
        # CPU (and the GIL) from the very work awaited, and from the other
        # tests beside it.
        pause = min(_LONGEST_PAUSE, pause * 2 or _FIRST_PAUSE)
