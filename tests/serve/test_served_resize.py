"""A browser window narrowed mid-session, replayed on TREC DL 2020 in a real
headless Chromium (Playwright): the app is drawn again at the new width and
stays in view. xterm.js keeps its hidden input where the cursor was, which
after narrowing lies past the right edge; the next key focused it, the page
scrolled sideways and the app showed clipped on the left, ``R`` or not.

Skips, saying what is missing, without Playwright or Chromium; fails in CI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.dl20_support import dl20_workspace
from tests.serve.browser_support import (
    BrowserSession,
    add_annotator,
    chromium_path,
    need_browser,
    serving,
)

pytestmark = pytest.mark.slow

SCROLLED = """() => [document.scrollingElement, ...document.querySelectorAll('*')]
    .filter(e => e.scrollLeft || e.scrollTop)
    .map(e => `${e.tagName}.${e.className} scrolled ${e.scrollLeft},${e.scrollTop}`)"""
SCREEN = """() => { const r = document.querySelector('.xterm-screen').getBoundingClientRect();
    return [r.left, r.right, window.innerWidth]; }"""


def test_a_narrowed_window_keeps_the_app_whole_in_view(tmp_path: Path) -> None:
    sync_api = need_browser()
    workspace = dl20_workspace(tmp_path / "served.sqlite", queries=2)
    token = add_annotator(workspace, "alice")
    with serving(workspace) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            sizes: list[dict[str, Any]] = []

            def sent(payload: bytes | str) -> None:
                text = payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
                if text.startswith('["resize"'):
                    sizes.append(json.loads(text)[1])

            page.on("websocket", lambda socket: socket.on("framesent", sent))
            session = BrowserSession(page, url)
            mark = session.sign_in("alice", token)
            session.wait_for("judged this session", since=mark)
            wide = sizes[-1]["width"]

            page.set_viewport_size({"width": 700, "height": 500})
            page.wait_for_function("() => window.innerWidth === 700")
            mark = session.mark()
            session.wait_for("judged this session", since=mark)  # drawn again
            assert sizes[-1]["width"] < wide  # the app was told the new width

            for key in ("R", "1"):  # re-read, then grade: each focuses the terminal
                mark = session.mark()
                session.focus()
                session.press(key)
                session.wait_for("judged this session", since=mark)
                page.wait_for_timeout(200)
                assert page.evaluate(SCROLLED) == [], key
                left, right, width = page.evaluate(SCREEN)
                assert left == 0 and right <= width, (key, left, right, width)
        finally:
            browser.close()
