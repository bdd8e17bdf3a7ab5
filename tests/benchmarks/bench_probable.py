#!/usr/bin/env python3
"""Replay benchmark: are the probable verdicts right, and how fast does the
settle order decide the pairs the judgments left undecided?

DL19 and DL20 passage (the shared data folder: qrels and six runs each),
k = 10, ``unjudged=zero``, the fifteen pairs of the six runs. The full qrels
are the truth: a pair's true leader is the sign of its mean difference with
every judgment known (a document the qrels never judged counts as 0 there, as
``unjudged=zero`` scores it). Two starts hide judgments from the comparison:

- ``hide30``: 30 % of the judgments (query, document) hidden at random,
  ``--seeds`` seeds (default 20);
- ``bm25pool5``: only the documents of BM25's depth-5 pool judged.

For each, `judgepool.core.verdicts.compare` with ``--draws`` draws (default
10,000) and confidence 0.95 under (i) the rank prior and (ii) a model prior
from a *simulated* judge: each item's true grade plus Gaussian noise, rounded
and clipped to 0..3, the noise's width found by bisection so that the labels'
linear κ with the true grades is ``--kappa`` (default 0.6; the width and the
κ reached are printed). The simulated judge labels every judged item of the
qrels and every document of the six runs' top 10 (so every hole and every
judged item it calibrates on), fresh noise per seed; a document the qrels
never judged has true grade 0. Reported per dataset, start and prior: the
pairs decided (settled + probable) per seed out of 15, and the share of
probable verdicts whose leader disagrees with the truth ("wrong").
Goals (issue 19): rank prior ≥ 60 % decided and ≤ 5 % wrong; model prior
≥ 75 % decided and ≤ 5 % wrong.

Then the settle order. From ``bm25pool5``, the holes (the documents of the
six runs' top 10 without a judgment) are judged one at a time, revealing
the true grade (a hole the qrels never judged counts as 0), in settle order
(`judgepool.core.settle.SettleState`, updated after each judgment and asked
for its first hole, as the app's queue is) and in depth order (by rank,
round-robin over the runs). The verdicts are recomputed every ``--batch``
judgments (default 20) with ``--batch-draws`` draws (default 2,000), and at
the end. For each pair undecided at the start: the number of judgments
until it reaches a correct decided verdict and keeps it at every later
checkpoint (so it is a multiple of the batch, or the total). Goal: settle's
mean ≤ 0.5 × depth's, and settle never needing more judgments in total (the
last such pair) than depth.

    .venv/bin/python tests/benchmarks/bench_probable.py [--datasets dl19,dl20]
        [--seeds 20] [--draws 10000] [--batch 20] [--batch-draws 2000]
        [--replay-priors rank,model] [--skip-replay] [--data DIR] [--json OUT]

Everything runs in this process through the core's APIs (no subprocess per
step); the whole run takes a few minutes on the 2-core machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from judgepool.core.aggregate import evaluate, group_by_query
from judgepool.core.agreement import cohen_kappa
from judgepool.core.bounds import TopK
from judgepool.core.contract import Contract
from judgepool.core.priors import ModelLabels
from judgepool.core.ranking import form_list
from judgepool.core.settle import REFRESH_TOLERANCE, SettleState, depth_order
from judgepool.core.types import RunEntry
from judgepool.core.verdicts import ComparisonReport, RunInput, compare
from judgepool.formats.trec import read_qrels, read_run

HERE = Path(__file__).resolve().parent
# the project's shared data folder beside the repository (or a worktree's parents)
DEFAULT_DATA = next(
    (p / "shared" / "data" for p in HERE.parents if (p / "shared" / "data").is_dir()),
    HERE.parents[2] / "shared" / "data",
)
RUNS = {
    "bm25": "bm25.top100",
    "bm25-rm3": "bm25-rm3.top100",
    "tasb": "tasb.top100",
    "openai-ada2": "openai-ada2.top100",
    "splade-pp-ed": "splade-pp-ed.top100",
    "repllama": "repllama.top1000",
}
NAMES = tuple(RUNS)
PAIRS = list(itertools.combinations(range(len(NAMES)), 2))
CONTRACT = Contract(k=10, unjudged="zero")
CONFIDENCE = 0.95
HIDDEN_SHARE = 0.3
POOL_RUN, POOL_DEPTH = "bm25", 5
GOALS = {"rank": (0.60, 0.05), "model": (0.75, 0.05)}  # (decided at least, wrong at most)
REPLAY_GOAL = 0.5
# the tables of the README were measured with the rank prior (and the model's
# over it): compare's default is now the runs prior (bench_honest.py has both)
PRIOR_KIND = "rank"
MODEL = "simulated"

Judged = dict[str, dict[str, int]]


@dataclass(frozen=True)
class Dataset:
    name: str
    qrels: Judged
    runs: dict[str, dict[str, list[RunEntry]]]  # each run's formed top 10 entries per query
    truth: tuple[float, ...]  # each pair's mean difference under the full qrels


def load(data: Path, name: str) -> Dataset:
    folder = data / f"{name}-passage"
    qrels_path = folder / f"qrels.{name}-passage.txt"
    if not qrels_path.is_file():
        sys.exit(f"bench_probable: {qrels_path} not found (use --data DIR)")
    qrels = {q: dict(d) for q, d in read_qrels(qrels_path, CONTRACT.scale).judgments.items()}
    runs: dict[str, dict[str, list[RunEntry]]] = {}
    for run, file in RUNS.items():
        grouped = group_by_query(read_run(folder / "runs" / f"{file}.trec").entries)
        # under unjudged=zero the formed order does not depend on the
        # judgments: each run's top 10 entries, formed once, score as the
        # whole run does (checked below) and make every later step cheap
        runs[run] = {}
        for query, entries in grouped.items():
            if query in qrels:
                formed = form_list(query, entries, qrels[query], CONTRACT)
                keep = {d.entity for d in formed.deduplicated[: CONTRACT.k]}
                runs[run][query] = [e for e in entries if e.doc_id in keep]
        whole = evaluate(grouped, qrels, CONTRACT)
        short = evaluate(runs[run], qrels, CONTRACT)
        assert [r.ndcg for r in whole.per_query] == [r.ndcg for r in short.per_query], run
    report = comparison(runs, qrels, draws=0)
    truth = tuple(p.mean_diff or 0.0 for p in report.pairs)
    assert all(d != 0 for d in truth), "a pair tied under the full qrels"
    return Dataset(name, qrels, runs, truth)


def tops_of(
    runs: Mapping[str, Mapping[str, Sequence[RunEntry]]], judged: Judged
) -> list[dict[str, TopK]]:
    tops = []
    for grouped in runs.values():
        top: dict[str, TopK] = {}
        for query, entries in grouped.items():
            if query in judged:
                formed = form_list(query, entries, judged[query], CONTRACT)
                top[query] = tuple((d.entity, d.grade) for d in formed.deduplicated[: CONTRACT.k])
        tops.append(top)
    return tops


def comparison(
    runs: Mapping[str, Mapping[str, Sequence[RunEntry]]],
    judged: Judged,
    *,
    draws: int,
    seed: int = 0,
    model: ModelLabels | None = None,
) -> ComparisonReport:
    tops = tops_of(runs, judged)
    inputs = [
        RunInput(name, evaluate(grouped, judged, CONTRACT), top)
        for (name, grouped), top in zip(runs.items(), tops, strict=True)
    ]
    # the statistics are not what is measured: one permutation, one resample
    return compare(
        inputs, judged, CONTRACT, PAIRS, permutations=1, bootstrap=1, seed=seed,
        draws=draws, confidence=CONFIDENCE, model=model, prior_kind=PRIOR_KIND,
    )  # fmt: skip


# -- the starts -----------------------------------------------------------------


def hide_share(qrels: Judged, share: float, seed: int) -> Judged:
    items = [(q, d) for q in sorted(qrels) for d in sorted(qrels[q])]
    hidden = set(random.Random(seed).sample(items, round(share * len(items))))
    return {q: {d: g for d, g in qrels[q].items() if (q, d) not in hidden} for q in qrels}


def pool_of(dataset: Dataset, run: str, depth: int) -> Judged:
    tops = tops_of({run: dataset.runs[run]}, dataset.qrels)[0]
    judged: Judged = {q: {} for q in dataset.qrels}
    for query, top in tops.items():
        for doc, _ in top[:depth]:
            if doc in dataset.qrels[query]:
                judged[query][doc] = dataset.qrels[query][doc]
    return judged


def true_grade(dataset: Dataset, query: str, doc: str) -> int:
    """The qrels' grade; 0 for a document the qrels never judged (as scored)."""
    return dataset.qrels.get(query, {}).get(doc, 0)


# -- the simulated judge ----------------------------------------------------------


def labelled_items(dataset: Dataset) -> list[tuple[str, str]]:
    """Every judged item and every document of the six runs' top 10."""
    items = {(q, d) for q, docs in dataset.qrels.items() for d in docs}
    for grouped in dataset.runs.values():
        for query, entries in grouped.items():
            items.update((query, e.doc_id) for e in entries)
    return sorted(items)


def noisy_labels(truth: np.ndarray, width: float, rng: np.random.Generator) -> np.ndarray:
    low, high = min(CONTRACT.scale.grades), max(CONTRACT.scale.grades)
    return np.clip(np.rint(truth + width * rng.standard_normal(truth.size)), low, high)


def noise_for_kappa(dataset: Dataset, kappa: float) -> tuple[float, float]:
    """The noise width whose labels reach linear κ ``kappa`` with the qrels'
    grades (bisection, with one fixed stream of noise), and the κ reached."""
    people = np.array([g for docs in dataset.qrels.values() for g in docs.values()], float)
    normal = np.random.default_rng(12345).standard_normal(people.size)

    def reached(width: float) -> float:
        low, high = min(CONTRACT.scale.grades), max(CONTRACT.scale.grades)
        labels = np.clip(np.rint(people + width * normal), low, high)
        value = cohen_kappa(people, labels, "linear").value
        return float(value if value is not None else 0.0)

    low, high = 0.0, 5.0
    for _ in range(40):
        middle = (low + high) / 2
        if reached(middle) > kappa:
            low = middle
        else:
            high = middle
    width = (low + high) / 2
    return width, reached(width)


def simulated_judge(dataset: Dataset, width: float, seed: int) -> ModelLabels:
    items = labelled_items(dataset)
    truth = np.array([true_grade(dataset, q, d) for q, d in items], dtype=np.float64)
    labels = noisy_labels(truth, width, np.random.default_rng([seed, 7]))
    graded: dict[str, dict[str, int]] = {}
    for (query, doc), label in zip(items, labels, strict=True):
        graded.setdefault(query, {})[doc] = int(label)
    return ModelLabels(MODEL, graded)


# -- verdicts against the truth -----------------------------------------------------


@dataclass(frozen=True)
class Tally:
    settled: int
    probable: int
    probable_wrong: int
    settled_wrong: int
    model_kappa: float | None

    @property
    def decided(self) -> int:
        return self.settled + self.probable


def tally(report: ComparisonReport, truth: Sequence[float]) -> Tally:
    settled = probable = wrong = settled_wrong = 0
    for pair, diff in zip(report.pairs, truth, strict=True):
        if pair.verdict == "settled":
            settled += 1
            low = (pair.diff_bounds or (0.0, 0.0))[0]
            settled_wrong += (low > 0) != (diff > 0)
        elif pair.verdict == "probable":
            probable += 1
            wrong += (pair.probable_leader == "a") != (diff > 0)
    kappa = (
        None
        if report.prior is None or report.prior.model is None
        else report.prior.model.kappa_linear
    )
    return Tally(settled, probable, wrong, settled_wrong, kappa)


def states(report: ComparisonReport, truth: Sequence[float]) -> str:
    """Per pair, one letter: S settled, P probable with the true leader, W
    probable with the wrong one, ``-`` undecided (a settled pair is right:
    the bounds cover the truth)."""
    letters = []
    for pair, diff in zip(report.pairs, truth, strict=True):
        if pair.verdict == "settled":
            letters.append("S")
        elif pair.verdict == "probable":
            letters.append("P" if (pair.probable_leader == "a") == (diff > 0) else "W")
        else:
            letters.append("-")
    return "".join(letters)


# -- the scenarios ------------------------------------------------------------------


def scenarios(dataset: Dataset, args: argparse.Namespace, width: float) -> dict[str, Any]:
    starts: list[tuple[str, int, Judged]] = [
        ("hide30", seed, hide_share(dataset.qrels, HIDDEN_SHARE, seed))
        for seed in range(args.seeds)
    ]
    starts.append(("bm25pool5", 0, pool_of(dataset, POOL_RUN, POOL_DEPTH)))
    found: dict[str, Any] = {}
    for start, seed, judged in starts:
        for prior in ("rank", "model"):
            model = simulated_judge(dataset, width, seed) if prior == "model" else None
            report = comparison(dataset.runs, judged, draws=args.draws, seed=seed, model=model)
            assert report.population == tuple(sorted(dataset.qrels)), "the population changed"
            found.setdefault(f"{start}/{prior}", []).append(tally(report, dataset.truth))
    return found


def summarise(tallies: Sequence[Tally]) -> dict[str, Any]:
    decided = [t.decided for t in tallies]
    probable = sum(t.probable for t in tallies)
    wrong = sum(t.probable_wrong for t in tallies)
    kappas = [t.model_kappa for t in tallies if t.model_kappa is not None]
    return {
        "seeds": len(tallies),
        "decided_median": statistics.median(decided),
        "decided_mean": statistics.fmean(decided),
        "decided_min": min(decided),
        "decided_max": max(decided),
        "decided_share": sum(decided) / (len(PAIRS) * len(tallies)),
        "settled_mean": statistics.fmean(t.settled for t in tallies),
        "probable": probable,
        "probable_wrong": wrong,
        "wrong_share": wrong / probable if probable else 0.0,
        "settled_wrong": sum(t.settled_wrong for t in tallies),
        "model_kappa_median": statistics.median(kappas) if kappas else None,
    }


# -- the replay -----------------------------------------------------------------------


def replay(
    dataset: Dataset, order: str, prior: str, width: float, seed: int, args: argparse.Namespace
) -> dict[str, Any]:
    """Judge every hole of the bm25pool5 start in ``order``; the verdicts at
    every checkpoint (after each batch, and at the end). ``seed`` seeds the
    settle state's draws, the checkpoints' draws and the simulated judge."""
    judged = pool_of(dataset, POOL_RUN, POOL_DEPTH)
    model = simulated_judge(dataset, width, seed) if prior == "model" else None
    tops = tops_of(dataset.runs, judged)
    queries = sorted(dataset.qrels)
    state: SettleState | None = None
    sequence: list[tuple[str, str]] = []
    if order == "settle":
        state = SettleState(NAMES, tops, judged, CONTRACT, queries, PAIRS, model=model, seed=seed,
                            refresh=args.refresh, aim=args.aim)  # fmt: skip
        holes = len(state.holes())
    else:
        ranked = depth_order(dict(zip(NAMES, tops, strict=True)), CONTRACT.k)
        sequence = [(h.query_id, h.doc_id) for h, _ in ranked]
        holes = len(sequence)

    def verdicts() -> str:
        report = comparison(dataset.runs, judged, draws=args.batch_draws, seed=seed, model=model)
        return states(report, dataset.truth)

    checkpoints = [0]
    history = [verdicts()]
    started = time.perf_counter()
    ranking_seconds = 0.0
    for done in range(1, holes + 1):
        if state is not None:
            clock = time.perf_counter()
            hole = state.priorities()[0][0]
            query, doc = hole.query_id, hole.doc_id
            state.judge(query, doc, true_grade(dataset, query, doc))
            ranking_seconds += time.perf_counter() - clock
        else:
            query, doc = sequence[done - 1]
        judged[query][doc] = true_grade(dataset, query, doc)
        if done % args.batch == 0 or done == holes:
            checkpoints.append(done)
            history.append(verdicts())
    undecided = [p for p in range(len(PAIRS)) if history[0][p] == "-"]
    needed: dict[str, int | None] = {}
    for p in undecided:
        reached: int | None = None
        for index in range(len(checkpoints) - 1, -1, -1):
            if history[index][p] not in "SP":
                break
            reached = checkpoints[index]
        needed[pair_name(p)] = reached
    return {
        "holes": holes,
        "needed": needed,
        "decided_curve": [sum(letter in "SP" for letter in h) for h in history],
        "history": {pair_name(p): "".join(h[p] for h in history) for p in range(len(PAIRS))},
        "checkpoints": checkpoints,
        "seconds": time.perf_counter() - started,
        "ranking_seconds": ranking_seconds,
        "redrawn_per_judgment": None if state is None else state.redrawn / max(holes, 1),
        "start_states": history[0],
    }


def pair_name(p: int) -> str:
    a, b = PAIRS[p]
    return f"{NAMES[a]} vs {NAMES[b]}"


def replay_summary(settle: dict[str, Any], depth: dict[str, Any]) -> dict[str, Any]:
    pairs = sorted(settle["needed"])
    reached = [
        p for p in pairs if settle["needed"][p] is not None and depth["needed"][p] is not None
    ]
    never = [p for p in pairs if p not in reached]
    mean = {
        order: statistics.fmean(run["needed"][p] for p in reached) if reached else None
        for order, run in (("settle", settle), ("depth", depth))
    }
    total = {
        order: max((run["needed"][p] for p in reached), default=None)
        for order, run in (("settle", settle), ("depth", depth))
    }
    settle_mean, depth_mean = mean["settle"], mean["depth"]
    ratio = settle_mean / depth_mean if settle_mean is not None and depth_mean else None
    return {
        "pairs": pairs,
        "reached_by_both": reached,
        "never": never,
        "mean": mean,
        "total": total,
        "ratio": ratio,
        "met": ratio is not None
        and ratio <= REPLAY_GOAL
        and (total["settle"] or 0) <= (total["depth"] or 0),
    }


# -- printing -------------------------------------------------------------------------


def print_scenarios(
    name: str, found: Mapping[str, Sequence[Tally]], width: float, kappa: float
) -> dict[str, Any]:
    print(
        f"\n{name}: simulated judge = true grade + N(0, {width:.3f}²), rounded, clipped to 0..3; "
        f"linear κ {kappa:.3f} with the qrels' grades (target {KAPPA_TARGET[0]:.2f})"
    )
    print(f"  {'start / prior':22} {'decided/15 (median, mean, min-max)':38} {'settled':>8} "
          f"{'wrong probable':>16} {'κ of the prior':>15}  goal")  # fmt: skip
    out = {}
    for key, tallies in found.items():
        s = summarise(tallies)
        prior = key.split("/")[1]
        least, most = GOALS[prior]
        met = s["decided_share"] >= least and s["wrong_share"] <= most
        kappa_text = "" if s["model_kappa_median"] is None else f"{s['model_kappa_median']:.3f}"
        print(
            f"  {key:22} {s['decided_median']:>5} {s['decided_mean']:6.2f} "
            f"{s['decided_min']:>3}-{s['decided_max']:<3} ({s['decided_share']:5.1%} of "
            f"{len(PAIRS) * s['seeds']:>3})   {s['settled_mean']:6.2f} "
            f"{s['probable_wrong']:>4}/{s['probable']:<4} {s['wrong_share']:5.1%} {kappa_text:>15}"
            f"  ≥{least:.0%} decided, ≤{most:.0%} wrong: {'MET' if met else 'NOT MET'}"
        )
        if s["settled_wrong"]:
            print(f"  !! {s['settled_wrong']} settled verdicts disagree with the truth")
        out[key] = {**s, "met": met}
    return out


KAPPA_TARGET = [0.6]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--datasets", default="dl19,dl20")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--draws", type=int, default=10_000)
    parser.add_argument("--kappa", type=float, default=0.6)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--batch-draws", type=int, default=2_000)
    parser.add_argument("--replay-priors", default="rank,model")
    parser.add_argument("--replay-seeds", type=int, default=1)
    parser.add_argument("--refresh", type=float, default=REFRESH_TOLERANCE)
    parser.add_argument(
        "--aim", type=float, default=None,
        help="the P(A ahead) the settle order works toward [default: the state's own]",
    )  # fmt: skip
    parser.add_argument("--skip-replay", action="store_true")
    parser.add_argument("--skip-scenarios", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    KAPPA_TARGET[0] = args.kappa
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"k = {CONTRACT.k}, unjudged=zero, confidence {CONFIDENCE}; the model's labels are "
        "SIMULATED (see the docstring)"
    )
    report: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    ok = True
    for name in args.datasets.split(","):
        started = time.perf_counter()
        dataset = load(args.data, name)
        width, kappa = noise_for_kappa(dataset, args.kappa)
        entry: dict[str, Any] = {"noise_width": width, "kappa": kappa}
        if not args.skip_scenarios:
            found = scenarios(dataset, args, width)
            entry["scenarios"] = print_scenarios(name, found, width, kappa)
            ok &= all(s["met"] for s in entry["scenarios"].values())
            print(f"  ({time.perf_counter() - started:.0f} s)")
        if not args.skip_replay:
            entry["replay"] = {}
            for prior in args.replay_priors.split(","):
                seeds = []
                for seed in range(args.replay_seeds):
                    runs = {
                        order: replay(dataset, order, prior, width, seed, args)
                        for order in ("settle", "depth")
                    }
                    seeds.append({**runs, "summary": replay_summary(runs["settle"], runs["depth"])})
                entry["replay"][prior] = seeds
                ok &= all(one["summary"]["met"] for one in seeds)
                print_replay(name, prior, seeds, args)
        report[name] = entry
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0 if ok else 1


def print_replay(
    name: str, prior: str, seeds: Sequence[Mapping[str, Any]], args: argparse.Namespace
) -> None:
    first = seeds[0]
    # with the model prior the pairs undecided at the start differ by seed
    pairs = sorted({pair for one in seeds for pair in one["summary"]["pairs"]})
    print(
        f"\n{name} replay from BM25's depth-5 pool, {prior} prior"
        f"{' (simulated judge)' if prior == 'model' else ''}: {first['settle']['holes']} holes "
        f"(a hole the qrels never judged counts as 0); verdicts every {args.batch} judgments "
        f"with {args.batch_draws} draws; at the start (S settled, P probable and right, "
        f"W probable and wrong, - undecided), per seed: "
        f"{' '.join(one['settle']['start_states'] for one in seeds)}; · decided at the start"
    )
    print(
        "  judgments until each pair undecided at the start is decided and right for good, "
        "settle / depth, per seed:"
    )
    for pair in pairs:
        cells = "  ".join(
            f"{one['settle']['needed'][pair]!s:>5} /{one['depth']['needed'][pair]!s:>5}"
            if pair in one["settle"]["needed"]
            else f"{'·':>5} /{'·':>5}"
            for one in seeds
        )
        print(f"  {pair:32} {cells}")
    ratios = []
    for seed, one in enumerate(seeds):
        summary = one["summary"]
        mean, total = summary["mean"], summary["total"]
        if summary["ratio"] is None:
            print(f"  seed {seed}: no pair to compare")
            continue
        ratios.append(summary["ratio"])
        print(
            f"  seed {seed}: mean settle {mean['settle']:.1f}, depth {mean['depth']:.1f}, "
            f"ratio {summary['ratio']:.2f} (goal ≤ {REPLAY_GOAL}); all of them after settle "
            f"{total['settle']}, depth {total['depth']}: {'MET' if summary['met'] else 'NOT MET'}"
            + (f"; never right for good: {', '.join(summary['never'])}" if summary["never"] else "")
            + f" ({one['settle']['seconds']:.0f} s settle, of which the state "
            f"{one['settle']['ranking_seconds']:.0f} s, "
            f"{one['settle']['redrawn_per_judgment']:.1f} queries redrawn per judgment; "
            f"{one['depth']['seconds']:.0f} s depth)"
        )
    if len(ratios) > 1:
        print(f"  ratio over the seeds: median {statistics.median(ratios):.2f}, "
              f"{min(ratios):.2f}-{max(ratios):.2f}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
