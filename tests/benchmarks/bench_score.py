#!/usr/bin/env python3
"""Scoring benchmark: judgepool's ``score`` command against its peers on a 7 M-line run.

Provides a command-line script (not a pytest test) that generates the MS MARCO
dev-small-scale synthetic run (6,980 queries x 1,000 hits) with the data folder's
``make_large_run.py``, caches it, and scores it with nDCG@10 against the dev-small
qrels using judgepool, ir_measures, ranx, pytrec_eval and, when one is on PATH, the
trec_eval binary. Every tool runs in its own fresh process in every round, so the
import cost and the peak memory are that process's own; rounds are interleaved so
machine noise falls on all tools alike. It prints a table of medians and ratios and,
with ``--json``, writes every measurement to a file.

The measuring is in `score_bench_measure.py`, the summary and verdict in
`score_bench_summary.py`, both beside this script.

    .venv/bin/python tests/benchmarks/bench_score.py [--rounds 5]
        [--tools judgepool,ir_measures,ranx,pytrec_eval,trec_eval]
        [--profile bm25|rerank] [--data DIR] [--workdir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench_measure import (
    DEFAULT_DATA,
    DEFAULT_WORKDIR,
    GENERATOR,
    QRELS,
    QUERIES,
    TOOLS,
    Measurement,
    ensure_run,
    measure,
    warm_page_cache,
)
from score_bench_summary import PEERS, print_table, summarise, verdict_lines, version_of


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help=f"folder with {GENERATOR}, {QRELS}, {QUERIES} (default: %(default)s)",
    )
    ap.add_argument(
        "--workdir",
        type=Path,
        default=DEFAULT_WORKDIR,
        help="where the generated run is cached (default: %(default)s, git-ignored)",
    )
    ap.add_argument(
        "--profile",
        choices=("bm25", "rerank"),
        default="bm25",
        help="generator profile (default: %(default)s)",
    )
    ap.add_argument("--rounds", type=int, default=5, help="rounds per tool (default: %(default)s)")
    ap.add_argument(
        "--tools", default=",".join(TOOLS), help="comma-separated subset of: " + ",".join(TOOLS)
    )
    ap.add_argument(
        "--numba-cold",
        action="store_true",
        help="give ranx an empty numba cache every round, so every round pays "
        "the JIT compile a first-time user pays",
    )
    ap.add_argument("--json", type=Path, default=None, help="write all measurements here")
    args = ap.parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        ap.error(f"--tools: unknown {unknown}; choose from {','.join(TOOLS)}")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    args.tool_list = [t for t in TOOLS if t in tools]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tools: list[str] = args.tool_list
    if "trec_eval" in tools and shutil.which("trec_eval") is None:
        print("trec_eval: not found on PATH, skipped")
        tools.remove("trec_eval")
    if not tools:
        return 1
    qrels = args.data / QRELS
    run = ensure_run(args.data, args.workdir, args.profile)
    warm_page_cache(run)

    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.platform()}"
    )
    if "ranx" in tools:
        state = (
            "emptied before every round (--numba-cold)"
            if args.numba_cold
            else "the normal on-disk cache; each ranx line says whether that round compiled"
        )
        print(
            "note: ranx compiles its measures with numba's JIT on first use, a cost a user "
            "pays in a fresh process; numba keeps the compiled code on disk, so later "
            f"processes mostly load it. Cache: {state}."
        )
    print(
        f"rounds: {args.rounds}, interleaved, order rotated each round; "
        "each tool is a fresh process (imports and file reading are included)\n"
    )

    results: list[Measurement] = []
    for rnd in range(1, args.rounds + 1):
        shift = (rnd - 1) % len(tools)
        for tool in tools[shift:] + tools[:shift]:
            m = measure(tool, rnd, run, qrels, args.numba_cold)
            results.append(m)
            status = (
                f"nDCG@10 {m.ndcg:.6f}"
                if m.ok and m.ndcg is not None
                else f"FAILED {str(m.error)[:300]}"
            )
            extra = "".join(f"  [{v}]" for v in m.notes.values())
            if m.others_cpu_s is not None:
                extra += f"  [others: {m.others_cpu_s / m.wall_s:.2f} cores]"
            print(
                f"  round {rnd} {tool:<12} {m.wall_s:7.2f} s {m.peak_rss_mb:7.0f} MB  "
                f"{status}{extra}",
                flush=True,
            )
    print()
    summary = summarise(results, tools)
    print_table(summary)
    print(
        "x peer: median wall time / median of the fastest of "
        + ", ".join(PEERS)
        + "; peak MB = peak resident memory of the process (10^6 bytes)"
    )
    compiled = [
        m
        for m in results
        if m.tool == "ranx" and m.notes.get("numba", "").startswith(("compiled", "empty"))
    ]
    if compiled:
        rounds = ", ".join(f"round {m.round} {m.wall_s:.2f} s" for m in compiled)
        print(f"ranx paid the numba JIT compile in: {rounds} (included in its median)")
    others = [m.others_cpu_s / m.wall_s for m in results if m.others_cpu_s is not None]
    if others:
        busy = statistics.mean(others)
        print(
            f"other processes used {busy:.2f} cores on average while the tools ran"
            + (" (noisy: trust medians and ratios, not single times)" if busy > 0.25 else "")
        )
    for line in verdict_lines(summary):
        print(line)

    if args.json is not None:
        doc = {
            "benchmark": "score nDCG@10, MS MARCO dev-small synthetic 1000-deep run",
            "run": str(run),
            "run_bytes": run.stat().st_size,
            "qrels": str(qrels),
            "profile": args.profile,
            "rounds": args.rounds,
            "numba_cold": args.numba_cold,
            "machine": {
                "cores": os.cpu_count(),
                "python": platform.python_version(),
                "platform": platform.platform(),
            },
            "versions": {
                d: version_of(d)
                for d in ("judgepool", "ir_measures", "ranx", "pytrec_eval-terrier", "numba")
            },
            "summary": summary,
            "measurements": [asdict(m) for m in results],
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0 if all(m.ok for m in results) else 1


if __name__ == "__main__":
    sys.exit(main())
