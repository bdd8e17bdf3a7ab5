"""Workspaces for the app's tests, built in tmp_path from the repository's
sample_data/ and tests/fixtures/.

`build_workspace` imports chosen sets (a folder of ``sample_data/``, else of
``tests/fixtures/``: queries, documents, runs, optionally qrels) into a new
workspace file and pools every run's top
documents, so there is something to grade. `wait_ready` waits until the grade
screen shows its first document. ``async def`` tests run in a fresh event loop each
(`pytest_pyfunc_call` below), so no async plugin is needed.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from judgepool.services.imports import (
    default_run_name,
    import_documents,
    import_queries,
    import_run,
)
from judgepool.services.pools import pool
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import init_workspace
from judgepool.tui.app import JudgepoolApp
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.screens.grade import clock as grade_clock
from tests.tui.pilot_support import wait_until

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def set_folder(name: str) -> Path:
    """The folder of the named set: sample_data/NAME, else tests/fixtures/NAME."""
    folder = SAMPLE_DATA / name
    return folder if folder.is_dir() else FIXTURES / name


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run an ``async def`` test to completion in its own event loop."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = inspect.signature(pyfuncitem.obj).parameters
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True


def build_workspace(
    path: Path, sets: Iterable[str], *, qrels: bool = False, depth: int = 10
) -> Path:
    """A workspace at ``path`` holding the named sample sets, pooled to ``depth``."""
    with init_workspace(path, scale="0..3") as ws:
        for name in sets:
            folder = set_folder(name)
            import_queries(ws, folder / "queries.tsv")
            docs = folder / "docs.tsv"
            import_documents(ws, docs if docs.exists() else folder / "docs.tsv.gz")
            if qrels:
                import_qrels(ws, folder / "qrels.txt", annotator=f"qrels:{name}")
            for run in sorted(folder.glob("*.trec")):
                import_run(ws, run, name=f"{name}/{default_run_name(run)}")
        pool(ws, depth=depth)
    return path


@pytest.fixture
def still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grade screen's clock held at one instant, for pictures that must not
    depend on how fast the screen drew: the time on a document reads 0 s, a
    grade records 0 s, and so there is no rate."""
    monkeypatch.setattr(grade_clock, "now", lambda: 1000.0)


@pytest.fixture
def teaching_ws(tmp_path: Path) -> Path:
    """The teaching set without its qrels: one query, three pooled documents (A, B, C)."""
    return build_workspace(tmp_path / "teaching.sqlite", ["teaching"])


@pytest.fixture
def two_queries_ws(tmp_path: Path) -> Path:
    """The hostile and teaching sets, no qrels: two queries, six pooled documents."""
    return build_workspace(tmp_path / "two.sqlite", ["hostile", "teaching"])


@pytest.fixture
def hostile_ws(tmp_path: Path) -> Path:
    """The hostile set, no qrels: markup and escape sequences in IDs, query and texts."""
    return build_workspace(tmp_path / "hostile.sqlite", ["hostile"])


def grade_screen(app: JudgepoolApp) -> GradeScreen:
    screen = app.get_screen("grade")
    assert isinstance(screen, GradeScreen)
    return screen


async def wait_ready(pilot: Pilot[None], timeout: float = 5.0) -> GradeScreen:
    """The grade screen, once its plan is read and shown."""
    app = pilot.app
    assert isinstance(app, JudgepoolApp)
    await wait_until(
        pilot,
        lambda: app.is_screen_installed("grade") and grade_screen(app).ready,
        "the grade screen to show its plan",
        timeout,
    )
    await pilot.pause()
    return grade_screen(app)
