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

For each, `judgepool.core.comparing.verdicts.compare` with ``--draws`` draws (default
10,000) and confidence 0.95 under (i) the holes' prior ``--prior-kind``
(``rank``, the default, which the README's first tables were measured with,
or ``runs``, compare's default) and (ii) a model prior over it, from a
*simulated* judge (or, with ``--judge FILE``, a real LLM judge's confusion
with NIST's grades, carried onto the items: `replay_starts.judge_labels`).
The simulated judge: each item's true grade plus Gaussian noise, rounded
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
(`judgepool.core.holes.settle.SettleState` on the same prior as the comparisons,
updated after each judgment and asked for its first hole, as the app's queue
is; with ``--team N``, asked for a batch of N holes, `SettleState.batch`,
all judged before it is asked again, as a team of N would) and in depth
order (by rank, round-robin over the runs). The verdicts are recomputed every ``--batch``
judgments (default 20) with ``--batch-draws`` draws (default 2,000), and at
the end. For each pair undecided at the start: the number of judgments
until it reaches a correct decided verdict and keeps it at every later
checkpoint (so it is a multiple of the batch, or the total). Goal: settle's
mean ≤ 0.5 × depth's, and settle never needing more judgments in total (the
last such pair) than depth.

    .venv/bin/python tests/benchmarks/bench_probable.py [--datasets dl19,dl20]
        [--seeds 20] [--draws 10000] [--batch 20] [--batch-draws 2000]
        [--replay-priors rank,model] [--prior-kind rank|runs] [--team N]
        [--judge llmjudge/model.NAME.qrels] [--skip-replay] [--data DIR] [--json OUT]

Everything runs in this process through the core's APIs (no subprocess per
step); the whole run takes a few minutes on the 2-core machine. The datasets,
starts and judges are `replay_starts`'s (shared with ``bench_honest.py`` and
``bench_sample.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgepool.core.comparing.verdicts import ComparisonReport
from judgepool.core.holes.settle import REFRESH_TOLERANCE, SettleState, depth_order

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the datasets, starts and judges, shared with bench_honest.py and bench_sample.py
import replay_starts
from replay_starts import (
    CONFIDENCE,
    CONTRACT,
    DEFAULT_DATA,
    HIDDEN_SHARE,
    NAMES,
    PAIRS,
    POOL_DEPTH,
    POOL_RUN,
    Dataset,
    Judged,
    comparison,
    hide_share,
    judge_labels,
    load,
    noise_for_kappa,
    pool_of,
    real_confusion,
    tops_of,
    true_grade,
)

GOALS = {"rank": (0.60, 0.05), "model": (0.75, 0.05)}  # (decided at least, wrong at most)
REPLAY_GOAL = 0.5
# the tables of the README were measured with the rank prior (and the model's
# over it): compare's default is now the runs prior (bench_honest.py has both)
PRIOR_KIND = "rank"

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
            model = judge_labels(dataset, width, seed) if prior == "model" else None
            report = comparison(
                dataset.runs, judged, draws=args.draws, seed=seed, model=model,
                prior_kind=PRIOR_KIND,
            )  # fmt: skip
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
    model = judge_labels(dataset, width, seed) if prior == "model" else None
    tops = tops_of(dataset.runs, judged)
    queries = sorted(dataset.qrels)
    state: SettleState | None = None
    sequence: list[tuple[str, str]] = []
    if order == "settle":
        state = SettleState(NAMES, tops, judged, CONTRACT, queries, PAIRS, model=model, seed=seed,
                            refresh=args.refresh, aim=args.aim, prior=PRIOR_KIND)  # fmt: skip
        holes = len(state.holes())
    else:
        ranked = depth_order(dict(zip(NAMES, tops, strict=True)), CONTRACT.k)
        sequence = [(h.query_id, h.doc_id) for h, _ in ranked]
        holes = len(sequence)

    def verdicts() -> str:
        report = comparison(
            dataset.runs, judged, draws=args.batch_draws, seed=seed, model=model,
            prior_kind=PRIOR_KIND,
        )  # fmt: skip
        return states(report, dataset.truth)

    checkpoints = [0]
    history = [verdicts()]
    started = time.perf_counter()
    ranking_seconds = 0.0
    batch: list[tuple[str, str]] = []  # a team's batch, judged before the next is chosen
    for done in range(1, holes + 1):
        if state is not None:
            clock = time.perf_counter()
            if not batch:
                batch = [(h.query_id, h.doc_id) for h, _ in state.batch(args.team)]
            query, doc = batch.pop(0)
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
    if replay_starts.REAL_JUDGE[0] is None:
        print(
            f"\n{name}: simulated judge = true grade + N(0, {width:.3f}²), rounded, clipped to "
            f"0..3; linear κ {kappa:.3f} with the qrels' grades (target {KAPPA_TARGET[0]:.2f})"
        )
    else:
        rows = "; ".join(
            f"{truth}: " + " ".join(f"{p:.2f}" for p in row)
            for truth, row in enumerate(replay_starts.REAL_JUDGE[0])
        )
        print(f"\n{name}: a real judge's confusion carried onto the items, P(label | grade) {rows}")
    print(f"  {'start / prior':22} {'decided/15 (median, mean, min-max)':38} {'settled':>8} "
          f"{'wrong probable':>16} {'κ of the prior':>15}  goal")  # fmt: skip
    out = {}
    for key, tallies in found.items():
        s = summarise(tallies)
        start, prior = key.split("/")
        label = f"{start}/{PRIOR_KIND}" + (" + model" if prior == "model" else "")
        least, most = GOALS[prior]
        met = s["decided_share"] >= least and s["wrong_share"] <= most
        kappa_text = "" if s["model_kappa_median"] is None else f"{s['model_kappa_median']:.3f}"
        print(
            f"  {label:22} {s['decided_median']:>5} {s['decided_mean']:6.2f} "
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
    global PRIOR_KIND  # one prior for the whole run, read by comparison() and replay()
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
    parser.add_argument(
        "--judge", type=Path, default=None,
        help="a real LLM judge's labels (a model.*.qrels file of the shared data's llmjudge "
        "folder): its confusion with NIST's grades, carried onto the dataset, gives the "
        "model's labels instead of the simulated judge's [default: the simulated judge]",
    )  # fmt: skip
    parser.add_argument(
        "--team", type=int, default=1,
        help="annotators judging at once in the replay: the settle order hands out a batch "
        "of this many holes (SettleState.batch) and chooses again once all are judged "
        "[default: 1, the order re-planned after every judgment]",
    )  # fmt: skip
    parser.add_argument(
        "--prior-kind", choices=("rank", "runs"), default=PRIOR_KIND,
        help="the holes' prior under the model's, for the comparisons and the settle order "
        "alike (they must agree: an order aiming at one prior's verdicts is judged by the "
        "other's otherwise) [default: %(default)s]",
    )  # fmt: skip
    parser.add_argument("--skip-replay", action="store_true")
    parser.add_argument("--skip-scenarios", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    KAPPA_TARGET[0] = args.kappa
    if args.judge is not None:
        replay_starts.REAL_JUDGE[0] = real_confusion(args.judge)
    PRIOR_KIND = args.prior_kind
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
    over = "a model's labels over the " if prior == "model" else ""
    print(
        f"\n{name} replay from BM25's depth-5 pool, {over}{PRIOR_KIND} prior, "
        f"settle in batches of {args.team}: {first['settle']['holes']} holes "
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
