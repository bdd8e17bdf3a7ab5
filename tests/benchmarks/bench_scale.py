#!/usr/bin/env python3
"""Scale benchmark: ``judgepool score`` and ``audit``, the 6.98 M-line run and one ten times larger.

A command-line script (not a pytest test). The large run is the data folder's
``make_large_run.py`` with ``--depth 10000``: the same 6,980 MS MARCO dev-small
queries (so every query stays judged and the numbers mean something), each
with 10,000 passages instead of 1,000, 69.8 M lines and 2.8 GB. (Ten copies of
the dev-scale run with renamed queries would be 69.8 M lines too, but nine
tenths of their queries would be unknown to the qrels.) Both runs are cached
under ``--workdir`` (git-ignored by default; never commit them); generating the
large one takes two to three minutes.

Every round scores both runs, then audits both, each in a fresh process
(``judgepool score|audit RUN --qrels QRELS --preset trec_eval -k 10 --format
json``, as bench_score.py), and records wall time, CPU time, peak RSS and the
CPU time the rest of the machine used meanwhile. It prints medians with
min-max, the time ratios large / dev-scale (scoring; the large audit against
the dev-scale scoring and against the dev-scale audit; goal: at most 12) and
the large run's peak RSS (goal: under 1.5 GB), and with ``--json`` writes every
measurement.

    .venv/bin/python tests/benchmarks/bench_scale.py [--rounds 3] [--workdir DIR]
        [--data DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench_measure import (  # the script's own folder, put on the path above
    DEFAULT_DATA,
    DEFAULT_WORKDIR,
    GENERATOR,
    QRELS,
    QUERIES,
    ensure_run,
    file_digest,
    judgepool_argv,
    parse_judgepool,
    run_child,
    warm_page_cache,
)

LARGE_DEPTH = 10_000  # ten times the dev-scale run's 1,000 lines per query
GOAL_RATIO = 12.0
GOAL_PEAK_MB = 1500.0  # 1.5 GB = 1.5 x 10^9 bytes
DEV, LARGE = "dev-scale 6.98 M", "large 69.8 M"
JOBS = ("score", "audit")


@dataclass
class Round:
    """One run scored or audited once, in its own process."""

    run: str
    job: str
    round: int
    ok: bool
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    others_cpu_s: float | None
    load_1min: float
    value: float | None  # scoring's mean nDCG@10; an audit's judged share at 10
    error: str | None = None


def ensure_large_run(data: Path, workdir: Path) -> Path:
    """The cached ``--depth 10000`` run, generated first if it is not there."""
    gen, qrels, queries = data / GENERATOR, data / QRELS, data / QUERIES
    key = file_digest(gen, qrels, queries, extra=f"bm25 depth={LARGE_DEPTH}")[:12]
    workdir.mkdir(parents=True, exist_ok=True)
    target = workdir / f"dev-small-bm25-d{LARGE_DEPTH}-{key}.run"
    if target.is_file() and target.stat().st_size > 0:
        print(f"large run: {target} (cached, {target.stat().st_size / 1e6:.0f} MB)")
        return target
    partial = target.with_suffix(".partial")
    print(f"large run: generating {target.name} (--depth {LARGE_DEPTH}) ...", flush=True)
    start = time.perf_counter()
    command = [sys.executable, str(gen), str(qrels), str(queries), str(partial)]
    subprocess.run([*command, "--depth", str(LARGE_DEPTH)], check=True)
    os.replace(partial, target)
    print(f"large run: generated in {time.perf_counter() - start:.0f} s")
    return target


def measure_once(name: str, job: str, run: Path, qrels: Path, number: int) -> Round:
    """``judgepool score`` (job "score") or ``judgepool audit`` of ``run``, once."""
    load = os.getloadavg()[0]
    argv = judgepool_argv(run, qrels)
    if job == "audit":
        argv[argv.index("score")] = "audit"  # the same options: --preset, -k, --format
    result = run_child(argv)
    entry = Round(
        name, job, number, result.returncode == 0, result.wall_s, result.cpu_s,
        result.peak_rss_mb, result.others_cpu_s, load, None,
    )  # fmt: skip
    if not entry.ok:
        entry.error = result.stderr.strip()[-500:]
        return entry
    if job == "audit":
        entry.value = json.loads(result.stdout)["coverage"]["judged_at_k"]
    else:
        entry.value = parse_judgepool(result.stdout)[0]
    return entry


def spread(values: list[float], spec: str) -> str:
    return f"{statistics.median(values):{spec}} ({min(values):{spec}}-{max(values):{spec}})"


def report(rounds: list[Round]) -> list[str]:
    lines = []
    medians: dict[tuple[str, str], dict[str, float]] = {}
    for job in JOBS:
        for name in (DEV, LARGE):
            done = [r for r in rounds if (r.run, r.job) == (name, job) and r.ok]
            failed = [r for r in rounds if (r.run, r.job) == (name, job) and not r.ok]
            for r in failed:
                lines.append(f"{job} {name}: round {r.round} failed: {r.error}")
            if not done:
                continue
            walls = [r.wall_s for r in done]
            peaks = [r.peak_rss_mb for r in done]
            others = [r.others_cpu_s for r in done if r.others_cpu_s is not None]
            medians[name, job] = {"wall": statistics.median(walls), "peak": max(peaks)}
            measured = "nDCG@10" if job == "score" else "judged@10"
            lines.append(
                f"{job:5} {name:17} wall s {spread(walls, '.2f')}  cpu s "
                f"{spread([r.cpu_s for r in done], '.2f')}  peak MB {spread(peaks, '.0f')}  "
                f"others' cpu s {spread(others, '.1f') if others else '?'}  "
                f"load {spread([r.load_1min for r in done], '.2f')}  {measured} {done[0].value:.4f}"
            )
    ratios = [
        ("scoring: large score / dev-scale score", (LARGE, "score"), (DEV, "score")),
        ("large audit / dev-scale score", (LARGE, "audit"), (DEV, "score")),
        ("large audit / dev-scale audit", (LARGE, "audit"), (DEV, "audit")),
    ]
    for label, large, dev in ratios:
        if large in medians and dev in medians:
            ratio = medians[large]["wall"] / medians[dev]["wall"]
            lines.append(
                f"time ratio {label} (medians): {ratio:.2f}x "
                f"(goal <= {GOAL_RATIO:.0f}x: {'met' if ratio <= GOAL_RATIO else 'NOT met'})"
            )
    for job in JOBS:
        if (LARGE, job) in medians:
            peak = medians[LARGE, job]["peak"]
            lines.append(
                f"large run's peak RSS, {job} (highest round): {peak:.0f} MB "
                f"(goal < {GOAL_PEAK_MB:.0f} MB: {'met' if peak < GOAL_PEAK_MB else 'NOT met'})"
            )
    return lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--workdir",
        type=Path,
        default=DEFAULT_WORKDIR,
        help="where the generated runs are cached (default: %(default)s, git-ignored)",
    )
    parser.add_argument("--json", type=Path, help="write every measurement here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    dev = ensure_run(args.data, args.workdir, "bm25")
    large = ensure_large_run(args.data, args.workdir)
    qrels = args.data / QRELS
    for path in (dev, large):
        warm_page_cache(path)
    rounds: list[Round] = []
    for number in range(1, args.rounds + 1):
        # interleaved, so that the machine's noise falls on all alike
        for job in JOBS:
            for name, run in ((DEV, dev), (LARGE, large)):
                entry = measure_once(name, job, run, qrels, number)
                rounds.append(entry)
                print(
                    f"round {number} {job} {name}: {entry.wall_s:.2f} s, "
                    f"{entry.peak_rss_mb:.0f} MB" + ("" if entry.ok else " FAILED"),
                    flush=True,
                )
    lines = report(rounds)
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rounds], indent=1) + "\n", "utf-8")
    return 0 if all(r.ok for r in rounds) else 1


if __name__ == "__main__":
    sys.exit(main())
