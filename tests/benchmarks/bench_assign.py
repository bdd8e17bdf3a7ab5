#!/usr/bin/env python3
"""Assignment benchmark: ``judgepool assign`` with 100, 200 and 1,000
annotators (issue 17: it was about cubic in annotators at a large overlap).

Provides a command-line script (not a pytest test). Two shapes, each on a
workspace built once (cached under ``.cache/``, git-ignored) through the
services the command line uses:

- ``everyone``: 36 pooled items (3 queries of 12, the team tests' workspace)
  and ``--overlap`` equal to the number of annotators: every annotator gets
  every item, the case the issue timed;
- ``overlap 3``: 10,000 pooled items (200 queries of 50) and ``--overlap 3``.

For each, and each number of annotators, it measures the whole command in a
fresh process (the console script beside ``sys.executable``: start-up,
reading the pool, assigning, writing one row per annotator and item) on a
fresh copy of the workspace, and the assignment alone
(`judgepool.core.team.assignment.balanced_assignment`) in a fresh process; each
run is stopped after ``--timeout`` seconds and reported as more than that.
Each figure is the median of ``--rounds`` runs.

    .venv/bin/python tests/benchmarks/bench_assign.py [--rounds 3] [--timeout 120]
        [--annotators 100,200,1000] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
CACHE = HERE / ".cache"

# shape: (queries, documents per query, overlap; None: every annotator)
SHAPES: dict[str, tuple[int, int, int | None]] = {
    "everyone": (3, 12, None),
    "overlap 3": (200, 50, 3),
}

CORE_SCRIPT = """
import sys, time
from judgepool.core.team.assignment import balanced_assignment
units, annotators, overlap = (int(x) for x in sys.argv[1:4])
names = [f"a{i:04d}" for i in range(annotators)]
started = time.perf_counter()
balanced_assignment(list(range(units)), names, overlap, seed=0)
print(time.perf_counter() - started)
"""


def build_workspace(path: Path, queries: int, depth: int) -> Path:
    from judgepool.services.imports import import_run
    from judgepool.services.pools import pool
    from judgepool.services.workspace import init_workspace

    if path.exists():
        return path
    building = path.with_name(path.name + ".building")
    building.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "bm25.trec"
        with run.open("w") as out:
            for q in range(queries):
                for rank in range(1, depth + 1):
                    out.write(f"q{q} Q0 d{q}-{rank} {rank} {100 - rank / 10:.3f} bm25\n")
        with init_workspace(building, scale="0..3") as ws:
            import_run(ws, run)
            pool(ws, depth=depth)
    building.rename(path)
    return path


def timed(command: list[str], timeout: float) -> float | None:
    """Wall seconds of ``command`` (None: stopped after ``timeout``)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed: {done.stderr}")
    return time.perf_counter() - started


def core_seconds(units: int, annotators: int, overlap: int, timeout: float) -> float | None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CORE_SCRIPT, str(units), str(annotators), str(overlap)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"the core assignment failed: {done.stderr}")
    return float(done.stdout)


def shown(values: list[float | None], timeout: float) -> str:
    if any(value is None for value in values):
        return f"> {timeout:.0f} s"
    measured = [value for value in values if value is not None]
    return f"{statistics.median(measured):.2f} s ({min(measured):.2f}-{max(measured):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--annotators", default="100,200,1000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--workdir", type=Path, default=CACHE)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    script = Path(sys.executable).with_name("judgepool")
    counts = [int(part) for part in args.annotators.split(",")]
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[0]} (2 cores)")
    for shape in args.shapes.split(","):
        queries, depth, fixed = SHAPES[shape]
        ws = build_workspace(args.workdir / f"assign-{queries}x{depth}.sqlite", queries, depth)
        units = queries * depth
        print(f"\n{shape}: {units:,} pooled items; median (min-max) of {args.rounds} rounds")
        print(f"  {'annotators':>10}  {'overlap':>7}  {'rows':>9}  {'assign (process)':<24}  core")
        for annotators in counts:
            overlap = annotators if fixed is None else fixed
            names = ",".join(f"a{i:04d}" for i in range(annotators))
            whole: list[float | None] = []
            core: list[float | None] = []
            for _ in range(args.rounds):
                with tempfile.TemporaryDirectory() as tmp:
                    copy = Path(tmp) / "ws.sqlite"
                    shutil.copyfile(ws, copy)
                    command = [str(script), "assign", str(copy), "--annotators", names]
                    command += ["--overlap", str(overlap)]
                    whole.append(timed(command, args.timeout))
                core.append(core_seconds(units, annotators, overlap, args.timeout))
                if whole[-1] is None and core[-1] is None:
                    break  # another round would only wait as long again
            print(
                f"  {annotators:>10,}  {overlap:>7,}  {units * overlap:>9,}  "
                f"{shown(whole, args.timeout):<24}  {shown(core, args.timeout)}"
            )
    print(f"\nload average after: {Path('/proc/loadavg').read_text().split()[0]} (2 cores)")


if __name__ == "__main__":
    main()
