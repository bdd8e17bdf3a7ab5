"""Benchmark: importing a 1 M-line run, 100 k qrels lines and 100 k documents into a workspace.

Not a test (pytest does not collect it). Run it with::

    python tests/benchmarks/bench_import.py [--run-lines N] [--qrels-lines N] [--documents N]
        [--rounds N]

Defaults: 1,000,000 run lines, 100,000 qrels lines, 100,000 documents, 5
rounds. It writes a synthetic run (1,000 queries x 1,000 documents, TREC
format), qrels (grades 0..3) and documents (TSV, a 4-word title and 60 words
of text from a 5,000-word vocabulary: each is indexed for full-text search as
it goes in) into a temporary folder, imports each into a fresh workspace
``--rounds`` times through `judgepool.services.imports` (the path the CLI
and the app take: read, check, write in one transaction, commit), and prints
the median time and lines per second. The goal is at least 600,000 run lines
per second (what the import held when sqlite-utils' bulk inserts were
measured against the hand-written ones: see the README's dependencies).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from judgepool.services.imports import import_documents, import_run
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import init_workspace, open_workspace

GOAL_RUN_LINES_PER_SECOND = 600_000


def write_run(path: Path, lines: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    depth = 1000
    with open(path, "w") as out:
        for start in range(0, lines, depth):
            query = f"q{100000 + start // depth}"
            scores = sorted(
                (rng.uniform(0, 40) for _ in range(min(depth, lines - start))), reverse=True
            )
            out.writelines(
                f"{query} Q0 D{rng.randrange(8_841_823):07d} {rank} {score:.4f} bench\n"
                for rank, score in enumerate(scores, start=1)
            )


def write_qrels(path: Path, lines: int, seed: int = 2) -> None:
    rng = random.Random(seed)
    per_query = 100
    with open(path, "w") as out:
        for start in range(0, lines, per_query):
            query = f"q{100000 + start // per_query}"
            docs = rng.sample(range(8_841_823), min(per_query, lines - start))
            out.writelines(f"{query} 0 D{doc:07d} {rng.randint(0, 3)}\n" for doc in docs)


def write_documents(path: Path, count: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(5000)]
    with open(path, "w") as out:
        for number in range(count):
            text = " ".join(rng.choice(words) for _ in range(60))
            title = " ".join(rng.choice(words) for _ in range(4))
            out.write(f"D{number:07d}\t{text}\t{title}\n")


def timed_rounds(rounds: int, folder: Path, action: Callable[[Path], None]) -> list[float]:
    times: list[float] = []
    for index in range(rounds):
        target = folder / f"bench-{action.__name__}-{index}.sqlite"
        ws = init_workspace(target)
        ws.close()
        started = time.perf_counter()
        action(target)
        times.append(time.perf_counter() - started)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-lines", type=int, default=1_000_000)
    parser.add_argument("--qrels-lines", type=int, default=100_000)
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="judgepool-bench-") as name:
        folder = Path(name)
        run_path, qrels_path = folder / "bench.run", folder / "bench.qrels"
        write_run(run_path, args.run_lines)
        write_qrels(qrels_path, args.qrels_lines)
        docs_path = folder / "bench.docs.tsv"
        write_documents(docs_path, args.documents)
        print(f"run:   {args.run_lines:,} lines, {run_path.stat().st_size / 1e6:.1f} MB")
        print(f"qrels: {args.qrels_lines:,} lines, {qrels_path.stat().st_size / 1e6:.1f} MB")
        print(f"docs:  {args.documents:,} lines, {docs_path.stat().st_size / 1e6:.1f} MB")

        def run(target: Path) -> None:
            with open_workspace(target) as ws:
                import_run(ws, run_path, name="bench")

        def qrels(target: Path) -> None:
            with open_workspace(target) as ws:
                import_qrels(ws, qrels_path)

        def docs(target: Path) -> None:
            with open_workspace(target) as ws:
                import_documents(ws, docs_path)

        results = {
            "run": (timed_rounds(args.rounds, folder, run), args.run_lines),
            "qrels": (timed_rounds(args.rounds, folder, qrels), args.qrels_lines),
            "docs": (timed_rounds(args.rounds, folder, docs), args.documents),
        }
    for label, (times, lines) in results.items():
        median = statistics.median(times)
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(
            f"import {label:5s}: median {median:.2f} s over {len(times)} rounds "
            f"({lines / median:,.0f} lines/s; best {lines / min(times):,.0f}); rounds: {shown}"
        )
    run_rate = args.run_lines / statistics.median(results["run"][0])
    verdict = "meets" if run_rate >= GOAL_RUN_LINES_PER_SECOND else "MISSES"
    print(f"goal {GOAL_RUN_LINES_PER_SECOND:,} run lines/s: {verdict} ({run_rate:,.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
