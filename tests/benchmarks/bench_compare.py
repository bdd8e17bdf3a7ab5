#!/usr/bin/env python3
"""Comparison benchmark: what ``judgepool compare`` of six MS MARCO dev-scale runs
costs on top of ``judgepool score`` of the same six.

Six synthetic 1000-deep runs over the 6,980 dev-small queries (the data folder's
``make_large_run.py``, profiles bm25 and rerank with three seeds, cached as
bench_score.py caches its run) are scored with ``score`` and compared with
``compare`` (15 pairs, 10,000 permutations and 10,000 bootstrap resamples per
pair), each command in a fresh process, rounds interleaved; the medians and
their difference are printed, with whether the difference is within the goal
(2 s). Then, in this process, compare's extra time is split into its parts:
the top k extraction (scoring with and without it), the paired statistics,
the exact bounds (runs and pairs).

    .venv/bin/python tests/benchmarks/bench_compare.py [--rounds 3] [--depth 1000]
        [--data DIR] [--workdir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Final

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from score_bench_measure import (  # noqa: E402  (a script beside this one)
    DEFAULT_DATA,
    DEFAULT_WORKDIR,
    GENERATOR,
    QRELS,
    QUERIES,
    file_digest,
    run_child,
    warm_page_cache,
)

RUNS = [("bm25", 13), ("rerank", 13), ("bm25", 14), ("rerank", 14), ("bm25", 15), ("rerank", 15)]
CONTRACT_ARGS = ["--preset", "trec_eval", "-k", "10"]
GOAL_S = 2.0


def ensure_runs(data: Path, workdir: Path, depth: int) -> list[Path]:
    """The six runs, generated once and cached (the key covers the generator,
    its inputs and its arguments)."""
    gen, qrels, queries = data / GENERATOR, data / QRELS, data / QUERIES
    for p in (gen, qrels, queries):
        if not p.is_file():
            sys.exit(f"bench_compare: {p} not found (use --data DIR)")
    workdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for profile, seed in RUNS:
        extra = f"{profile}:{seed}:{depth}"
        key = file_digest(gen, qrels, queries, extra=extra)[:12]
        target = workdir / f"dev-small-{profile}-s{seed}-d{depth}-{key}.run"
        if not (target.is_file() and target.stat().st_size > 0):
            partial = target.with_suffix(".partial")
            print(f"run: generating {target.name} ...", flush=True)
            subprocess.run(
                [sys.executable, str(gen), str(qrels), str(queries), str(partial), "--profile",
                 profile, "--seed", str(seed), "--depth", str(depth), "--tag", f"{profile}{seed}"],
                check=True,
            )  # fmt: skip
            os.replace(partial, target)
        paths.append(target)
    return paths


def judgepool_argv(command: str, runs: list[Path], qrels: Path) -> list[str]:
    script = Path(sys.executable).parent / "judgepool"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "judgepool"]
    return [*base, command, *map(str, runs), "--qrels", str(qrels), *CONTRACT_ARGS,
            "--format", "json"]  # fmt: skip


def end_to_end(runs: list[Path], qrels: Path, rounds: int) -> dict[str, list[float]]:
    """Wall seconds of ``score`` and ``compare`` of the six runs, per round."""
    times: dict[str, list[float]] = {"score": [], "compare": []}
    for number in range(1, rounds + 1):
        for command in ("score", "compare"):
            child = run_child(judgepool_argv(command, runs, qrels))
            if child.returncode != 0:
                sys.exit(f"bench_compare: {command} failed:\n{child.stderr}")
            times[command].append(child.wall_s)
            print(f"round {number}: {command:8} {child.wall_s:6.2f} s "
                  f"(peak {child.peak_rss_mb:.0f} MB)", flush=True)  # fmt: skip
    return times


def _timed(action: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def breakdown(runs: list[Path], qrels_path: Path) -> dict[str, float]:
    """Seconds of each part of compare's extra work, measured in this process."""
    import numpy as np

    from judgepool.cli.contract_options import build_contract
    from judgepool.core.comparing import verdicts
    from judgepool.core.comparing.significance import (
        adjust,
        bootstrap_interval,
        effect_size,
        mean_interval,
        paired_t,
        sign_flip,
    )
    from judgepool.core.comparing.verdicts import RunInput, population
    from judgepool.core.fast import engine
    from judgepool.formats.trec import read_qrels
    from judgepool.services.judgments_source import JudgmentsSource
    from judgepool.services.runs.scoring import score_run_with_tops
    from judgepool.services.runs.sources import file_source

    contract = build_contract(None, "trec_eval", {"k": 10})
    qrels = read_qrels(qrels_path, contract.scale)
    # the top k extraction, timed where the real path calls it
    extraction = [0.0]
    original = engine.fast_tops

    def timed_tops(*args: Any) -> Any:
        result, seconds = _timed(partial(original, *args))
        extraction[0] += seconds
        return result

    engine.fast_tops = timed_tops
    inputs = []
    try:
        for path in runs:
            scored, tops = score_run_with_tops(
                file_source(path), JudgmentsSource(qrels.judgments, ""), contract
            )
            inputs.append(RunInput(scored.run, scored.evaluation, tops))
    finally:
        engine.fast_tops = original
    pairs = list(itertools.combinations(range(len(inputs)), 2))
    queries, _ = population(inputs)

    def statistics_part() -> None:
        ndcg = np.array(
            [[run.evaluation.query(q).ndcg for q in queries] for run in inputs], dtype=np.float64
        )
        differences = np.stack([ndcg[a] - ndcg[b] for a, b in pairs], axis=1)
        raw_t = paired_t(differences)
        raw_flip, _ = sign_flip(differences, 10_000, 0)
        bootstrap_interval(differences, 10_000, 0)
        effect_size(differences)
        for row in ndcg:
            mean_interval(row)
        adjust(list(raw_t), "holm")
        adjust(list(raw_flip), "holm")

    _, stats_s = _timed(statistics_part)
    judgments = qrels.judgments
    # every run's and every pair's bounds come from one table of holes per
    # block of queries (core.comparing.bound_tables), so they are timed together
    _, bounds_s = _timed(lambda: verdicts._bounds(inputs, pairs, queries, judgments, contract))
    _, whole_s = _timed(lambda: verdicts.compare(inputs, judgments, contract, pairs))
    return {
        "top_k_extraction": extraction[0],
        "statistics": stats_s,
        "bounds": bounds_s,
        "core_compare_total": whole_s,
        "queries": float(len(queries)),
    }


# the shared data folder beside the repository (or a worktree's parents)
DL20: Final = next(
    (p / "shared/data/dl20-passage" for p in HERE.parents if (p / "shared/data").is_dir()),
    Path("/work/shared/data/dl20-passage"),
)
DRAWS_GOAL_S: Final = 2.0


def draws_cost(rounds: int) -> dict[str, Any]:
    """Wall seconds of ``compare`` of DL20's six runs with ``--draws 0`` and
    ``--draws 10000``, each in a fresh process, rounds interleaved: what the
    probable verdicts add (issue 19's goal: at most 2 s)."""
    runs = sorted((DL20 / "runs").glob("*.trec"))
    qrels = DL20 / "qrels.dl20-passage.txt"
    if len(runs) != 6 or not qrels.exists():
        sys.exit(f"bench_compare: DL20's six runs and qrels not found under {DL20}")
    times: dict[str, list[float]] = {"0": [], "10000": []}
    for number in range(1, rounds + 1):
        for draws in times:
            argv = [*judgepool_argv("compare", runs, qrels), "--draws", draws]
            child = run_child(argv)
            if child.returncode != 0:
                sys.exit(f"bench_compare: compare --draws {draws} failed:\n{child.stderr}")
            times[draws].append(child.wall_s)
            print(f"round {number}: DL20 compare --draws {draws:>5} {child.wall_s:6.2f} s",
                  flush=True)  # fmt: skip
    medians = {draws: statistics.median(values) for draws, values in times.items()}
    extra = medians["10000"] - medians["0"]
    print(f"DL20, median of {rounds}: --draws 0 {medians['0']:.2f} s, --draws 10000 "
          f"{medians['10000']:.2f} s: the draws add {extra:.2f} s "
          f"({'within' if extra <= DRAWS_GOAL_S else 'OVER'} the "
          f"{DRAWS_GOAL_S:.0f} s goal)")  # fmt: skip
    return {"times": times, "medians": medians, "extra": extra}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--breakdown-only", action="store_true", help="skip the end-to-end rounds")
    parser.add_argument("--draws-only", action="store_true",
                        help="only the DL20 draws (--draws 0 against --draws 10000)")  # fmt: skip
    args = parser.parse_args()
    if args.draws_only:
        return 0 if draws_cost(args.rounds)["extra"] <= DRAWS_GOAL_S else 1
    runs = ensure_runs(args.data, args.workdir, args.depth)
    for path in runs:
        warm_page_cache(path)
    qrels = args.data / QRELS
    if args.breakdown_only:
        print(json.dumps(breakdown(runs, qrels), indent=2))
        return 0
    times = end_to_end(runs, qrels, args.rounds)
    medians = {command: statistics.median(values) for command, values in times.items()}
    extra = medians["compare"] - medians["score"]
    print(f"\nmedian of {args.rounds}: score {medians['score']:.2f} s, compare "
          f"{medians['compare']:.2f} s: compare adds {extra:.2f} s "
          f"({'within' if extra <= GOAL_S else 'OVER'} the {GOAL_S:.0f} s goal)")  # fmt: skip
    drawn = draws_cost(args.rounds)
    parts = breakdown(runs, qrels)
    print(f"\nwhere compare's extra time goes (in this process, {int(parts['queries'])} queries, "
          "15 pairs):")  # fmt: skip
    for name in ("top_k_extraction", "statistics", "bounds", "core_compare_total"):
        print(f"  {name:20} {parts[name]:6.2f} s")
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "times": times,
                    "medians": medians,
                    "extra": extra,
                    "parts": parts,
                    "dl20_draws": drawn,
                },
                indent=2,
            )
        )
    return 0 if extra <= GOAL_S and drawn["extra"] <= DRAWS_GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
