"""Time the fast path on a large run: `read_run_columns`, then `evaluate_columns`.

Not a test (pytest collects ``test_*.py`` only). Run by hand:

    python tests/benchmarks/profile_fast.py [RUN] [QRELS] [--rounds 5]

Defaults: the 6.98 M-line synthetic run that ``bench_score.py`` generates and
caches under ``tests/benchmarks/.cache/`` (see tests/benchmarks/README.md) and the MS MARCO
dev-small qrels. Scores with the ``trec_eval`` preset at k = 10 (all per-query
fields), prints each round, the medians and the process's peak resident set.
Wall times on a shared two-core machine are noisy: the CPU seconds beside them
(this process, all threads) help tell load from cost.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.terms.contract import Scale, preset
from judgepool.formats.fast_run import read_run_columns
from judgepool.formats.trec import read_qrels

HERE = Path(__file__).resolve().parent
# the shared data sits beside the repository (see bench_score.py)
DATA = HERE.parents[2] / "shared" / "data" / "msmarco-passage-dev-small"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cached = sorted((HERE / ".cache").glob("*.run"))
    parser.add_argument(
        "run",
        nargs="?" if cached else None,
        default=str(cached[-1]) if cached else None,
        help="the run to read (default: the run bench_score.py cached)",
    )
    parser.add_argument(
        "qrels", nargs="?", default=str(DATA / "qrels.msmarco-passage.dev-subset.txt")
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("-k", type=int, default=10)
    args = parser.parse_args()

    judgments = read_qrels(args.qrels, Scale(0, 3)).judgments
    contract = preset("trec_eval", k=args.k)
    reads: list[float] = []
    evals: list[float] = []
    totals: list[float] = []
    for round_ in range(1, args.rounds + 1):
        start, cpu0 = time.perf_counter(), _cpu()
        columns = read_run_columns(args.run)
        middle, cpu1 = time.perf_counter(), _cpu()
        evaluation = evaluate_columns(columns, judgments, contract, source=args.run)
        end, cpu2 = time.perf_counter(), _cpu()
        reads.append(middle - start)
        evals.append(end - middle)
        totals.append(end - start)
        print(
            f"round {round_}: read {middle - start:.3f} s (cpu {cpu1 - cpu0:.2f}), "
            f"evaluate {end - middle:.3f} s (cpu {cpu2 - cpu1:.2f}), "
            f"total {end - start:.3f} s; {len(columns):,} lines, "
            f"nDCG@{args.k} {evaluation.summary.ndcg:.6f} over {evaluation.summary.scored} queries",
            flush=True,
        )
        del columns, evaluation
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
    print(
        f"median over {args.rounds} rounds: read {statistics.median(reads):.3f} s, "
        f"evaluate {statistics.median(evals):.3f} s, total {statistics.median(totals):.3f} s; "
        f"peak RSS {peak_mb:.0f} MB (whole process, qrels included)"
    )


if __name__ == "__main__":
    main()
