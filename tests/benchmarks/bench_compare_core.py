#!/usr/bin/env python3
"""The core of ``compare`` at MS MARCO dev-small scale: six runs, 6,980 queries, 15 pairs.

A command-line script (not a pytest test). It builds six realistic runs with the
data folder's ``make_large_run.py`` (seeds 13, 14 and 15, each with the ``bm25``
and ``rerank`` profiles: the two profiles of one seed share candidates, as a
first-stage run and its reranking do), keeps each run's first 20 ranks in
``.cache/`` (a few MB; generating the 1000-deep runs takes a few minutes once),
and scores them against the real dev-small qrels (about one judged document
per query, so nine of a run's top ten are holes and the six runs' union of
holes is about 29 per query) under ``-k 10 --unjudged zero`` and the 0..3 scale.

Then, for several rounds, it times the phases of `judgepool.core.comparing.verdicts.compare`
with 10,000 permutations and 10,000 bootstrap resamples, and prints their medians:

- ``problems``: reading the six runs' top k into the table of holes (`HoleTable.build`);
- ``bounds``: the exact bounds of six runs and fifteen pairs (`bound_arrays`);
- ``statistics``: paired t, effect size, sign-flip test, bootstrap, Holm;
- ``compare``: the whole call, as a user pays it (population and report included),
  and once apart, the first call of the process, which also imports scipy.special.

Wall and CPU seconds (CPU of every thread, BLAS's included) are both printed: on a
shared machine the wall time mostly measures the neighbours.

Scoring the six runs (the reference engine on their top 20) is printed for
scale; issue 9's goal is ``compare`` within 2 s of scoring.

    .venv/bin/python tests/benchmarks/bench_compare_core.py [--rounds 5] [--data DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from judgepool.core.comparing.bound_tables import HoleTable
from judgepool.core.comparing.bounds import GainLevels, TopK, bound_arrays
from judgepool.core.comparing.significance import (
    adjust,
    bootstrap_interval,
    effect_size,
    paired_t,
    sign_flip,
)
from judgepool.core.comparing.verdicts import RunInput, compare
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.ranking import form_list
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry

HERE = Path(__file__).resolve().parent
# the project's shared data folder beside the repository (or a worktree's parents)
DEFAULT_DATA = (
    next(
        (p / "shared" / "data" for p in HERE.parents if (p / "shared" / "data").is_dir()),
        HERE.parents[2] / "shared" / "data",
    )
    / "msmarco-passage-dev-small"
)
CACHE = HERE / ".cache"  # git-ignored
QRELS = "qrels.msmarco-passage.dev-subset.txt"
QUERIES = "queries.dev-small.tsv"
RUNS = [(seed, profile) for seed in (13, 14, 15) for profile in ("bm25", "rerank")]
KEEP = 20  # ranks kept from each generated run: the top 10 and ties around it
DRAWS = 10_000


def top_ranks(data: Path, seed: int, profile: str) -> Path:
    """The cached first ranks of one generated run (generated on first use)."""
    generator = data / "make_large_run.py"
    key = hashlib.sha256(generator.read_bytes() + (data / QRELS).read_bytes()).hexdigest()[:12]
    out = CACHE / f"compare-top{KEEP}-{profile}-{seed}-{key}.run"
    if out.exists():
        return out
    CACHE.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "run"
        print(f"generating {profile} seed {seed} (once) ...", file=sys.stderr, flush=True)
        subprocess.run(
            [sys.executable, str(generator), str(data / QRELS), str(data / QUERIES), str(full),
             "--seed", str(seed), "--profile", profile, "--tag", f"{profile}{seed}"],
            check=True,
        )  # fmt: skip
        with open(full, encoding="ascii") as lines, open(out, "w", encoding="ascii") as kept:
            kept.writelines(line for line in lines if int(line.split(None, 4)[3]) <= KEEP)
    return out


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    with open(path, encoding="ascii") as lines:
        for line in lines:
            query, _, doc, grade = line.split()
            judged.setdefault(query, {})[doc] = int(grade)
    return judged


def run_input(path: Path, judgments: dict[str, dict[str, int]], contract: Contract) -> RunInput:
    with open(path, encoding="ascii") as lines:
        entries = [
            RunEntry(q, d, int(r), float(s), n)
            for n, (q, _, d, r, s, _tag) in enumerate((x.split() for x in lines), start=1)
        ]
    grouped = group_by_query(entries)
    evaluation = evaluate(grouped, judgments, contract)
    top: dict[str, TopK] = {
        q: tuple((d.entity, d.grade) for d in form_list(q, e, judgments[q], contract).deduplicated)[
            : contract.k
        ]
        for q, e in grouped.items()
        if q in judgments
    }
    return RunInput(path.stem, evaluation, top)


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of one call (CPU of every thread: BLAS's too)."""
    start, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    contract = Contract(k=10, unjudged="zero")
    judgments = read_qrels(args.data / QRELS)
    paths = [top_ranks(args.data, seed, profile) for seed, profile in RUNS]
    start = time.perf_counter()
    runs = [run_input(path, judgments, contract) for path in paths]
    scoring = time.perf_counter() - start
    pairs = list(itertools.combinations(range(len(runs)), 2))
    queries = sorted(runs[0].top)
    holes = [sum(g is None for _, g in run.top[q]) for run in runs for q in queries]
    union = [len({d for run in runs for d, g in run.top[q] if g is None}) for q in queries]
    print(
        f"{len(runs)} runs x {len(queries)} queries, {len(pairs)} pairs, k={contract.k}, "
        f"scale {contract.scale}; holes per run and query: mean {np.mean(holes):.2f}; "
        f"union of the six runs' holes per query: mean {np.mean(union):.1f}, max {max(union)}"
    )
    print(f"scoring the six runs' top {KEEP} (reference engine, once): {scoring:.2f} s")

    levels = GainLevels.of(contract)
    ndcg = np.array([[run.evaluation.query(q).ndcg for q in queries] for run in runs[:2]])
    rng = np.random.default_rng(0)
    differences = np.stack([ndcg[0] - ndcg[1] + rng.normal(0, 0.01, ndcg.shape[1])] * 15, axis=1)
    tops = [run.top for run in runs]

    def problems() -> HoleTable:
        return HoleTable.build(tops, queries, judgments, contract, levels.gains)

    table = problems()

    def bounds() -> None:
        for arrays in [table.run(r) for r in range(len(runs))] + [table.pair(*p) for p in pairs]:
            bound_arrays(
                arrays.constants, arrays.coefficients, arrays.holes, arrays.judged,
                arrays.zero_values, levels, contract.k,
            )  # fmt: skip

    def stats() -> None:
        p = paired_t(differences)
        effect_size(differences)
        flips, _ = sign_flip(differences, DRAWS, 0)
        bootstrap_interval(differences, DRAWS, 0)
        adjust(list(p), "holm")
        adjust(list(flips), "holm")

    def whole() -> None:
        compare(runs, judgments, contract, pairs, permutations=DRAWS, bootstrap=DRAWS)

    phases: dict[str, Callable[[], object]] = {
        "problems": problems,
        "bounds": bounds,
        "statistics": stats,
        "compare": whole,
    }
    # the first call imports scipy.special (in the background, during the
    # bounds), as the first comparison of a judgepool process does
    cold_wall, cold_cpu = timed(whole)
    walls: dict[str, list[float]] = {name: [] for name in phases}
    cpus: dict[str, list[float]] = {name: [] for name in phases}
    for _ in range(args.rounds):
        for name, action in phases.items():
            wall, cpu = timed(action)
            walls[name].append(wall)
            cpus[name].append(cpu)
    print(f"first compare of the process (imports scipy): {cold_wall:.2f} s, cpu {cold_cpu:.2f} s")
    print(f"then medians of {args.rounds} rounds, seconds: wall (min-max), cpu")
    for name in phases:
        values = walls[name]
        spread = f"({min(values):.2f}-{max(values):.2f})"
        cpu = statistics.median(cpus[name])
        print(f"  {name:<11} {statistics.median(values):6.2f}  {spread:<12} {cpu:6.2f}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
