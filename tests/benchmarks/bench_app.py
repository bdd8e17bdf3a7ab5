#!/usr/bin/env python3
"""App benchmark: start-up and grading latency on a workspace of 100 k judgments and 10 runs.

Provides a command-line script (not a pytest test). It generates a synthetic
workspace once (cached under ``.cache/``, git-ignored) through the same import
services the command line uses: 1,000 queries, 10 runs of 50 documents per
query (500 k run lines), 100 k imported judgments, documents with text, and a
pool of every run's top 10, of which the judgments cover about half, so there
is work to grade. Then, with the Pilot (``App.run_test``), it measures:

- start: from creating the app (``run_test``) to the first frame showing a
  document (the plan read in full), over several fresh apps (goal < 1.5 s);
  and a whole process in a tmux pane, interpreter and imports included;
- grade latency: from a digit key to the first frame showing the next
  document (the grade committed, the next document read, the frame drawn and
  rendered to terminal codes), over a few hundred grades (goal: 95th
  percentile < 50 ms);
- the same with the audit and scores screens visited first, so they are
  running and receive every `GradeSaved`.

The import time of the app's modules in a fresh interpreter is printed
beside, since a real start pays it too.

    .venv/bin/python tests/benchmarks/bench_app.py [--grades 300] [--starts 5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
CACHE = HERE / ".cache"

QUERIES = 1_000
RUNS = 10
DEPTH = 50  # documents per query per run
POOL_DEPTH = 10
JUDGED_PER_QUERY = 100  # 100 k judgments in all
CANDIDATES_PER_QUERY = 150  # runs draw from these, so they overlap as real runs do
WORDS = re.findall(
    r"\w+",
    "tea water leaf green brew steep hot cup cold boil plant river city history market "
    "science energy light music engine garden winter summer ocean mountain village",
)


def _write_inputs(folder: Path, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    queries = folder / "queries.tsv"
    docs = folder / "docs.tsv"
    qrels = folder / "qrels.txt"
    with queries.open("w") as out:
        for q in range(QUERIES):
            out.write(f"q{q}\t{' '.join(rng.sample(WORDS, 4))}\n")
    with docs.open("w") as out:
        for q in range(QUERIES):
            for d in range(CANDIDATES_PER_QUERY):
                text = " ".join(rng.choice(WORDS) for _ in range(60))
                out.write(f"d{q}-{d}\t{text}\n")
    with qrels.open("w") as out:
        for q in range(QUERIES):
            for d in rng.sample(range(CANDIDATES_PER_QUERY), JUDGED_PER_QUERY):
                out.write(f"q{q} 0 d{q}-{d} {rng.randint(0, 3)}\n")
    runs = []
    for r in range(RUNS):
        path = folder / f"run{r}.trec"
        with path.open("w") as out:
            for q in range(QUERIES):
                chosen = rng.sample(range(CANDIDATES_PER_QUERY), DEPTH)
                for rank, d in enumerate(chosen, 1):
                    out.write(f"q{q} Q0 d{q}-{d} {rank} {100 - rank / 10:.3f} run{r}\n")
        runs.append(path)
    return {"queries": queries, "docs": docs, "qrels": qrels, "runs": runs}


def build_workspace(path: Path) -> Path:
    from judgepool.services.imports import import_documents, import_queries, import_run
    from judgepool.services.pools import pool
    from judgepool.services.qrels import import_qrels
    from judgepool.services.workspace import init_workspace

    if path.exists():
        return path
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        inputs = _write_inputs(Path(tmp))
        building = path.with_name(path.name + ".building")
        building.unlink(missing_ok=True)
        with init_workspace(building, scale="0..3") as ws:
            import_queries(ws, inputs["queries"])
            import_documents(ws, inputs["docs"])
            import_qrels(ws, inputs["qrels"], annotator="qrels")
            for run in inputs["runs"]:
                import_run(ws, run)
            pool(ws, depth=POOL_DEPTH)
        building.rename(path)
    print(f"built {path.name} in {time.perf_counter() - started:.1f} s")
    return path


def describe(path: Path) -> str:
    from judgepool.services.workspace import open_workspace
    from judgepool.store import ledger, pools
    from judgepool.store.runs import list_runs

    with open_workspace(path) as ws:
        judgments = len(ledger.current_judgments(ws))
        runs = len(list_runs(ws))
        lines = sum(run.lines for run in list_runs(ws))
        members, queries = pools.pool_size(ws, "default")
    return (
        f"{judgments:,} judgments, {runs} runs ({lines:,} lines), "
        f"pool of {members:,} documents over {queries:,} queries"
    )


class FrameClock:
    """Times the frames the app draws, and which document each one shows.

    Wraps the app's ``_display`` (the one place a finished frame goes to the
    terminal; the headless driver drops it) and renders each frame to terminal
    codes as a real terminal session would, then notes the time and the ID of
    the document on screen. Pilot's ``press`` cannot time this: it sleeps at
    least 2 x 20 ms per key waiting for the app to be idle.
    """

    def __init__(self, app: Any) -> None:
        from textual._compositor import CompositorUpdate

        self.app = app
        self.frames: list[tuple[float, str | None]] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if isinstance(renderable, CompositorUpdate):
                renderable.render_segments(app.console)
                self.frames.append((time.perf_counter(), self.shown_document()))

        app._display = display

    def shown_document(self) -> str | None:
        from textual.widgets import Static

        from judgepool.tui.screens.grade import GradeScreen

        screen = self.app.screen
        if not isinstance(screen, GradeScreen) or screen.session is None:
            return None
        head = screen.query_one("#document-head", Static).render()
        plain = getattr(head, "plain", "")
        return plain.split("\n", 1)[0] or None

    async def first_frame_showing(self, doc_id: str, after: float, timeout: float = 10) -> float:
        """When the first frame drawn after ``after`` showed ``doc_id``."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for stamp, shown in self.frames:
                if stamp > after and shown == doc_id:
                    return stamp
            await asyncio.sleep(0.0005)
        raise AssertionError(f"no frame showed {doc_id!r}")


def _grade_screen(app: Any) -> Any:
    from judgepool.tui.screens.grade import GradeScreen

    screen = app.get_screen("grade")
    assert isinstance(screen, GradeScreen)
    return screen


async def measure_start(path: Path) -> float:
    """Seconds from creating the app to the first frame showing a document."""
    from judgepool.tui.app import create_app

    started = time.perf_counter()
    app = create_app(path, "bench")
    clock = FrameClock(app)
    async with app.run_test(size=(120, 40)):
        while time.perf_counter() - started < 30:
            shown = [stamp for stamp, doc in clock.frames if doc is not None]
            if shown:
                return shown[0] - started
            await asyncio.sleep(0.001)
    raise AssertionError("no document was shown within 30 s")


async def measure_grades(path: Path, grades: int, visit_review: bool) -> list[float]:
    """Seconds from each digit key to the first frame showing the next document."""
    from textual import events

    from judgepool.tui.app import create_app

    app = create_app(path, "bench")
    clock = FrameClock(app)
    latencies: list[float] = []
    rng = random.Random(3)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = _grade_screen(app)
        while not screen.ready:
            await pilot.pause(0.01)
        if visit_review:
            for key in ("a", "s", "g"):
                await pilot.press(key)
                await pilot.pause(0.5)
            await app.workers.wait_for_complete()
        await pilot.pause()
        for _ in range(grades):
            before = screen.session.current
            digit = str(rng.randint(0, 3))
            started = time.perf_counter()
            driver = app._driver
            assert driver is not None
            driver.send_message(events.Key(digit, digit))
            while screen.session.current == before:
                if time.perf_counter() - started > 10 or app._exception is not None:
                    raise AssertionError(f"the grade key was not handled: {app._exception!r}")
                await asyncio.sleep(0.0005)
            shown = await clock.first_frame_showing(screen.session.current[1], started)
            latencies.append(shown - started)
            await asyncio.sleep(0.01)  # a fast annotator still reads for a moment
        await app.workers.wait_for_complete()
    return latencies


def process_start_in_tmux(path: Path) -> float | None:
    """Seconds from starting ``judgepool tui`` in a tmux pane to a document on
    screen (interpreter start and imports included); None without tmux."""
    if shutil.which("tmux") is None:
        return None
    sockets = Path(tempfile.mkdtemp(prefix="jp-tmux-"))
    socket = str(sockets / "s")
    command = f"exec {sys.executable} -m judgepool tui {path} --annotator bench"
    started = time.perf_counter()
    subprocess.run(
        [
            "tmux",
            "-S",
            socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "b",
            "-x",
            "120",
            "-y",
            "40",
            command,
        ],
        check=True,
    )
    try:
        while time.perf_counter() - started < 30:
            shown = subprocess.run(
                ["tmux", "-S", socket, "capture-pane", "-p", "-t", "b"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            if "document 1/" in shown:
                return time.perf_counter() - started
            time.sleep(0.01)
        raise AssertionError("the app did not show a document within 30 s")
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True)
        shutil.rmtree(sockets, ignore_errors=True)


def import_seconds() -> float:
    """Median of three fresh interpreters importing the app module."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import judgepool.tui.app"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grades", type=int, default=300)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=CACHE)
    args = parser.parse_args()

    args.workdir.mkdir(parents=True, exist_ok=True)
    cached = build_workspace(args.workdir / "app-bench-100k.sqlite")
    print(describe(cached))
    with tempfile.TemporaryDirectory() as tmp:
        # Grading writes to the workspace: every measurement starts from a copy.
        def fresh() -> Path:
            copy = Path(tmp) / f"bench-{time.monotonic_ns()}.sqlite"
            shutil.copyfile(cached, copy)
            return copy

        starts = [asyncio.run(measure_start(fresh())) for _ in range(args.starts)]
        plain = asyncio.run(measure_grades(fresh(), args.grades, visit_review=False))
        visited = asyncio.run(measure_grades(fresh(), args.grades, visit_review=True))
        process = [process_start_in_tmux(fresh()) for _ in range(3)]
    imports = import_seconds()

    print(
        f"\nimport judgepool.tui.app in a fresh interpreter: {imports * 1000:.0f} ms (median of 3)"
    )
    print(
        f"start to first document in-process ({len(starts)} runs): median "
        f"{statistics.median(starts) * 1000:.0f} ms, max {max(starts) * 1000:.0f} ms "
        f"(goal < 1500 ms)"
    )
    if None not in process:
        seconds = [p for p in process if p is not None]
        print(
            f"process start to first document in tmux (3 runs): median "
            f"{statistics.median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms"
        )
    for name, values in (("grade latency", plain), ("with audit+scores running", visited)):
        print(
            f"{name} ({len(values)} grades): p50 {percentile(values, 50) * 1000:.1f} ms, "
            f"p95 {percentile(values, 95) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms "
            f"(goal p95 < 50 ms)"
        )


if __name__ == "__main__":
    main()
