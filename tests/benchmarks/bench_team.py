#!/usr/bin/env python3
"""Team benchmark: ``progress`` and ``agreement`` on a workspace of 100 k
judgments by 5 annotators (goal: each under 1 s).

Provides a command-line script (not a pytest test). It builds a synthetic
workspace once (cached under ``.cache/``, git-ignored) through the services
the command line uses: 1,000 queries, one run of 50 documents per query
pooled at depth 50 (50 k items), assigned to 5 annotators with overlap 2
(``assign``: 20 k items each), and every assigned item graded by its
annotator (100 k grade events, as the app records them: with the seconds the
document was shown; one in fifty is marked unsure instead). Grades follow a
hidden "true" grade with noise, so the agreement values are those of a
plausible team, not of random numbers. Then it measures, interleaved round
by round:

- the whole command as a user runs it, in a fresh process (the console
  script beside ``sys.executable``): ``judgepool progress WS --format json``
  and ``judgepool agreement WS --format json``;
- beside them, ``judgepool settings WS``, a command that opens the same
  workspace and does next to nothing: the start-up every command pays
  (interpreter, imports, opening the file), so the commands' own work is seen
  apart from it;
- the same use cases in-process (open the workspace, compute, close);
- ``agreement --by query`` in-process, for information (no goal).

Each figure is the median of ``--rounds`` runs, with min and max.

    .venv/bin/python tests/benchmarks/bench_team.py [--rounds 7] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
CACHE = HERE / ".cache"

QUERIES = 1_000
DEPTH = 50
ANNOTATORS = ("ann1", "ann2", "ann3", "ann4", "ann5")
OVERLAP = 2
GOAL_SECONDS = 1.0


def build_workspace(path: Path, seed: int = 11) -> Path:
    from judgepool.services.assignments import assign
    from judgepool.services.imports import import_run
    from judgepool.services.pools import pool
    from judgepool.services.workspace import init_workspace
    from judgepool.store.ledger import append_event

    if path.exists():
        return path
    started = time.perf_counter()
    rng = random.Random(seed)
    building = path.with_name(path.name + ".building")
    building.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "bm25.trec"
        with run.open("w") as out:
            for q in range(QUERIES):
                for rank in range(1, DEPTH + 1):
                    out.write(f"q{q} Q0 d{q}-{rank} {rank} {100 - rank / 10:.3f} bm25\n")
        with init_workspace(building, scale="0..3") as ws:
            import_run(ws, run)
            pool(ws, depth=DEPTH)
            assign(ws, annotators=ANNOTATORS, overlap=OVERLAP, seed=seed)
            rows = ws.conn.execute(
                "SELECT annotator, query_id, doc_id FROM assigned_items ORDER BY rowid"
            ).fetchall()
            truth: dict[tuple[str, str], int] = {}
            rng.shuffle(rows)
            with ws.write() as conn:
                for annotator, query_id, doc_id in rows:
                    true = truth.setdefault((query_id, doc_id), rng.choice((0, 0, 1, 1, 2, 3)))
                    unsure = rng.random() < 0.02
                    noisy = min(3, max(0, true + rng.choice((-1, 0, 0, 0, 0, 1))))
                    append_event(
                        conn, query_id=query_id, doc_id=doc_id,
                        grade=None if unsure else noisy, unsure=unsure,
                        annotator=annotator, source="human", seconds=rng.uniform(3, 40),
                    )  # fmt: skip
    building.rename(path)
    print(f"built {path.name} in {time.perf_counter() - started:.1f} s")
    return path


def describe(path: Path) -> str:
    from judgepool.services.workspace import open_workspace

    with open_workspace(path) as ws:
        events, graded = ws.conn.execute(
            "SELECT (SELECT COUNT(*) FROM judgment_events), "
            "(SELECT COUNT(*) FROM current_judgments WHERE grade IS NOT NULL)"
        ).fetchone()
        annotators = ws.conn.execute("SELECT COUNT(*) FROM annotators").fetchone()[0]
    return f"{events:,} judgment events ({graded:,} grades) by {annotators} annotators"


def whole_command(*args: str) -> Callable[[], float]:
    script = Path(sys.executable).with_name("judgepool")

    def measure() -> float:
        started = time.perf_counter()
        done = subprocess.run([str(script), *args], capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {done.stderr}")
        return elapsed

    return measure


def in_process(path: Path, what: str) -> Callable[[], float]:
    from judgepool.services.agreement import workspace_agreement
    from judgepool.services.assignments import progress
    from judgepool.services.workspace import open_workspace

    def measure() -> float:
        started = time.perf_counter()
        with open_workspace(path) as ws:
            if what == "progress":
                progress(ws)
            elif what == "agreement":
                workspace_agreement(ws)
            else:
                workspace_agreement(ws, by_query=True)
        return time.perf_counter() - started

    return measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=CACHE)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    path = build_workspace(args.workdir / "team-bench-100k.sqlite")
    print(describe(path))
    measures = {
        "judgepool settings (process: start-up)": whole_command("settings", str(path)),
        "judgepool progress (process)": whole_command("progress", str(path), "--format", "json"),
        "judgepool agreement (process)": whole_command("agreement", str(path), "--format", "json"),
        "progress (in-process)": in_process(path, "progress"),
        "agreement (in-process)": in_process(path, "agreement"),
        "agreement --by query (in-process)": in_process(path, "by query"),
    }
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[0]} (2 cores)")
    times: dict[str, list[float]] = {name: [] for name in measures}
    names = list(measures)
    for round_ in range(args.rounds):
        # rotate the order each round, so noise falls on all alike
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            times[name].append(measures[name]())
    print(f"\nmedian (min-max) over {args.rounds} rounds; goal < {GOAL_SECONDS:.1f} s:")
    for name, values in times.items():
        median = statistics.median(values)
        timed = "by query" not in name and "start-up" not in name
        goal = "" if not timed else ("  met" if median < GOAL_SECONDS else "  MISSED")
        print(
            f"  {name:<40} {median * 1000:7.0f} ms  ({min(values) * 1000:.0f}-"
            f"{max(values) * 1000:.0f}){goal}"
        )
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[0]} (2 cores)")


if __name__ == "__main__":
    main()
