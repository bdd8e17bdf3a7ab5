#!/usr/bin/env python3
"""Replay benchmark: does the sample estimate's 95 % interval hold the truth?

DL19 and DL20 passage (the shared data folder, six runs each, k = 10,
``unjudged=zero``, the fifteen pairs), the starts of ``bench_probable.py``
(whose loaders this reuses): ``hide30``, 30 % of the judgments hidden at
random (``--seeds`` seeds, default 5), and ``bm25pool5``, only BM25's
depth-5 pool judged. For each start the frame is the comparison's holes
(`judgepool.core.holes.sample_design`), and ``--replays`` samples (default 200,
sampling seeds 0, 1, …) of each expected size (``--sizes`` for ``hide30``,
``--pool-sizes`` for ``bm25pool5``) are drawn, their holes given their true
grades (the qrels' grade; 0 for a document the qrels never judged, as
``unjudged=zero`` scores it), and every run's and pair's estimate computed
(`judgepool.core.holes.sample_estimate`) three ways: HT; prior-powered with the
rank prior; prior-powered with a model prior from a *simulated* judge (the
true grade plus Gaussian noise, linear κ 0.6 with the qrels, as in
``bench_probable.py``). The priors are learnt from the start's judgments,
never from the sample.

Two truths. The *estimand*: nDCG with every hole of the frame judged, what
the design promises to estimate. The *qrels*: nDCG with every judgment, as
``bench_probable.py`` scores the truth; the two differ by the hidden
judgments outside every run's top 10, which raise the ideal and which no
sample of the comparison's holes can see. Reported per dataset, start, size
and estimator: the share of 95 % intervals holding each truth (runs and
pairs), the mean error against the estimand (bias) and the mean width.
Goal (issue 33): coverage ≥ 93 %; exit 1 when a ``hide30`` row misses it
(``bm25pool5`` is reported, not held to it: most of its ideal is holes, and
the README says what that does). About 40 s on the 2-core machine.

    .venv/bin/python tests/benchmarks/bench_sample.py [--datasets dl19,dl20]
        [--seeds 5] [--replays 200] [--sizes 80,120] [--pool-sizes 240,480,720]
        [--data DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

# the replay harness's loaders (replay_starts.py)
from replay_starts import (
    CONTRACT,
    DEFAULT_DATA,
    HIDDEN_SHARE,
    PAIRS,
    POOL_DEPTH,
    POOL_RUN,
    Dataset,
    Judged,
    comparison,
    hide_share,
    load,
    noise_for_kappa,
    pool_of,
    simulated_judge,
    tops_of,
    true_grade,
)

from judgepool.core.holes.priors import Prior, model_prior, rank_prior
from judgepool.core.holes.sample_design import Frame, build_frame, draw_sample
from judgepool.core.holes.sample_estimate import Estimate, Predictor, estimate

GOAL = 0.93
ESTIMATORS = ("ht", "rank", "model")


@dataclass
class Side:
    """Sums over the replays, for the runs or for the pairs."""

    count: int = 0
    covered: int = 0
    covered_qrels: int = 0
    error: float = 0.0
    width: float = 0.0

    def add(self, found: Estimate, truth: float, truth_qrels: float) -> None:
        low, high = found.interval
        self.count += 1
        self.covered += low <= truth <= high
        self.covered_qrels += low <= truth_qrels <= high
        self.error += found.value - truth
        self.width += high - low

    def merged(self, other: Side) -> Side:
        return Side(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


@dataclass
class Tally:
    """Sums over the replays of one (start, size, estimator)."""

    runs: Side = field(default_factory=Side)
    pairs: Side = field(default_factory=Side)
    sampled: int = 0
    replays: int = 0

    def merged(self, other: Tally) -> Tally:
        return Tally(
            self.runs.merged(other.runs),
            self.pairs.merged(other.pairs),
            self.sampled + other.sampled,
            self.replays + other.replays,
        )

    def row(self) -> dict[str, float]:
        found: dict[str, float] = {"sampled_mean": self.sampled / self.replays}
        for kind, side in (("run", self.runs), ("pair", self.pairs)):
            found[f"{kind}_coverage"] = side.covered / side.count
            found[f"{kind}_coverage_qrels"] = side.covered_qrels / side.count
            found[f"{kind}_bias"] = side.error / side.count
            found[f"{kind}_width"] = side.width / side.count
        return found


def predictor(frame: Frame, prior: Prior) -> Predictor:
    probabilities = [
        prior.of(query, doc, int(rank))
        for (query, doc), rank in zip(frame.items, frame.best_rank, strict=True)
    ]
    gains = [CONTRACT.gain_of(g) for g in CONTRACT.scale.grades]
    return Predictor.of_probabilities(probabilities, gains, frame)


def start_of(
    dataset: Dataset, judged: Judged, width: float, seed: int
) -> tuple[Frame, np.ndarray, dict[str, Predictor | None]]:
    """The frame of a start, its holes' true gains, and the predictors."""
    tops = tops_of(dataset.runs, judged)
    queries = sorted(dataset.qrels)
    frame = build_frame(tops, queries, judged, CONTRACT)
    gains = np.array(
        [CONTRACT.gain_of(true_grade(dataset, q, d)) for q, d in frame.items], dtype=np.float64
    )
    rank = rank_prior(tops, queries, CONTRACT)
    model = simulated_judge(dataset, width, seed)
    calibrated = model_prior(model.name, model.labels, judged, CONTRACT)
    predictors: dict[str, Predictor | None] = {
        "ht": None,
        "rank": predictor(frame, Prior(rank)),
        "model": predictor(frame, Prior(rank, calibrated)),
    }
    return frame, gains, predictors


def estimand(frame: Frame, gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every run's and pair's value with every hole judged: the census."""
    census = estimate(frame, np.ones(frame.holes), np.ones(frame.holes, bool), gains, PAIRS)
    runs = np.array([e.value for e in census.runs])
    return runs, np.array([runs[a] - runs[b] for a, b in PAIRS])


def check_estimand(dataset: Dataset, judged: Judged, frame: Frame, runs: np.ndarray) -> None:
    """The census equals the comparison scored with every hole's true grade."""
    filled = {q: dict(docs) for q, docs in judged.items()}
    for query, doc in frame.items:
        filled[query][doc] = true_grade(dataset, query, doc)
    scored = np.array([r.ndcg for r in comparison(dataset.runs, filled, draws=0).runs])
    assert np.allclose(scored, runs, atol=1e-12), (scored, runs)


def replays(
    frame: Frame,
    gains: np.ndarray,
    predictors: Mapping[str, Predictor | None],
    truth: tuple[np.ndarray, np.ndarray],
    qrels: tuple[np.ndarray, np.ndarray],
    size: int,
    count: int,
) -> dict[str, Tally]:
    tallies = {name: Tally() for name in predictors}
    for seed in range(count):
        sample = draw_sample(frame, size, seed)
        for name, chosen in predictors.items():
            found = estimate(frame, sample.probabilities, sample.drawn, gains, PAIRS, chosen)
            tally = tallies[name]
            tally.replays += 1
            tally.sampled += int(sample.drawn.sum())
            for run, true, true_qrels in zip(found.runs, truth[0], qrels[0], strict=True):
                tally.runs.add(run, float(true), float(true_qrels))
            for pair, true, true_qrels in zip(found.pairs, truth[1], qrels[1], strict=True):
                tally.pairs.add(pair, float(true), float(true_qrels))
    return tallies


def run_dataset(dataset: Dataset, args: argparse.Namespace) -> dict[str, Any]:
    width, kappa = noise_for_kappa(dataset, 0.6)
    full = comparison(dataset.runs, dataset.qrels, draws=0)
    qrels = (np.array([r.ndcg for r in full.runs]), np.array(dataset.truth))
    starts: list[tuple[str, int, Judged, list[int]]] = [
        ("hide30", seed, hide_share(dataset.qrels, HIDDEN_SHARE, seed), args.sizes)
        for seed in range(args.seeds)
    ]
    starts.append(("bm25pool5", 0, pool_of(dataset, POOL_RUN, POOL_DEPTH), args.pool_sizes))
    found: dict[str, dict[str, list[Tally]]] = {}
    holes: dict[str, list[int]] = {}
    for start, seed, judged, sizes in starts:
        frame, gains, predictors = start_of(dataset, judged, width, seed)
        truth = estimand(frame, gains)
        check_estimand(dataset, judged, frame, truth[0])
        holes.setdefault(start, []).append(frame.holes)
        for size in sizes:
            tallies = replays(frame, gains, predictors, truth, qrels, size, args.replays)
            for name, tally in tallies.items():
                found.setdefault(f"{start}/{size}", {}).setdefault(name, []).append(tally)
    rows: dict[str, Any] = {"model_kappa": kappa, "holes": holes, "rows": {}}
    for key, by_estimator in found.items():
        rows["rows"][key] = {
            name: functools.reduce(Tally.merged, parts).row()
            for name, parts in by_estimator.items()
        }
    return rows


def print_dataset(name: str, rows: Mapping[str, Any], args: argparse.Namespace) -> bool:
    holes = ", ".join(f"{start} {statistics.fmean(n):.0f}" for start, n in rows["holes"].items())
    print(
        f"\n{name}: holes per start (mean) {holes}; {args.replays} replays per start and size; "
        f"simulated judge's κ {rows['model_kappa']:.2f}"
    )
    print(
        f"  {'start/size':16} {'estimator':9} {'runs: cover':>11} {'(qrels)':>8} {'bias':>8} "
        f"{'width':>7} | {'pairs: cover':>12} {'(qrels)':>8} {'bias':>8} {'width':>7} | sampled"
    )
    met = True
    for key, by_estimator in rows["rows"].items():
        for estimator, row in by_estimator.items():
            ok = row["run_coverage"] >= GOAL and row["pair_coverage"] >= GOAL
            met &= ok or key.startswith("bm25pool5")
            runs = (
                f"{row['run_coverage']:11.1%} {row['run_coverage_qrels']:8.1%} "
                f"{row['run_bias']:+8.4f} {row['run_width']:7.4f}"
            )
            pairs = (
                f"{row['pair_coverage']:12.1%} {row['pair_coverage_qrels']:8.1%} "
                f"{row['pair_bias']:+8.4f} {row['pair_width']:7.4f}"
            )
            below = "" if ok else f"  (below {GOAL:.0%})"
            print(f"  {key:16} {estimator:9} {runs} | {pairs} | {row['sampled_mean']:6.1f}{below}")
    return met


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--datasets", default="dl19,dl20")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--replays", type=int, default=200)
    parser.add_argument("--sizes", default="80,120")
    parser.add_argument("--pool-sizes", default="240,480,720")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.pool_sizes = [int(s) for s in args.pool_sizes.split(",")]
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"k = {CONTRACT.k}, unjudged=zero; 95 % intervals, goal coverage ≥ {GOAL:.0%}; "
        "coverage of the estimand (every hole judged), and in brackets of the full qrels"
    )
    report: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    ok = True
    for name in args.datasets.split(","):
        started = time.perf_counter()
        dataset = load(args.data, name)
        rows = run_dataset(dataset, args)
        ok &= print_dataset(name, rows, args)
        print(f"  ({time.perf_counter() - started:.0f} s)")
        report[name] = rows
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
