#!/usr/bin/env python3
"""Prelabel benchmark: 1,000 items graded by the local judge server.

A workspace of 100 queries with a run of 10 documents each (k = 10, nothing
judged: 1,000 holes), the simulated judge of the tests (`tests.openai_judge`,
aiohttp on 127.0.0.1) answering each request after ``--latency`` seconds
(default 0.05, a served model's time to first token on a short answer), and
``judgepool prelabel WS --concurrency 8`` run as the real command, in a
subprocess, timed from start to exit (Python's start, finding the holes,
the 1,000 requests and 1,000 transactions, the summary). Goal (issue 20):
under 30 s on the 2-core machine; the floor set by the latency alone is
1,000 × 0.05 / 8 = 6.25 s.

    .venv/bin/python tests/benchmarks/bench_prelabel.py [--items 1000]
        [--latency 0.05] [--concurrency 8]

Then it checks that every item holds exactly one label of the model.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.openai_judge import JudgeConfig, judge_server  # noqa: E402
from tests.prelabel_support import holed_workspace  # noqa: E402

GOAL_SECONDS = 30.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    queries = max(1, args.items // 10)
    with tempfile.TemporaryDirectory() as folder:
        holed = holed_workspace(Path(folder), queries=queries, depth=10)
        config = JudgeConfig(grades=holed.grades, latency=args.latency, noise=0.2)
        with judge_server(config) as server:
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "judgepool", "prelabel", str(holed.path),
                 "--model", "bench", "--endpoint", server.url,
                 "--concurrency", str(args.concurrency), "--json"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            seconds = time.perf_counter() - started
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        summary = json.loads(done.stdout)
        conn = sqlite3.connect(holed.path)
        events, items = conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT query_id || ' ' || doc_id) FROM judgment_events "
            "WHERE annotator = 'model:bench'"
        ).fetchone()
        conn.close()
    total = len(holed.items)
    floor = total * args.latency / args.concurrency
    print(
        f"prelabel: {total:,} items, server latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}: {seconds:.2f} s wall "
        f"({summary['seconds']:.2f} s in the batch; latency floor {floor:.2f} s); "
        f"{total / seconds:.0f} items/s"
    )
    print(f"labelled {summary['labelled']:,}, failed {summary['failed']}, events {events:,}")
    ok = seconds < GOAL_SECONDS and summary["labelled"] == total and events == items == total
    print(f"goal: < {GOAL_SECONDS:.0f} s, one label per item: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
