#!/usr/bin/env python3
"""The lead's scores screen while two annotators grade (issue 32, point 3).

Provides a command-line script (not a pytest test). It builds a workspace once
(cached under ``.cache/``, git-ignored) through the import services the
command line uses: DL20's queries, its qrels (54 judged queries, 11,386
judgments) and five of its runs (``RUNS``: four top-100 runs and RepLLaMA's
top 1000, 75,600 lines in all). Then, per round, on a fresh copy of it and in
a fresh child process (a real start: the scoring modules imported when the
screen first needs them), it opens the real app as the lead with the Pilot
(``App.run_test``) and measures:

- runs: from ``s`` on the grade screen to the scores screen showing its runs
  (every run is refused under the default ``unjudged=reject``: each has holes);
- zero: from ``z`` (score under ``unjudged=zero``) to the numbers;
- live: two writer processes, each with its own connection, grade the holes
  of the five runs' top 100 (best rank first, one list each, so every grade
  adds one judgment) at one document a second each, both on the same tick,
  for ``--seconds``; for each grade, the delay from its commit to the screen
  showing a board that counts it (the screen's judgments count reaches the
  number of judgments the grade made);
- the CPU time the app's process used (all its threads: on a loaded machine
  the wall time is mostly the neighbours') to show the runs, the numbers
  after ``z``, and from the writers' start until the screen caught up with
  the last grade; and the rows added to ``evaluations`` while the screen was
  open.

"Showing" is the first frame drawn after the screen took the board in
(`ScoresScreen._scored`), rendered to terminal codes as a real terminal
session would (frames timed as ``bench_app.py`` times them). Each figure is
the median of ``--rounds`` rounds, with min and max; the per-grade delays of
a round are summarised by their median, 90th percentile and maximum.

    .venv/bin/python tests/benchmarks/bench_lead_screen.py [--rounds 3] [--seconds 60] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
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
# the shared data folder beside the repository (or a worktree's parents)
DATA = next(
    (p / "shared/data/dl20-passage" for p in HERE.parents if (p / "shared/data").is_dir()),
    Path("/work/shared/data/dl20-passage"),
)

RUNS = {
    "bm25": "bm25.top100.trec",
    "bm25-rm3": "bm25-rm3.top100.trec",
    "tasb": "tasb.top100.trec",
    "splade-pp-ed": "splade-pp-ed.top100.trec",
    "repllama": "repllama.top1000.trec",
}
HOLE_DEPTH = 100  # the writers grade the holes of the runs' top 100
GOAL_SECONDS = 1.0
SIZE = (150, 45)
WRITERS = ("ann1", "ann2")


def build_workspace(path: Path, data: Path) -> Path:
    from judgepool.services.imports import import_queries, import_run
    from judgepool.services.qrels import import_qrels
    from judgepool.services.workspace import init_workspace

    if path.exists():
        return path
    started = time.perf_counter()
    building = path.with_name(path.name + ".building")
    building.unlink(missing_ok=True)
    with init_workspace(building, scale="0..3") as ws:
        import_queries(ws, data / "queries.dl20.tsv")
        import_qrels(ws, data / "qrels.dl20-passage.txt")
        for name, file in RUNS.items():
            import_run(ws, data / "runs" / file, name=name)
    building.rename(path)
    print(f"built {path.name} in {time.perf_counter() - started:.1f} s")
    return path


def holes(data: Path) -> list[tuple[str, str]]:
    """The unjudged documents of the runs' top ``HOLE_DEPTH``, best rank first
    (then run, query, document), each once."""
    judged = set()
    for line in (data / "qrels.dl20-passage.txt").read_text().splitlines():
        query, _, doc, _ = line.split()
        judged.add((query, doc))
    found: dict[tuple[str, str], tuple[int, int]] = {}
    for number, file in enumerate(RUNS.values()):
        for line in (data / "runs" / file).read_text().splitlines():
            query, _, doc, rank, _, _ = line.split()
            if int(rank) <= HOLE_DEPTH and (query, doc) not in judged:
                found.setdefault((query, doc), (int(rank), number))
    return sorted(found, key=lambda item: (found[item], item))


# -- the writers ---------------------------------------------------------------


def writer(workspace: Path, annotator: str, items: Path, start_at: float, rate: float) -> None:
    """Grade the items of the file, one every 1/rate seconds from ``start_at``
    (time.monotonic, shared by the processes of this machine); print each
    grade's commit time and event ID as JSON."""
    from judgepool.services.judging import judge
    from judgepool.services.workspace import open_workspace

    todo = json.loads(items.read_text())
    rng = random.Random(annotator)
    done: list[tuple[float, int]] = []
    with open_workspace(workspace) as ws:
        for number, (query, doc) in enumerate(todo):
            wait = start_at + number / rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            event = judge(ws, query, doc, rng.choice((0, 0, 1, 2, 3)), annotator=annotator)
            done.append((time.monotonic(), event.id))
    print(json.dumps(done))


# -- the lead's app (a child process per round) --------------------------------


async def _wait(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


class Frames:
    """When each frame went to the terminal, and how many boards the screen
    had handled by then. Wraps the app's ``_display`` (where a finished frame
    goes to the terminal; the headless driver drops it) and renders each
    frame to terminal codes as a real terminal would, as ``bench_app.py``
    does."""

    def __init__(self, app: Any, boards: list[Any]) -> None:
        from textual._compositor import CompositorUpdate

        self.drawn: list[tuple[float, int]] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if isinstance(renderable, CompositorUpdate):
                renderable.render_segments(app.console)
                self.drawn.append((time.monotonic(), len(boards)))

        app._display = display

    def painted(self, board: int) -> float | None:
        """When the first frame showing board number ``board`` (0-based) was drawn."""
        return next((when for when, handled in self.drawn if handled > board), None)


def _evaluations(workspace: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(workspace)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0])
    finally:
        conn.close()


def _time_scoring_ahead() -> list[float]:
    """When the app's scoring ahead (`judgepool.tui.scores_ahead`) ends: the
    list gets the time (its workers leave ``app.workers`` when done)."""
    from judgepool.tui import scores_ahead

    ended: list[float] = []
    original = scores_ahead._board

    def board(*args: Any) -> None:
        original(*args)
        ended.append(time.monotonic())

    scores_ahead._board = board
    return ended


async def _lead(
    workspace: Path, items: list[list[tuple[str, str]]], seconds: float, at_once: bool
) -> dict[str, Any]:
    from judgepool.tui.app import create_app
    from judgepool.tui.screens.scores import ScoresScreen

    # (when handled, contract's unjudged policy, judgments counted, runs scored)
    shown: list[tuple[float, str, int, int]] = []
    original = ScoresScreen._scored

    def recorded(self: ScoresScreen, board: Any) -> None:
        original(self, board)
        scored = sum(1 for run in board.runs if run.scored is not None)
        shown.append((time.monotonic(), board.contract.unjudged, board.judgments, scored))

    ScoresScreen._scored = recorded  # type: ignore[method-assign]
    result: dict[str, Any] = {"evaluations_before": _evaluations(workspace)}
    ahead = _time_scoring_ahead()
    app = create_app(workspace, "lead")
    frames = Frames(app, shown)
    async with app.run_test(size=SIZE) as pilot:
        if not at_once:
            # the lead looks at the grade screen while the scores are made ready
            # (`judgepool.tui.scores_ahead`): how long that takes, its CPU
            started, cpu = time.monotonic(), time.process_time()
            if not await _wait(lambda: bool(ahead), 120):
                raise SystemExit("the scores were not ready ahead in 120 s")
            result["ahead_s"] = time.monotonic() - started
            result["ahead_cpu_s"] = time.process_time() - cpu
        started, cpu = time.monotonic(), time.process_time()
        await pilot.press("s")
        if not await _wait(lambda: frames.painted(0) is not None, 120):
            raise SystemExit("the scores screen showed no runs in 120 s")
        result["runs_s"] = (frames.painted(0) or 0) - started
        result["runs_cpu_s"] = time.process_time() - cpu
        if at_once:
            await pilot.press("q")
            return result
        started, cpu = time.monotonic(), time.process_time()
        await pilot.press("z")
        if not await _wait(lambda: shown[-1][1] == "zero" and shown[-1][3] > 0, 120):
            raise SystemExit("no numbers under unjudged=zero in 120 s")
        zero = len(shown) - 1
        await _wait(lambda: frames.painted(zero) is not None, 120)
        result["zero_s"] = (frames.painted(zero) or 0) - started
        result["zero_cpu_s"] = time.process_time() - cpu
        base = shown[-1][2]
        result["judgments_before"] = base
        with tempfile.TemporaryDirectory() as tmp:
            start_at = time.monotonic() + 1.0
            cpu = time.process_time()
            writers = []
            for name, mine in zip(WRITERS, items, strict=True):
                todo = Path(tmp) / f"{name}.json"
                todo.write_text(json.dumps(mine[: int(seconds)]))
                command = [sys.executable, __file__, "--writer", str(workspace), name, str(todo)]
                writers.append(
                    subprocess.Popen(
                        [*command, "--start-at", str(start_at)], stdout=subprocess.PIPE, text=True
                    )
                )
            while any(proc.poll() is None for proc in writers):
                await asyncio.sleep(0.05)
            commits = sorted(
                (event, at) for proc in writers for at, event in json.loads(proc.communicate()[0])
            )
        grades = len(commits)
        caught_up = await _wait(lambda: shown[-1][2] >= base + grades, 120)
        if caught_up:
            last = len(shown) - 1
            await _wait(lambda: frames.painted(last) is not None, 10)
        result["cpu_s"] = time.process_time() - cpu
        result["wall_s"] = time.monotonic() - start_at
        result["caught_up"] = caught_up
        delays: list[float | None] = []
        for number, (_, at) in enumerate(commits, start=1):
            board = next(
                (index for index, (_, _, count, _) in enumerate(shown) if count >= base + number),
                None,
            )
            painted = None if board is None else frames.painted(board)
            delays.append(None if painted is None else max(0.0, painted - at))
        result["delays"] = delays
        result["grades"] = grades
        result["boards"] = len(shown)
        await pilot.press("q")
    result["evaluations_after"] = _evaluations(workspace)
    return result


def _child(workspace: Path, items: Path, seconds: float, at_once: bool) -> None:
    todo = json.loads(items.read_text())
    print(json.dumps(asyncio.run(_lead(workspace, todo, seconds, at_once))))


# -- rounds and the summary -------------------------------------------------------


def _round(
    base: Path, items: list[list[tuple[str, str]]], seconds: float, at_once: bool = False
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "lead.sqlite"
        shutil.copy(base, workspace)
        todo = Path(tmp) / "items.json"
        todo.write_text(json.dumps(items))
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(workspace), str(todo), str(seconds)]
            + (["--at-once"] if at_once else []),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"the round failed:\n{done.stderr}")
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _line(label: str, values: list[float], unit: str = "s", goal: float | None = None) -> str:
    median = statistics.median(values)
    met = "" if goal is None else ("  met" if median <= goal else "  MISSED")
    return f"  {label:<44} {median:8.2f} {unit} ({min(values):.2f}-{max(values):.2f}){met}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the writers grade")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, help="write every round's figures here")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--writer", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--at-once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.writer:
        workspace, annotator, items = args.writer
        writer(Path(workspace), annotator, Path(items), args.start_at, 1.0)
        return
    if args.child:
        workspace, items, seconds = args.child
        _child(Path(workspace), Path(items), float(seconds), args.at_once)
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    base = build_workspace(CACHE / "lead-dl20-5runs.sqlite", args.data)
    found = holes(args.data)
    items = [found[0::2], found[1::2]]
    print(f"{len(found):,} holes in the five runs' top {HOLE_DEPTH}; two writers, 1 grade/s each")
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[0]} (2 cores)")
    rounds = []
    at_once = []
    for number in range(args.rounds):
        at_once.append(_round(base, items, args.seconds, at_once=True))
        rounds.append(_round(base, items, args.seconds))
        done = rounds[-1]
        timed = [d for d in done["delays"] if d is not None]
        print(
            f"round {number + 1}: s at once {at_once[-1]['runs_s']:.2f} s; ready ahead "
            f"{done['ahead_s']:.2f} s, then runs {done['runs_s']:.2f} s, "
            f"zero {done['zero_s']:.2f} s, "
            f"{done['grades']} grades, delay median {statistics.median(timed):.2f} s "
            f"max {max(timed):.2f} s ({len(done['delays']) - len(timed)} never shown), "
            f"CPU {done['cpu_s']:.1f} s in {done['wall_s']:.1f} s, "
            f"{done['evaluations_after'] - done['evaluations_before']} evaluations stored, "
            f"{done['boards']} boards shown"
        )
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[0]} (2 cores)")
    print(f"\nmedian (min-max) over {len(rounds)} rounds; goal: within {GOAL_SECONDS:.0f} s")
    print(_line("scores ready ahead, from the grade screen", [r["ahead_s"] for r in rounds]))
    print(_line("  CPU seconds of the app's process", [r["ahead_cpu_s"] for r in rounds]))
    print(_line("runs shown, from s (then)", [r["runs_s"] for r in rounds], goal=GOAL_SECONDS))
    print(_line("  CPU seconds of the app's process", [r["runs_cpu_s"] for r in rounds]))
    print(_line("runs shown, from s pressed at once", [r["runs_s"] for r in at_once]))
    print(_line("  CPU seconds of the app's process", [r["runs_cpu_s"] for r in at_once]))
    print(_line("numbers under unjudged=zero, from z", [r["zero_s"] for r in rounds], goal=1.0))
    print(_line("  CPU seconds of the app's process", [r["zero_cpu_s"] for r in rounds]))
    # a grade the screen never caught up with counts as the whole window
    delays = [[d if d is not None else r["wall_s"] for d in r["delays"]] for r in rounds]
    print(_line("grade to numbers: median", [statistics.median(d) for d in delays], goal=1.0))
    print(_line("grade to numbers: 90th percentile", [_quantile(d, 0.9) for d in delays]))
    print(_line("grade to numbers: max", [max(d) for d in delays]))
    print(_line("CPU seconds while grading", [r["cpu_s"] for r in rounds]))
    print(_line("  of wall seconds", [r["wall_s"] for r in rounds]))
    stored = [float(r["evaluations_after"] - r["evaluations_before"]) for r in rounds]
    print(_line("rows added to evaluations", stored, unit="rows"))
    if args.json:
        args.json.write_text(json.dumps({"rounds": rounds, "at_once": at_once}, indent=1))


if __name__ == "__main__":
    main()
