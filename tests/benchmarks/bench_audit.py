#!/usr/bin/env python3
"""Audit benchmark: ``judgepool audit`` beside ``judgepool score`` on the 7 M-line run.

A command-line script (not a pytest test), beside `bench_score.py`, whose run
generation, child measurement (wall time, CPU time, peak RSS of exactly that
process, via ``os.wait4``) and page-cache warming it reuses. Every round runs,
each in a fresh process, interleaved so that machine noise falls on all alike:

- ``score``: ``judgepool score RUN --preset trec_eval -k 10 --format json``;
- ``audit``: ``judgepool audit RUN`` with the same contract (the fast engine);
- ``score+audit``: ``judgepool score --audit`` (both in one pass);
- ``audit-reference`` (only with ``--reference``): ``audit --engine reference``,
  once per round; it takes about a minute and 3 GB.

It prints medians with min-max, the peak memory, the machine's load average,
and the goal: audit at most 1.5x the time of scoring, under 1 GB. Every
audit's JSON must be identical across tools and rounds (the reference's too).

    .venv/bin/python tests/benchmarks/bench_audit.py [--rounds 3] [--reference]
        [--profile bm25|rerank] [--data DIR] [--workdir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench_measure import (
    DEFAULT_DATA,
    DEFAULT_WORKDIR,
    QRELS,
    ensure_run,
    run_child,
    warm_page_cache,
)

GOAL_RATIO = 1.5
GOAL_PEAK_MB = 1000.0


def judgepool_argv(command: list[str], run: Path, qrels: Path) -> list[str]:
    script = Path(sys.executable).parent / "judgepool"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "judgepool"]
    contract = ["--qrels", str(qrels), "--preset", "trec_eval", "-k", "10", "--format", "json"]
    return [*base, *command, str(run), *contract]


COMMANDS = {
    "score": ["score"],
    "audit": ["audit"],
    "score+audit": ["score", "--audit"],
    "audit-reference": ["audit", "--engine", "reference"],
}


def audit_digest(stdout: str) -> str | None:
    """The sha256 of the audit's JSON line, if the output has one."""
    for line in stdout.splitlines():
        if line.startswith("{") and '"findings"' in line:
            return hashlib.sha256(line.encode()).hexdigest()[:16]
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reference", action="store_true", help="also time the reference audit")
    ap.add_argument("--profile", choices=["bm25", "rerank"], default="bm25")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    run = ensure_run(args.data, args.workdir, args.profile)
    qrels = args.data / QRELS
    warm_page_cache(run)
    tools = ["score", "audit", "score+audit"] + (["audit-reference"] if args.reference else [])
    results: dict[str, list[dict[str, Any]]] = {tool: [] for tool in tools}
    loads: list[float] = []
    for number in range(1, args.rounds + 1):
        for tool in tools:
            loads.append(os.getloadavg()[0])
            child = run_child(judgepool_argv(COMMANDS[tool], run, qrels))
            entry = {
                "round": number,
                "ok": child.returncode == 0,
                "wall_s": child.wall_s,
                "cpu_s": child.cpu_s,
                "peak_rss_mb": child.peak_rss_mb,
                "others_cpu_s": child.others_cpu_s,
                "audit": audit_digest(child.stdout),
                "stderr": child.stderr.strip()[-500:],
            }
            results[tool].append(entry)
            print(
                f"round {number} {tool:16} {child.wall_s:6.2f} s  {child.peak_rss_mb:6.0f} MB"
                f"  exit {child.returncode}  audit {entry['audit']}",
                flush=True,
            )
    summary: dict[str, dict[str, Any]] = {}
    for tool, entries in results.items():
        ok = [e for e in entries if e["ok"]]
        if not ok:
            summary[tool] = {"ok_rounds": 0, "error": entries[0]["stderr"] if entries else None}
            continue
        walls = [e["wall_s"] for e in ok]
        summary[tool] = {
            "ok_rounds": len(ok),
            "median_wall_s": statistics.median(walls),
            "min_wall_s": min(walls),
            "max_wall_s": max(walls),
            "median_cpu_s": statistics.median(e["cpu_s"] for e in ok),
            "median_peak_rss_mb": statistics.median(e["peak_rss_mb"] for e in ok),
            "max_peak_rss_mb": max(e["peak_rss_mb"] for e in ok),
        }
    print(f"\n{'tool':16} {'median s':>9} {'min-max s':>13} {'cpu s':>7} {'peak MB':>8}")
    for tool, row in summary.items():
        if not row["ok_rounds"]:
            print(f"{tool:16} failed: {row['error']}")
            continue
        print(
            f"{tool:16} {row['median_wall_s']:9.2f} "
            f"{row['min_wall_s']:6.2f}-{row['max_wall_s']:<6.2f} "
            f"{row['median_cpu_s']:7.2f} {row['max_peak_rss_mb']:8.0f}"
        )
    print(
        f"load average (1 min) at each start: median {statistics.median(loads):.2f}, "
        f"{min(loads):.2f}-{max(loads):.2f}"
    )
    digests = {e["audit"] for tool in tools if tool != "score" for e in results[tool] if e["ok"]}
    same = len(digests) == 1
    print(
        f"every audit's JSON identical: {'yes' if same else 'NO: ' + ', '.join(map(str, digests))}"
    )
    passed = same
    if summary["score"]["ok_rounds"] and summary["audit"]["ok_rounds"]:
        ratio = summary["audit"]["median_wall_s"] / summary["score"]["median_wall_s"]
        peak = summary["audit"]["max_peak_rss_mb"]
        met = ratio <= GOAL_RATIO and peak < GOAL_PEAK_MB
        passed = passed and met
        print(
            f"goal: audit {ratio:.2f}x the score time (<= {GOAL_RATIO}x), peak {peak:.0f} MB "
            f"(< {GOAL_PEAK_MB:.0f} MB): {'met' if met else 'NOT met'}"
        )
    if args.json is not None:
        args.json.write_text(
            json.dumps({"summary": summary, "rounds": results, "loads": loads}, indent=2)
        )
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
