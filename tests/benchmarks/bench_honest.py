#!/usr/bin/env python3
"""Replay benchmark: how honest are the numbers beside the verdicts?

DL19 and DL20 passage, the six shared runs, k = 10, ``unjudged=zero``, the
fifteen pairs (the loaders and starts of `bench_probable`). The truth: each
run's mean nDCG@10 with every judgment of the qrels (a document the qrels
never judged counts 0, as trec_eval scores it). Starts:

- ``hide30``: 30 % of the judgments hidden at random, ``--seeds`` seeds;
- ``bm25pool5``: only BM25's depth-5 pool judged.

For each start and prior (``rank``: the contract's rank prior; ``runs``: the
default, with its check), `judgepool.core.comparing.verdicts.compare` with ``--draws``
draws: each run's expected nDCG and 95 % interval against the truth (the
interval's coverage and the mean |expected − truth|), and the pairs decided
(settled + probable) with the share of probable verdicts whose leader is not
the truth's. Goals (issue 33): coverage ≥ 90 %, mean |expected − truth|
≤ 0.01, the decided share not below the rank prior's, ≤ 5 % wrong.

    .venv/bin/python tests/benchmarks/bench_honest.py [--datasets dl19,dl20]
        [--seeds 4] [--draws 4000] [--priors rank,runs] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from judgepool.core.comparing.verdicts import RunInput, compare
from judgepool.core.scoring.aggregate import evaluate

# the replay's loaders and starts (replay_starts.py, beside this file)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_starts import (
    CONFIDENCE,
    CONTRACT,
    DEFAULT_DATA,
    NAMES,
    PAIRS,
    POOL_DEPTH,
    POOL_RUN,
    Dataset,
    hide_share,
    load,
    pool_of,
    tops_of,
)

GOALS = {"coverage": 0.90, "mae": 0.01, "wrong": 0.05}


def report(
    dataset: Dataset, judged: dict[str, dict[str, int]], prior: str, draws: int, seed: int
) -> Any:
    tops = tops_of(dataset.runs, judged)
    inputs = [
        RunInput(name, evaluate(grouped, judged, CONTRACT), top)
        for (name, grouped), top in zip(dataset.runs.items(), tops, strict=True)
    ]
    return compare(
        inputs, judged, CONTRACT, PAIRS, permutations=1, bootstrap=1, seed=seed,
        draws=draws, confidence=CONFIDENCE, prior_kind=prior,
    )  # fmt: skip


def measure(dataset: Dataset, start: str, seed: int, judged: dict[str, dict[str, int]],
            prior: str, draws: int, truth: list[float]) -> dict[str, Any]:  # fmt: skip
    clock = time.perf_counter()
    found = report(dataset, judged, prior, draws, seed)
    runs = []
    for run, true in zip(found.runs, truth, strict=True):
        low, high = run.expected_interval or (float("nan"), float("nan"))
        runs.append({
            "run": run.run, "truth": true, "expected": run.expected_ndcg,
            "interval": [low, high], "held": low <= true <= high,
        })  # fmt: skip
    decided = probable = wrong = 0
    for pair, diff in zip(found.pairs, dataset.truth, strict=True):
        if pair.verdict in ("settled", "probable"):
            decided += 1
        if pair.verdict == "probable":
            probable += 1
            wrong += (pair.probable_leader == "a") != (diff > 0)
    check = found.prior.check if found.prior is not None else None
    return {
        "dataset": dataset.name, "start": start, "seed": seed, "prior": prior, "runs": runs,
        "decided": decided, "probable": probable, "wrong": wrong,
        "check": None if check is None else check.to_dict(),
        "seconds": time.perf_counter() - clock,
    }  # fmt: skip


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    runs = [run for row in rows for run in row["runs"]]
    probable = sum(row["probable"] for row in rows)
    return {
        "cases": len(runs),
        "held": sum(run["held"] for run in runs),
        "coverage": sum(run["held"] for run in runs) / len(runs),
        "mae": statistics.fmean(abs(run["expected"] - run["truth"]) for run in runs),
        "bias": statistics.fmean(run["expected"] - run["truth"] for run in runs),
        "decided_share": sum(row["decided"] for row in rows) / (len(PAIRS) * len(rows)),
        "probable": probable,
        "wrong": sum(row["wrong"] for row in rows),
        "seconds_median": statistics.median(row["seconds"] for row in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="dl19,dl20")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--draws", type=int, default=4000)
    parser.add_argument("--priors", default="rank,runs")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for name in args.datasets.split(","):
        dataset = load(args.data, name)
        truth = [evaluate(dataset.runs[run], dataset.qrels, CONTRACT).summary.ndcg or 0.0
                 for run in NAMES]  # fmt: skip
        starts = [("hide30", seed, hide_share(dataset.qrels, 0.3, seed))
                  for seed in range(args.seeds)]  # fmt: skip
        starts.append(("bm25pool5", 0, pool_of(dataset, POOL_RUN, POOL_DEPTH)))
        for start, seed, judged in starts:
            for prior in args.priors.split(","):
                row = measure(dataset, start, seed, judged, prior, args.draws, truth)
                rows.append(row)
                held = sum(run["held"] for run in row["runs"])
                print(f"{name} {start} seed {seed} {prior:5}: intervals held {held}/6, "
                      f"decided {row['decided']}/15, wrong {row['wrong']}/{row['probable']}, "
                      f"{row['seconds']:.1f} s", file=sys.stderr)  # fmt: skip
    table: dict[str, Any] = {}
    print(f"\n{'dataset':8} {'start':10} {'prior':6} {'held':>8} {'coverage':>9} "
          f"{'|exp-truth|':>12} {'bias':>8} {'decided':>8} {'wrong':>8}")  # fmt: skip
    for name in args.datasets.split(","):
        for start in ("hide30", "bm25pool5"):
            for prior in args.priors.split(","):
                chosen = [
                    r for r in rows
                    if (r["dataset"], r["start"], r["prior"]) == (name, start, prior)
                ]  # fmt: skip
                if not chosen:
                    continue
                s = summary(chosen)
                table[f"{name}/{start}/{prior}"] = s
                print(f"{name:8} {start:10} {prior:6} {s['held']:>4}/{s['cases']:<3} "
                      f"{s['coverage']:>9.1%} {s['mae']:>12.4f} {s['bias']:>+8.4f} "
                      f"{s['decided_share']:>8.1%} {s['wrong']:>3}/{s['probable']:<4}")  # fmt: skip
    for prior in args.priors.split(","):
        chosen = [r for r in rows if r["prior"] == prior and r["start"] == "hide30"]
        if chosen:
            s = summary(chosen)
            table[f"hide30/{prior}"] = s
            print(f"all hide30 {prior:6}: held {s['held']}/{s['cases']} ({s['coverage']:.1%}), "
                  f"mean |expected - truth| {s['mae']:.4f}, decided {s['decided_share']:.1%}, "
                  f"wrong {s['wrong']}/{s['probable']}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": table}, indent=1))


if __name__ == "__main__":
    main()
