#!/usr/bin/env python3
"""What ``compare`` costs per pair of runs: the measurements behind the limit
`judgepool.core.comparing.comparison_size` puts on a comparison before any run is read.

A command-line script (not a pytest test). It writes N runs over the 43 judged
DL19 passage queries (`tests/data/dl19-passage`): each a copy of the top 30 of
one of the six DL19 runs with a few neighbours swapped (seeded), so that the
runs differ as systems do, in ``.cache/`` (a few MB). Then, for each number of
runs and each setting of the draws, it runs ``judgepool compare RUN... --qrels
QRELS --unjudged zero --format json`` as a fresh process and reads its peak
resident memory (``os.wait4``) and CPU time, and prints them beside what
`estimate_comparison` predicts, with the memory per pair (above `BASE_BYTES`).

    .venv/bin/python tests/benchmarks/bench_compare_pairs.py [--runs 40,80,160,218]
        [--draws 10000/10000,1000/1000,10000/1]

(each draws setting is PERMUTATIONS/BOOTSTRAP; the largest case, 218 runs and
23,653 pairs at the default draws, is the most the limit lets through: about
a minute and a half of CPU and 4 GB).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from judgepool.core.comparing.comparison_size import BASE_BYTES, estimate_comparison

HERE = Path(__file__).resolve().parent
DL19 = HERE.parent / "data" / "dl19-passage"
QRELS = DL19 / "qrels.dl19-passage.txt.gz"
CACHE = HERE / ".cache" / "compare-pairs"  # git-ignored
DEPTH = 30  # ranks kept of each DL19 run
SWAPS = 5  # neighbour swaps per query that make each copy a run of its own


def base_runs() -> list[dict[str, list[str]]]:
    """The six DL19 runs' top ``DEPTH`` per query."""
    runs = []
    for path in sorted((DL19 / "runs").glob("*.trec.gz")):
        lists: dict[str, list[str]] = {}
        with gzip.open(path, "rt", encoding="ascii") as lines:
            for line in lines:
                query, _, doc, rank, _score, _tag = line.split()
                if int(rank) <= DEPTH:
                    lists.setdefault(query, []).append(doc)
        runs.append(lists)
    return runs


def write_runs(count: int) -> list[Path]:
    """``count`` runs in the cache (written once)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    paths = [CACHE / f"r{i:05d}.trec" for i in range(count)]
    missing = [i for i, path in enumerate(paths) if not path.exists()]
    if missing:
        bases = base_runs()
        for i in missing:
            rng = random.Random(i)
            lines = []
            for query, docs in bases[i % len(bases)].items():
                docs = list(docs)
                for _ in range(SWAPS):
                    j = rng.randrange(len(docs) - 1)
                    docs[j], docs[j + 1] = docs[j + 1], docs[j]
                lines += [
                    f"{query} Q0 {d} {r} {DEPTH + 1 - r} r{i}\n" for r, d in enumerate(docs, 1)
                ]
            paths[i].write_text("".join(lines), encoding="ascii")
    return paths


def measure(runs: list[Path], permutations: int, bootstrap: int) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MB) of one ``judgepool compare`` process."""
    command = [
        sys.executable, "-m", "judgepool", "compare", *map(str, runs), "--qrels", str(QRELS),
        "--unjudged", "zero", "--format", "json", "--permutations", str(permutations),
        "--bootstrap", str(bootstrap),
    ]  # fmt: skip
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"compare failed ({status}): {process.stderr.read().decode()[:500]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="40,80,160,218")
    parser.add_argument("--draws", default="10000/10000,1000/1000,10000/1")
    args = parser.parse_args()
    counts = [int(n) for n in args.runs.split(",")]
    draws = [tuple(int(x) for x in d.split("/")) for d in args.draws.split(",")]
    paths = write_runs(max(counts))
    queries = 43
    print(f"{'runs':>5} {'pairs':>7} {'perms':>6} {'boot':>6} {'wall s':>7} {'cpu s':>7} "
          f"{'peak MB':>8} {'est. MB':>8} {'est. cpu s':>10} {'kB/pair':>8}")  # fmt: skip
    for count in counts:
        for permutations, bootstrap in draws:
            pairs = count * (count - 1) // 2
            wall, cpu, peak = measure(paths[:count], permutations, bootstrap)
            estimate = estimate_comparison(count, pairs, queries, 10, permutations, bootstrap)
            print(
                f"{count:>5} {pairs:>7} {permutations:>6} {bootstrap:>6} {wall:>7.2f} {cpu:>7.2f} "
                f"{peak:>8.0f} {estimate.memory / 1e6:>8.0f} {estimate.seconds:>10.1f} "
                f"{(peak - BASE_BYTES / 1e6) * 1e3 / pairs:>8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
