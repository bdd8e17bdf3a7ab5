#!/usr/bin/env python3
"""Big-document benchmark: how long the grade screen takes to show a 10.8 MB
document, how long grading it and showing the next one takes, and the peak
memory of the app's process.

Provides a command-line script (not a pytest test). It builds a workspace in a
temporary folder through the same import services the command line uses: one
query, a pool of three documents, one of them about 10.8 million characters
(``--megabytes``; words of the query among others, as one line or, with
``--lines``, as many lines). Then, in a fresh child process per round (so the
peak resident set is the app's own, read with ``os.wait4``), with the Pilot
(``App.run_test``) it measures

- show: from creating the app, positioned on the big document, to the first
  frame drawn showing it (frames are rendered to terminal codes, as a real
  terminal session would);
- next: from the grade key on the big document to the first frame showing the
  next document (the grade committed first);

and stops a round that has not shown the document after ``--timeout`` seconds.

    .venv/bin/python tests/benchmarks/bench_big_document.py [--rounds 3] [--lines]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

BIG = "big-passage"  # not last in the grading order: grading it moves on
WORDS = re.findall(
    r"\w+",
    "tea water leaf green brew brewing steep hot cup cold boil plant river city history "
    "market science energy light music engine garden winter summer ocean mountain village",
)


def build_workspace(path: Path, megabytes: float, lines: bool) -> Path:
    """A workspace with query ``teach`` and a pool of ``big``, ``small-1`` and ``small-2``."""
    from judgepool.services.imports import import_documents, import_queries, import_run
    from judgepool.services.pools import pool
    from judgepool.services.workspace import init_workspace

    folder = path.parent
    rng = random.Random(5)
    size = int(megabytes * 1_000_000)
    parts: list[str] = []
    written = 0
    while written < size:
        word = rng.choice(WORDS)
        separator = "\n" if lines and rng.random() < 0.1 else " "
        parts.append(word + separator)
        written += len(word) + 1
    big_text = "".join(parts)[:size]
    docs = folder / "docs.jsonl"
    with docs.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"id": BIG, "text": big_text}) + "\n")
        for name in ("small-1", "small-2"):
            out.write(json.dumps({"id": name, "text": "green tea, brewed " + name}) + "\n")
    queries = folder / "queries.tsv"
    queries.write_text("teach\thow do I brew a good cup of green tea\n")
    run = folder / "run.trec"
    run.write_text(
        "".join(
            f"teach Q0 {doc} {rank} {10 - rank} r\n"
            for rank, doc in enumerate((BIG, "small-1", "small-2"), 1)
        )
    )
    with init_workspace(path, scale="0..3") as ws:
        import_queries(ws, queries)
        import_documents(ws, docs)
        import_run(ws, run, name="r")
        pool(ws, depth=10)
    return path


async def _measure(path: Path) -> dict[str, Any]:
    """One round, in this process: seconds to show the big document and to show
    the next one after grading it."""
    from textual import events

    from judgepool.services.workspace import open_workspace
    from judgepool.tui.app import create_app
    from judgepool.tui.grading import read_session
    from tests.benchmarks.bench_app import FrameClock, _grade_screen

    started = time.perf_counter()
    ws = open_workspace(path)
    session = read_session(ws, "bench")
    session.goto("teach", BIG)
    app = create_app(path, "bench", session, ws)
    clock = FrameClock(app)
    async with app.run_test(size=(120, 40)):
        shown = await clock.first_frame_showing(BIG, started, timeout=3600)
        screen = _grade_screen(app)
        pressed = time.perf_counter()
        driver = app._driver
        assert driver is not None
        driver.send_message(events.Key("2", "2"))
        while screen.session.current == ("teach", BIG):
            await asyncio.sleep(0.0005)
        following = screen.session.current[1]
        after = await clock.first_frame_showing(following, pressed, timeout=3600)
    return {"show": shown - started, "next": after - pressed, "peak_mb": _peak_rss_mb()}


def _peak_rss_mb(pid: int | str = "self") -> float | None:
    """A process's peak resident set so far (VmHWM), None once it is gone. Not
    ``ru_maxrss`` from ``wait4``: Linux carries the parent's peak into a child."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    return None


def _round(path: Path, timeout: float) -> dict[str, Any]:
    """One round in a child process, stopped after ``timeout`` seconds: its figures
    and its peak resident set (MB; when stopped, the peak until then)."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", str(path)], stdout=out, start_new_session=True
        )
        started = time.perf_counter()
        peak = None
        while child.poll() is None and time.perf_counter() - started < timeout:
            peak = _peak_rss_mb(child.pid) or peak
            time.sleep(0.05)
        timed_out = child.poll() is None
        if timed_out:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return {"show": None, "next": None, "peak_mb": peak, "timed_out": True}
        out.seek(0)
        figures: dict[str, Any] = json.loads(out.read())
    figures["timed_out"] = False
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--megabytes", type=float, default=10.8)
    parser.add_argument("--lines", action="store_true", help="a document of many lines")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(asyncio.run(_measure(args.child))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = build_workspace(Path(tmp) / "big.sqlite", args.megabytes, args.lines)
        shape = "many lines" if args.lines else "one line"
        print(f"a {args.megabytes} MB document ({shape}), {args.rounds} rounds", flush=True)
        rounds = []
        for _ in range(args.rounds):
            copy = Path(tmp) / f"round-{time.monotonic_ns()}.sqlite"
            copy.write_bytes(path.read_bytes())  # no connection is open on it here
            figures = _round(copy, args.timeout)
            print(json.dumps(figures), flush=True)
            rounds.append(figures)
    done = [r for r in rounds if not r["timed_out"]]
    peak = statistics.median(r["peak_mb"] or 0 for r in rounds)
    if done:
        show = statistics.median(r["show"] for r in done)
        after = statistics.median(r["next"] for r in done)
        print(f"show: median {show:.3f} s; grade to next shown: median {after:.3f} s")
    print(f"peak RSS of the app's process: median {peak:.0f} MB")
    stopped = len(rounds) - len(done)
    print(f"{stopped} of {len(rounds)} rounds stopped (after {args.timeout:.0f} s)")


if __name__ == "__main__":
    main()
