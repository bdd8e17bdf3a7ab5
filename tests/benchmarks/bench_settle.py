#!/usr/bin/env python3
"""Replay benchmark: how many judgments settle the comparisons, in which order.

On DL19 and DL20 (six runs each, from tests/data), the judgments of every
document outside the depth-10 pool of the three oldest runs (BM25, BM25+RM3
and TAS-B) are hidden. The hidden documents in the six runs' top 10 (the
holes) are then judged one at a time from the true qrels (a document the
qrels never judged counts as grade 0), in three orders: ``settle``
(`judgepool.core.holes.settle`, recomputed after every judgment, as the app's
settle queue is), ``depth`` (classic pooling: by rank, round-robin over the
runs) and a seeded random order.

For every pair of runs that is settled once everything is judged but not at
the start, it records after how many judgments the pair is settled (exact
bounds only narrow as judgments arrive, so a settled pair stays settled),
and prints per pair, their mean, the count until all are settled, and the
curve of settled pairs against judgments. The goal: settle's mean at most
0.6 × depth's, and settle never needing more judgments than depth to settle
them all.

    .venv/bin/python tests/benchmarks/bench_settle.py [--datasets dl19,dl20] [--seed 7]
        [--json OUT]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judgepool.core.comparing.bounds import TopK
from judgepool.core.holes.settle import SettleState, depth_order
from judgepool.core.scoring.aggregate import group_by_query
from judgepool.core.scoring.ranking import form_list
from judgepool.core.terms.contract import Contract
from judgepool.formats.trec import read_qrels, read_run

DATA = Path(__file__).resolve().parents[1] / "data"
RUNS = ("bm25", "bm25-rm3", "tasb", "openai-ada2", "splade-pp-ed", "repllama")
FILES = {
    "bm25": "bm25.top100",
    "bm25-rm3": "bm25-rm3.top100",
    "tasb": "tasb.top100",
    "openai-ada2": "openai-ada2.top100",
    "splade-pp-ed": "splade-pp-ed.top100",
    "repllama": "repllama.top1000",
}
POOLED_RUNS = ("bm25", "bm25-rm3", "tasb")  # the three oldest systems
POOL_DEPTH = 10
CONTRACT = Contract(k=10, unjudged="zero")
ORDERS = ("settle", "depth", "random")


def load(dataset: str) -> tuple[dict[str, dict[str, list]], dict[str, dict[str, int]]]:
    folder = DATA / f"{dataset}-passage"
    qrels = read_qrels(folder / f"qrels.{dataset}-passage.txt.gz", CONTRACT.scale).judgments
    runs = {
        name: group_by_query(read_run(folder / "runs" / f"{FILES[name]}.trec.gz").entries)
        for name in RUNS
    }
    return runs, {q: dict(d) for q, d in qrels.items()}


def tops_of(
    runs: dict[str, dict[str, list]], judgments: dict[str, dict[str, int]]
) -> dict[str, dict[str, TopK]]:
    tops: dict[str, dict[str, TopK]] = {}
    for name, grouped in runs.items():
        tops[name] = {}
        for query, entries in grouped.items():
            if query in judgments:
                formed = form_list(query, entries, judgments[query], CONTRACT)
                tops[name][query] = tuple(
                    (d.entity, d.grade) for d in formed.deduplicated[: CONTRACT.k]
                )
    return tops


def hidden_judgments(
    runs: dict[str, dict[str, list]], qrels: dict[str, dict[str, int]]
) -> dict[str, dict[str, int]]:
    """The qrels restricted to the depth-10 pool of the pooled runs."""
    full = tops_of(runs, qrels)
    kept: dict[str, dict[str, int]] = {q: {} for q in qrels}
    for name in POOLED_RUNS:
        for query, top in full[name].items():
            for doc, _ in top[:POOL_DEPTH]:
                if doc in qrels[query]:
                    kept[query][doc] = qrels[query][doc]
    return kept


def replay(dataset: str, order: str, seed: int) -> tuple[dict[str, int | None], list[int], int]:
    """(judgments needed per pair, settled pairs after each judgment, holes)."""
    runs, qrels = load(dataset)
    start = hidden_judgments(runs, qrels)
    tops = tops_of(runs, start)
    queries = sorted(q for q in qrels if any(q in tops[name] for name in RUNS))
    pairs = list(itertools.combinations(range(len(RUNS)), 2))
    state = SettleState(RUNS, [tops[name] for name in RUNS], start, CONTRACT, queries, pairs)
    names = [f"{RUNS[a]} vs {RUNS[b]}" for a, b in pairs]

    def settled() -> set[int]:
        open_now = set(state.open_pairs())
        return {p for p in range(len(pairs)) if p not in open_now and _decided(state, p)}

    holes = state.holes()
    total = len(holes)
    if order == "depth":
        sequence = [h for h, _ in depth_order({n: tops[n] for n in RUNS}, CONTRACT.k)]
    elif order == "random":
        sequence = list(holes)
        random.Random(seed).shuffle(sequence)
    else:
        sequence = []
    at_start = settled()
    needed: dict[str, int | None] = {}
    curve = [len(at_start)]
    done = 0
    while True:
        if order == "settle":
            ranked = state.priorities()
            if not ranked:
                break
            hole = ranked[0][0]
        else:
            if done >= len(sequence):
                break
            hole = sequence[done]
        true_grade = qrels.get(hole.query_id, {}).get(hole.doc_id, 0)
        state.judge(hole.query_id, hole.doc_id, true_grade)
        done += 1
        now = settled()
        for p in now - at_start:
            needed.setdefault(names[p], done)
        curve.append(len(now))
    final = settled()
    for p in range(len(pairs)):
        if p in final and p not in at_start:
            needed.setdefault(names[p], done)
    return needed, curve, total


def _decided(state: SettleState, index: int) -> bool:
    low, high = state.pair_bounds(index)
    return low > 1e-12 or high < -1e-12


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="dl19,dl20")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {}
    ok = True
    for dataset in args.datasets.split(","):
        results: dict[str, Any] = {}
        for order in ORDERS:
            started = time.perf_counter()
            needed, curve, total = replay(dataset, order, args.seed)
            results[order] = {
                "needed": needed,
                "curve": curve,
                "holes": total,
                "seconds": time.perf_counter() - started,
            }
        pairs = sorted(set(results["settle"]["needed"]) & set(results["depth"]["needed"]))
        print(
            f"\n{dataset}: {results['depth']['holes']} holes; pooled from "
            f"{', '.join(POOLED_RUNS)} at depth {POOL_DEPTH}; {len(pairs)} pairs to settle"
        )
        print(f"  {'pair':40} " + " ".join(f"{o:>12}" for o in ORDERS))
        for pair in pairs:
            row = [results[o]["needed"].get(pair) for o in ORDERS]
            print(f"  {pair:40} " + " ".join(f"{v!s:>7}" for v in row))
        summary = {}
        for order in ORDERS:
            values = [results[order]["needed"][p] for p in pairs if results[order]["needed"].get(p)]
            summary[order] = {
                "mean": statistics.fmean(values) if values else None,
                "all": max(values) if values else None,
            }
            print(
                f"  {order:8} mean {summary[order]['mean']}, all settled after "
                f"{summary[order]['all']} ({results[order]['seconds']:.1f} s)"
            )
        if summary["depth"]["mean"]:
            ratio = summary["settle"]["mean"] / summary["depth"]["mean"]
            never_more = summary["settle"]["all"] <= summary["depth"]["all"]
            met = ratio <= 0.6 and never_more
            ok &= met
            print(
                f"  settle / depth mean: {ratio:.2f} (goal <= 0.6); settle needs "
                f"{'no more' if never_more else 'MORE'} judgments to settle all: "
                f"{'MET' if met else 'NOT MET'}"
            )
        report[dataset] = {"results": results, "summary": summary}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
