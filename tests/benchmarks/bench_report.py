#!/usr/bin/env python3
"""Report benchmark: what ``judgepool report`` of six DL20 runs costs, and what
``--figures DIR`` (each figure also as SVG, PDF and PNG) adds.

DL20's six real runs (BM25 first, the baseline) with its qrels, from the shared
data folder, under ``--unjudged zero``; three commands each in a fresh
process, rounds interleaved and their order rotated each round: ``compare
--baseline`` of the same runs (the comparison alone, a peer measured in the
same run), ``report -o FILE``, and ``report -o FILE --figures DIR``. Prints
each median (with min and max), what the report adds to the comparison (the
figures drawn and the page written, matplotlib's import included), and
whether the reports are within the goal (5 s).

    .venv/bin/python tests/benchmarks/bench_report.py [--rounds 5] [--data DIR]
        [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Final

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from score_bench_measure import run_child, warm_page_cache  # noqa: E402  (a script beside this one)

# the shared data folder beside the repository (or a worktree's parents)
DL20: Final = next(
    (p / "shared/data/dl20-passage" for p in HERE.parents if (p / "shared/data").is_dir()),
    Path("/work/shared/data/dl20-passage"),
)
RUNS: Final = ("bm25", "bm25-rm3", "tasb", "openai-ada2", "splade-pp-ed", "repllama")
GOAL_S: Final = 5.0


def run_files(data: Path) -> tuple[list[Path], Path]:
    found = [sorted((data / "runs").glob(f"{name}.top*.trec")) for name in RUNS]
    qrels = data / "qrels.dl20-passage.txt"
    if any(len(paths) != 1 for paths in found) or not qrels.exists():
        sys.exit(f"bench_report: DL20's six runs and qrels not found under {data}")
    return [paths[0] for paths in found], qrels


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DL20)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    runs, qrels = run_files(args.data)
    for path in [*runs, qrels]:
        warm_page_cache(path)
    base = [sys.executable, "-m", "judgepool"]
    given = [*map(str, runs), "--qrels", str(qrels), "--unjudged", "zero"]
    times: dict[str, list[float]] = {"compare": [], "report": [], "report --figures": []}
    others: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench_report.") as work:
        out = Path(work)
        argv = {
            "compare": [*base, "compare", *given, "--baseline", str(runs[0]), "--format", "json"],
            "report": [*base, "report", *given, "-o", str(out / "report.html")],
            "report --figures": [*base, "report", *given, "-o", str(out / "figures.html"),
                                 "--figures", str(out / "figures")],
        }  # fmt: skip
        names = list(argv)
        for number in range(1, args.rounds + 1):
            shift = (number - 1) % len(names)
            for name in names[shift:] + names[:shift]:
                child = run_child(argv[name])
                if child.returncode != 0:
                    sys.exit(f"bench_report: {name} failed:\n{child.stderr}")
                times[name].append(child.wall_s)
                if child.others_cpu_s is not None and child.wall_s > 0:
                    others.append(child.others_cpu_s / child.wall_s)
                usage = f"cpu {child.cpu_s:5.2f} s, {child.peak_rss_mb:5.0f} MB"
                print(f"round {number}: {name:17} {child.wall_s:6.2f} s ({usage})", flush=True)
        written = sorted(path.name for path in (out / "figures").iterdir())
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"\nDL20, six runs, median of {args.rounds}:")
    for name, values in times.items():
        print(f"  {name:17} {medians[name]:6.2f} s  (min {min(values):.2f}, max {max(values):.2f})")
    print(f"  the report adds {medians['report'] - medians['compare']:.2f} s to the comparison, "
          f"--figures {medians['report --figures'] - medians['report']:.2f} s more "
          f"({len(written)} files)")  # fmt: skip
    worst = max(medians["report"], medians["report --figures"])
    print(f"  {'within' if worst <= GOAL_S else 'OVER'} the {GOAL_S:.0f} s goal; other "
          f"processes took {statistics.median(others) if others else float('nan'):.2f} cores "
          "(median; above 0.25 the machine was busy)")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps({"times": times, "medians": medians}, indent=2))
    return 0 if worst <= GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
