#!/usr/bin/env python3
"""Sixty-three runs at once: ``judgepool compare`` beside ranx's ``compare``.

A command-line script (not a pytest test). It makes 63 runs over DL20's
judged queries from the six real DL20 runs of the shared data folder (written
once to ``.cache/compare-many/``, git-ignored; deterministic, so every
machine compares the same files):

- the six runs themselves, cut to their top 100;
- 19 copies of one of them (in turn) with a few neighbours swapped in each
  query's top 20 (seeded): runs close to a real one, hard to tell apart;
- 19 interleavings of two of them (a seeded coin picks which run gives the
  next document not yet taken, as team-draft interleaving does): runs between
  two systems, whose top 10 mix both runs' holes;
- 19 copies of one with two or three documents from ranks 11-100 promoted into
  the top 10 (seeded): documents a pool of depth 10 rarely judged, so these
  runs carry holes the six do not, and the bounds and draws have work to do.

Scores descend with the rank (no ties), the tag is the run's name.

Each round runs, in fresh processes, interleaved and rotated as the other
benchmarks are (README):

- judgepool: ``judgepool compare RUN... --qrels QRELS --unjudged zero`` (the
  table, the command a user types: 1,953 pairs, the default 10,000 sign
  flips, 10,000 bootstrap resamples and the draws of the holes, and exact
  bounds);
- ranx: ``Qrels.from_file``, ``Run.from_file`` for each run (reading counted,
  as for judgepool), then ``compare(qrels, runs, ["ndcg@10"],
  stat_test="fisher", make_comparable=True)``: nDCG@10 and its randomisation
  test for every ordered pair of runs (3,906 tests of ranx's default 1,000
  permutations; its results printed as JSON: its table needs a letter a run
  and has 26). numba compiles ranx's code on first use
  and caches it beside ranx; a round that compiled is marked, and
  ``--warm-ranx`` runs ranx once before the rounds so that none does.

It prints each round, then per tool the median wall time (min, max), the CPU
time, the peak memory, the cores other processes took meanwhile, and the
ratio of the medians, judgepool / ranx, against the goal of issue 32 (at most
0.3).

    .venv/bin/python tests/benchmarks/bench_compare_many.py [--rounds 5] [--runs 63]
        [--data DIR] [--warm-ranx] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any, Final

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from score_bench_measure import run_child, warm_page_cache  # noqa: E402  (a script beside this one)

# the shared data folder beside the repository (or a worktree's parents)
DL20: Final = next(
    (p / "shared/data/dl20-passage" for p in HERE.parents if (p / "shared/data").is_dir()),
    Path("/work/shared/data/dl20-passage"),
)
SYSTEMS: Final = ("bm25", "bm25-rm3", "tasb", "openai-ada2", "splade-pp-ed", "repllama")
CACHE: Final = HERE / ".cache" / "compare-many"  # git-ignored
DEPTH: Final = 100  # ranks kept of each run
SWAP_DEPTH: Final = 20  # neighbour swaps happen in the top 20
SWAPS: Final = 6  # per query
GOAL: Final = 0.3  # judgepool's median at most this share of ranx's
# bump when the runs made change: the cache is then written again
GENERATION: Final = 1

RANX_PROG: Final = r"""
import json
import sys
from ranx import Qrels, Run, compare
qrels = Qrels.from_file(sys.argv[1], kind="trec")
runs = []
for path in sys.argv[2:]:
    run = Run.from_file(path, kind="trec")
    run.name = path.rsplit("/", 1)[-1]
    runs.append(run)
report = compare(qrels, runs, ["ndcg@10"], stat_test="fisher", make_comparable=True)
# its table runs out of superscript letters past 26 runs: the JSON instead
print(json.dumps(report.to_dict()))
"""


def read_system(path: Path) -> dict[str, list[str]]:
    """A run's documents per query in rank order (the rank column), top ``DEPTH``."""
    lists: dict[str, list[tuple[int, str]]] = {}
    with path.open(encoding="ascii") as lines:
        for line in lines:
            query, _, doc, rank, _score, _tag = line.split()
            lists.setdefault(query, []).append((int(rank), doc))
    return {q: [doc for _, doc in sorted(docs)[:DEPTH]] for q, docs in lists.items()}


def swapped(docs: list[str], rng: random.Random) -> list[str]:
    docs = list(docs)
    for _ in range(SWAPS):
        j = rng.randrange(min(SWAP_DEPTH, len(docs)) - 1)
        docs[j], docs[j + 1] = docs[j + 1], docs[j]
    return docs


def interleaved(first: list[str], second: list[str], rng: random.Random) -> list[str]:
    taken: set[str] = set()
    merged: list[str] = []
    sources = [iter(first), iter(second)]
    while len(merged) < DEPTH:
        order = [0, 1] if rng.random() < 0.5 else [1, 0]
        added = False
        for which in order:
            for doc in sources[which]:
                if doc not in taken:
                    taken.add(doc)
                    merged.append(doc)
                    added = True
                    break
            if added:
                break
        if not added:
            break
    return merged


def promoted(docs: list[str], rng: random.Random) -> list[str]:
    docs = list(docs)
    for _ in range(rng.choice((2, 3))):
        doc = docs.pop(rng.randrange(10, len(docs)))
        docs.insert(rng.randrange(10), doc)
    return docs


def make_runs(data: Path, count: int) -> tuple[list[Path], Path]:
    """The ``count`` runs (the first six the systems themselves), written once."""
    qrels = data / "qrels.dl20-passage.txt"
    found = [sorted((data / "runs").glob(f"{name}.top*.trec")) for name in SYSTEMS]
    if any(len(paths) != 1 for paths in found) or not qrels.exists():
        sys.exit(f"bench_compare_many: DL20's six runs and qrels not found under {data}")
    folder = CACHE / f"g{GENERATION}"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"run{i:02d}.trec" for i in range(count)]
    if all(path.exists() for path in paths):
        return paths, qrels
    systems = [read_system(paths_[0]) for paths_ in found]
    for i, path in enumerate(paths):
        rng = random.Random(1000 + i)
        base = systems[i % len(systems)]
        kind = "system" if i < len(systems) else ("swap", "interleave", "promote")[i % 3]
        # the other run of an interleaving: never the base (an offset of 1..5)
        other = systems[(i + 1 + (i // len(systems)) % (len(systems) - 1)) % len(systems)]
        lines = []
        for query in sorted(base):
            docs = base[query]
            if kind == "swap":
                docs = swapped(docs, rng)
            elif kind == "interleave":
                docs = interleaved(docs, other.get(query, docs), rng)
            elif kind == "promote":
                docs = promoted(docs, rng)
            name = f"{kind}{i:02d}"
            lines += [f"{query} Q0 {d} {r} {DEPTH + 1 - r} {name}\n" for r, d in enumerate(docs, 1)]
        path.write_text("".join(lines), encoding="ascii")
    return paths, qrels


def argvs(paths: list[Path], qrels: Path) -> dict[str, list[str]]:
    files = list(map(str, paths))
    return {
        "judgepool": [sys.executable, "-m", "judgepool", "compare", *files, "--qrels", str(qrels),
                      "--unjudged", "zero"],
        "ranx": [sys.executable, "-c", RANX_PROG, str(qrels), *files],
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=63)
    parser.add_argument("--data", type=Path, default=DL20)
    parser.add_argument("--warm-ranx", action="store_true", help="run ranx once first")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    paths, qrels = make_runs(args.data, args.runs)
    for path in [*paths, qrels]:
        warm_page_cache(path)
    commands = argvs(paths, qrels)
    pairs = args.runs * (args.runs - 1) // 2
    print(f"{args.runs} runs ({pairs:,} pairs) over DL20's judged queries, in {paths[0].parent}")
    if args.warm_ranx:
        child = run_child(commands["ranx"])
        print(f"ranx warmed up: {child.wall_s:.2f} s (numba's cache filled if it was empty)")
    names = list(commands)
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for number in range(1, args.rounds + 1):
        shift = (number - 1) % len(names)
        for name in names[shift:] + names[:shift]:
            child = run_child(commands[name])
            if child.returncode != 0:
                sys.exit(f"bench_compare_many: {name} failed:\n{child.stderr[-2000:]}")
            others = (child.others_cpu_s or 0.0) / child.wall_s if child.wall_s > 0 else 0.0
            results[name].append({"wall": child.wall_s, "cpu": child.cpu_s,
                                  "peak_mb": child.peak_rss_mb, "others": others})  # fmt: skip
            usage = f"cpu {child.cpu_s:6.2f} s  {child.peak_rss_mb:5.0f} MB"
            print(f"round {number}: {name:9} {child.wall_s:6.2f} s  {usage}  others "
                  f"{others:.2f} cores", flush=True)  # fmt: skip
    print(f"\nmedians of {args.rounds} rounds:")
    medians: dict[str, float] = {}
    for name, rows in results.items():
        walls = [row["wall"] for row in rows]
        medians[name] = statistics.median(walls)
        print(f"  {name:9} {medians[name]:6.2f} s (min {min(walls):.2f}, max {max(walls):.2f})  "
              f"cpu {statistics.median(row['cpu'] for row in rows):6.2f} s  "
              f"peak {max(row['peak_mb'] for row in rows):5.0f} MB  others "
              f"{statistics.median(row['others'] for row in rows):.2f} cores")  # fmt: skip
    ratio = medians["judgepool"] / medians["ranx"]
    paired = zip(results["judgepool"], results["ranx"], strict=True)
    per_round = [j["wall"] / r["wall"] for j, r in paired]
    print(f"judgepool / ranx: {ratio:.3f} (per round {min(per_round):.3f}-{max(per_round):.3f}); "
          f"goal at most {GOAL}: {'met' if ratio <= GOAL else 'NOT met'}")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps({"results": results, "medians": medians,
                                         "ratio": ratio}, indent=2))  # fmt: skip
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
