#!/usr/bin/env python3
"""Many runs at once: ``judgepool score`` of the 6 dev-scale runs with
``--jobs 1`` (one after another) beside the default ``--jobs`` (the cores).

A command-line script (not a pytest test). Each round runs both, each in a
fresh process (in a session of its own), interleaved and in alternating order
so that machine noise falls on both alike. Measured for each: wall time; CPU
time and peak memory of the whole process tree (the command, the forkserver
and its workers), by polling /proc every 20 ms: memory is the largest sum of
the tree's resident sizes seen at once, CPU the last seen user+system time of
every process (a worker's last < 20 ms may be missed). The outputs of both
must be identical, byte for byte.

It prints medians with min-max, the load average before each round, and the
goal: the default jobs at most 0.65x the time of --jobs 1 (issue 12). CPU/wall
says how many cores each used: --jobs 1 already uses more than one (pyarrow
reads with its threads), which bounds what 2 cores can give.

    .venv/bin/python tests/benchmarks/bench_parallel.py [--rounds 3]
        [--runs RUN ...] [--qrels FILE] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"  # bench_compare.py's six generated runs are cached here
# The project's shared data folder sits beside the repository (../shared/data).
QRELS = (
    HERE.parents[2]
    / "shared"
    / "data"
    / "msmarco-passage-dev-small"
    / ("qrels.msmarco-passage.dev-subset.txt")
)
GOAL_RATIO = 0.65
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Measured:
    jobs: str
    round: int
    wall_s: float
    cpu_s: float
    peak_mb: float
    load: float
    output: str  # sha256 of stdout


def default_runs() -> list[Path]:
    runs = []
    for profile in ("bm25", "rerank"):
        for seed in (13, 14, 15):
            runs.extend(sorted(CACHE.glob(f"dev-small-{profile}-s{seed}-d1000-*.run")))
    return runs


def tree_sample(session: int) -> dict[int, tuple[float, int]]:
    """Every process of ``session``: (user+system seconds, resident bytes)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) != session:
            continue
        cpu = (int(fields[11]) + int(fields[12])) / TICKS
        found[int(entry)] = (cpu, int(fields[21]) * PAGE)
    return found


def measure(jobs: str, rnd: int, runs: list[Path], qrels: Path) -> Measured:
    script = Path(sys.executable).parent / "judgepool"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "judgepool"]
    argv = [*base, "score", *map(str, runs), "--qrels", str(qrels), "--preset", "trec_eval",
            "-k", "10", "--format", "json"]  # fmt: skip
    if jobs != "default":
        argv += ["--jobs", jobs]
    load = os.getloadavg()[0]
    cpu: dict[int, float] = {}
    peak = 0
    started = time.perf_counter()
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          start_new_session=True) as child:  # fmt: skip
        # six JSON lines and no progress (not a tty): the pipes cannot fill up
        sample = tree_sample(child.pid)
        while child.poll() is None:
            for pid, (used, _rss) in sample.items():
                cpu[pid] = max(cpu.get(pid, 0.0), used)
            peak = max(peak, sum(rss for _, rss in sample.values()))
            time.sleep(0.02)
            sample = tree_sample(child.pid)
        wall = time.perf_counter() - started
        stdout, stderr = child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"{argv} failed ({child.returncode}): {stderr.decode()[-2000:]}")
    return Measured(jobs, rnd, wall, sum(cpu.values()), peak / 2**20, load,
                    hashlib.sha256(stdout).hexdigest()[:16])  # fmt: skip


def spread(values: list[float], spec: str) -> str:
    return f"{statistics.median(values):{spec}} ({min(values):{spec}}-{max(values):{spec}})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=Path, nargs="*", default=None)
    ap.add_argument("--qrels", type=Path, default=QRELS)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    runs = args.runs or default_runs()
    if not runs:
        raise SystemExit(f"no runs given and none cached in {CACHE}")
    cores = len(os.sched_getaffinity(0))
    print(f"{len(runs)} runs, {cores} cores, {args.rounds} rounds, interleaved")
    for run in runs:  # untimed: the first measurement must not pay for the disk
        with run.open("rb") as f:
            while f.read(1 << 24):
                pass
    results: list[Measured] = []
    for rnd in range(1, args.rounds + 1):
        order = ["1", "default"] if rnd % 2 else ["default", "1"]
        for jobs in order:
            m = measure(jobs, rnd, runs, args.qrels)
            results.append(m)
            print(f"  round {rnd} --jobs {jobs:8} wall {m.wall_s:6.2f} s  cpu {m.cpu_s:6.2f} s  "
                  f"peak {m.peak_mb:7.0f} MB  load {m.load:.2f}", flush=True)  # fmt: skip
    outputs = {m.output for m in results}
    if len(outputs) != 1:
        print(f"OUTPUTS DIFFER: {outputs}")
        return 1
    print("outputs identical across jobs and rounds")
    summary = {}
    for jobs in ("1", "default"):
        mine = [m for m in results if m.jobs == jobs]
        walls = [m.wall_s for m in mine]
        summary[jobs] = {
            "wall_s": statistics.median(walls),
            "cores_used": statistics.median(m.cpu_s / m.wall_s for m in mine),
        }
        print(f"--jobs {jobs:8} wall {spread(walls, '.2f')} s  "
              f"cpu {spread([m.cpu_s for m in mine], '.2f')} s  "
              f"cpu/wall {summary[jobs]['cores_used']:.2f}  "
              f"peak {spread([m.peak_mb for m in mine], '.0f')} MB")  # fmt: skip
    ratios = [
        d.wall_s / s.wall_s
        for s, d in zip(
            [m for m in results if m.jobs == "1"],
            [m for m in results if m.jobs == "default"],
            strict=True,
        )
    ]
    ratio = summary["default"]["wall_s"] / summary["1"]["wall_s"]
    print(f"ratio of medians {ratio:.3f} (per round {', '.join(f'{r:.2f}' for r in ratios)}); "
          f"goal <= {GOAL_RATIO}: {'met' if ratio <= GOAL_RATIO else 'NOT met'}")  # fmt: skip
    if args.json is not None:
        doc = {"runs": list(map(str, runs)), "cores": cores, "ratio": ratio,
               "results": [asdict(m) for m in results]}  # fmt: skip
        args.json.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
