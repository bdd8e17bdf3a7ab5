"""The report as a reviewer sees it: the HTML file of the demo (its files, and
its workspace with agreement and progress) and of six DL20 runs opened in
Debian's Chromium (Playwright), offline. Every request the page makes is
recorded, and any that is not the file itself (or ``data:``) is refused, as
on a machine without a network: none may be made. Each section is
screenshot and checked for its figure or tables: present, visible, of
non-zero size, and the picture not blank.

One browser serves the whole module. Skips, saying what is missing, without
Playwright or Chromium; fails in CI.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from PIL import Image

from judgepool.cli import main
from judgepool.services.demo import build_demo_workspace
from tests.serve.browser_support import chromium_path, need_browser

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "sample_data" / "dl19"
DL20 = ROOT / "tests" / "data" / "dl20-passage"
TABLE_SECTIONS = ("contract", "scores", "comparison")
FIGURE_SECTIONS = ("per-query-differences", "forest", "judged-share")
WORKSPACE_SECTIONS = ("agreement", "progress")


def _write(out: Path, *args: str) -> Path:
    result = CliRunner().invoke(main, ["report", *args, "-o", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The report a test opens, written when it is first asked for (once per
    process). Each test opens one of the three, and with ``-n`` the three go to
    different workers: written all at once, each worker wrote all three (10 to
    21 s of a test's setup in a run of the suite) to open one."""
    folder = tmp_path_factory.mktemp("reports")

    @functools.cache
    def report(which: str) -> Path:
        match which:
            case "demo workspace":
                workspace = build_demo_workspace(folder / "demo.sqlite", DEMO.parent)
                return _write(folder / "workspace.html", "--workspace", str(workspace))
            case "demo":
                names = ("bm25.trec", "bm25-rm3.trec", "splade-pp-ed.trec", "repllama.trec")
                demo_runs = [str(DEMO / name) for name in names]
                qrels = str(DEMO / "qrels.txt")
                return _write(
                    folder / "demo.html", *demo_runs, "--qrels", qrels, "--unjudged", "zero"
                )
            case "dl20":
                dl20_runs = [str(path) for path in sorted((DL20 / "runs").glob("*.trec.gz"))]
                assert len(dl20_runs) == 6
                qrels = str(DL20 / "qrels.dl20-passage.txt.gz")
                return _write(
                    folder / "dl20.html", *dl20_runs, "--qrels", qrels, "--unjudged", "zero"
                )
        raise AssertionError(which)

    return report


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = need_browser()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path())
        try:
            yield launched
        finally:
            launched.close()


def _not_blank(picture: bytes) -> None:
    image = Image.open(io.BytesIO(picture)).convert("L")
    assert image.width > 0 and image.height > 0
    low, high = image.getextrema()
    assert high - low > 64, "the screenshot is one flat colour"
    # more than a few shades: drawn lines and text, not a frame
    assert len(image.getcolors(maxcolors=256 * 256) or []) > 8


def _visible(locator: Any) -> None:
    assert locator.count() > 0
    first = locator.first
    assert first.is_visible()
    box = first.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0


@pytest.mark.parametrize("which", ["demo", "demo workspace", "dl20"])
def test_the_report_opens_offline_with_every_figure(
    browser: Any, reports: Callable[[str], Path], which: str, tmp_path: Path
) -> None:
    target = reports(which).as_uri()
    requested: list[str] = []
    refused: list[str] = []
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:

        def route(handle: Any) -> None:
            url = handle.request.url
            if url.startswith(("file:", "data:")):
                handle.continue_()
            else:
                refused.append(url)
                handle.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("request", lambda request: requested.append(request.url))
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.goto(target, wait_until="load")

        assert requested and requested[0] == target
        assert [url for url in requested if url != target and not url.startswith("data:")] == []
        assert refused == [] and errors == []
        assert page.evaluate("document.scripts.length") == 0

        ids = page.eval_on_selector_all("main > section", "nodes => nodes.map(n => n.id)")
        workspace = which == "demo workspace"
        assert ids == [
            *TABLE_SECTIONS,
            *FIGURE_SECTIONS,
            *(WORKSPACE_SECTIONS if workspace else ()),
        ]
        for section_id in ids:
            section = page.locator(f"section#{section_id}")
            _visible(section)
            shot = tmp_path / f"{which.replace(' ', '-')}-{section_id}.png"
            picture = section.screenshot(path=str(shot))
            _not_blank(picture)
            if section_id in TABLE_SECTIONS:
                _visible(section.locator("table"))
            else:
                _visible(section.locator("figure svg"))
                _visible(section.locator("figcaption"))
                # the drawing has marks in it: bars, lines, points (or a
                # sentence saying why there are none: agreement of one annotator)
                least = 1 if section_id in WORKSPACE_SECTIONS else 20
                assert section.locator("figure svg path").count() > least
        # one row per run in the score table, one per pair in the comparison
        runs = 6 if which == "dl20" else 4
        assert page.locator("section#scores tbody tr").count() == runs
        assert page.locator("section#comparison tbody tr").count() == runs - 1
    finally:
        context.close()
