"""The page `judgepool serve` hands to a browser, in headless Chromium: it has
a title, every request it makes (page, script, style, font, websocket) goes to
the server on 127.0.0.1 and nowhere else, the font the terminal draws with is
the one served from there, and nothing shown before sign-in names the
workspace's file or folder. Signing in then opens grading: the page works with
nothing from outside.

Skips, saying what is missing, without Playwright or Chromium; fails in CI.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.serve.browser_support import (
    BrowserSession,
    add_annotator,
    chromium_path,
    need_browser,
    serving,
)
from tests.tui.conftest import build_workspace

pytestmark = pytest.mark.slow

# A file name and folder that say whose study it is: nobody may read them before signing in.
SECRET_FOLDER = "acme-client-projects"
SECRET_FILE = "acme-relevance-study.sqlite"


def test_the_page_is_titled_loads_only_from_the_server_and_names_no_workspace(
    tmp_path: Path,
) -> None:
    sync_api = need_browser()
    folder = tmp_path / SECRET_FOLDER
    folder.mkdir()
    workspace = build_workspace(folder / SECRET_FILE, ["teaching"])
    token = add_annotator(workspace, "alice")
    requested: list[str] = []
    with serving(workspace) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})

            # Every request the page makes is recorded; one leaving the server
            # is refused, as on a network without the internet.
            def record(route: object) -> None:
                request_url = route.request.url  # type: ignore[attr-defined]
                requested.append(request_url)
                if urlsplit(request_url).hostname == "127.0.0.1":
                    route.continue_()  # type: ignore[attr-defined]
                else:
                    route.abort()  # type: ignore[attr-defined]

            context.route("**/*", record)
            page = context.new_page()
            page.on("websocket", lambda socket: requested.append(socket.url))
            session = BrowserSession(page, url)
            session.wait_for("Token")
            page.wait_for_load_state("load")
            page.wait_for_function("document.fonts.status === 'loaded'")

            assert page.title() == "judgepool"
            # the terminal's font is the one from the server (the route let nothing else in)
            assert page.evaluate("document.fonts.check('16px \"Roboto Mono\"')")
            assert any(urlsplit(u).path.endswith(".ttf") for u in requested), requested
            before_sign_in = session.text_since(0) + page.content()
            for secret in (SECRET_FOLDER, SECRET_FILE, workspace.stem, str(tmp_path)):
                assert secret not in before_sign_in, secret

            mark = session.sign_in("alice", token)
            session.wait_for("alice", since=mark)
            # signed in, the grade screen names the workspace, as in a terminal
            session.wait_for(SECRET_FILE, since=mark)
        finally:
            browser.close()

    assert requested, "no request was recorded"
    outside = [u for u in requested if urlsplit(u).hostname != "127.0.0.1"]
    assert outside == [], outside
    assert any(urlsplit(u).scheme == "ws" for u in requested), requested
