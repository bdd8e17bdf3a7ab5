"""How much a comparison of runs will cost, estimated before any run is read,
and the limit past which ``compare`` refuses it.

Pairing every run with every other grows as the square of the runs: 10,000
runs are 49,995,000 pairs, and ``compare`` of those ran to 9.4 GB before it
failed. What a comparison holds is known from four numbers before a line of a
run is read: the pairs, the judged queries (the population is at most those),
the permutations and the bootstrap resamples. So ``compare`` counts first and
refuses, with the estimate and the ways to narrow it, what would pass
`MEMORY_LIMIT`.

Memory (bytes), measured with ``tests/benchmarks/bench_compare_pairs.py`` (40
to 220 runs over DL19's 43 judged queries, each a fresh process, its peak
resident memory; the estimate came within 5 % of every measurement above
300 MB, and of 2,000 runs against one):

- per pair, the bootstrap's resampled means (8 bytes each) and the copy
  ``np.percentile`` sorts (8 more): `BOOTSTRAP_BYTES` per resample; while the
  sign-flip test runs instead, three temporaries of a block of draws' sums,
  `SIGN_FLIP_BYTES` (whichever is larger is the peak: they come one after the
  other);
- per pair and query, `PAIR_QUERY_BYTES`: the per-query differences, the copy
  of them the report keeps, the pair's bounds per query;
- per run and query, `RUN_QUERY_BYTES`: its scores and top k (2,000 runs
  against one measured 641 MB);
- `BASE_BYTES`: the interpreter, numpy and scipy, the judgments.

Time (CPU seconds on the project's 2-core machine, from the same runs, and
from one process timing the bounds alone for 20 to 600 runs): the start,
`BASE_SECONDS`; reading each run, `READ_SECONDS` (these runs have 1,290
lines; a 7 M-line run takes about a second); the exact bounds,
`TABLE_PAIR_SECONDS` per pair for each table of holes (a table holds as many
queries as `queries_per_table` allows: all 43 up to 89 runs at k = 10, one
each past 632 runs, so the bounds cost grows faster than the pairs); and the
draws, `FLIP_SECONDS` per pair, query and permutation, `RESAMPLE_SECONDS`
per pair, query and resample. It came within about 40 % of the
measurements, which the machine's load moved by as much; larger runs, and
runs whose holes differ more, take longer.

`MEMORY_LIMIT`, 4 GB: the largest comparisons measured, 218 and 220 runs all
against all (23,653 and 24,090 pairs) at the default 10,000 permutations and
resamples, peaked at 3.99 and 4.05 GB and took 78 and 83 to 92 CPU seconds
(about 80 % of them the bounds). Past that the memory grows by 164 kB a pair
and the time faster than the pairs, and a machine with 8 GB (a laptop) has
about half of it free. So the limit lets through 218 runs all against all
over 43 queries at the default draws (and refuses 219); ``--baseline``
brings it to runs − 1 pairs (about 14,500 runs against one), and fewer
resamples make more pairs fit (1,000: 627 runs all against all).

Not in the estimate: the table of every run's holes the bounds are solved on
(`judgepool.core.comparing.bound_tables`). It is held to 4 M cells up to 632 runs at
k = 10; past that, one query's table has runs × (the union of their holes)
cells, which only reading the runs tells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from judgepool.core.comparing.verdicts import queries_per_table
from judgepool.core.terms.errors import PolicyError

BOOTSTRAP_BYTES: Final = 16
SIGN_FLIP_BYTES: Final = 3 * 8 * 512  # significance._BLOCK draws at a time
PAIR_QUERY_BYTES: Final = 80
RUN_QUERY_BYTES: Final = 2400
BASE_BYTES: Final = 110e6
BASE_SECONDS: Final = 1.0
READ_SECONDS: Final = 0.007
TABLE_PAIR_SECONDS: Final = 0.6e-3
FLIP_SECONDS: Final = 0.3e-9
RESAMPLE_SECONDS: Final = 1.7e-9

MEMORY_LIMIT: Final = 4e9


@dataclass(frozen=True)
class ComparisonEstimate:
    """What a comparison is expected to need: peak memory in bytes, and CPU seconds."""

    memory: float
    seconds: float


def estimate_comparison(
    runs: int, pairs: int, queries: int, k: int, permutations: int, bootstrap: int
) -> ComparisonEstimate:
    """The estimate for ``pairs`` pairs of ``runs`` runs over at most ``queries``
    queries at cutoff ``k``, with ``permutations`` sign flips (all of them,
    fewer, when there are no more assignments than that) and ``bootstrap``
    resamples."""
    flips = permutations if queries >= 63 else min(permutations, 2**queries)
    per_pair = max(BOOTSTRAP_BYTES * bootstrap, SIGN_FLIP_BYTES) + PAIR_QUERY_BYTES * queries
    memory = BASE_BYTES + runs * queries * RUN_QUERY_BYTES + pairs * per_pair
    tables = math.ceil(queries / queries_per_table(runs, k)) if runs else 0
    seconds = (
        BASE_SECONDS
        + READ_SECONDS * runs
        + pairs * tables * TABLE_PAIR_SECONDS
        + pairs * queries * (FLIP_SECONDS * flips + RESAMPLE_SECONDS * bootstrap)
    )
    return ComparisonEstimate(memory, seconds)


class ComparisonTooLarge(PolicyError):
    """A comparison whose estimate passes `MEMORY_LIMIT`, refused before any run is read."""


def check_comparison_size(
    runs: int,
    pairs: int,
    queries: int,
    k: int,
    permutations: int,
    bootstrap: int,
    *,
    baseline: bool,
) -> ComparisonEstimate:
    """The estimate, or `ComparisonTooLarge` naming it and the ways to narrow
    the comparison when it would pass `MEMORY_LIMIT`."""
    estimate = estimate_comparison(runs, pairs, queries, k, permutations, bootstrap)
    if estimate.memory <= MEMORY_LIMIT:
        return estimate
    ways = []
    if not baseline:
        ways.append(f"--baseline RUN compares every run with one ({runs - 1:,} pairs)")
    ways.append("compare fewer runs")
    if BOOTSTRAP_BYTES * bootstrap > SIGN_FLIP_BYTES:
        ways.append(f"lower --bootstrap ({BOOTSTRAP_BYTES} bytes per resample and pair)")
    raise ComparisonTooLarge(
        f"compare: {runs:,} runs make {pairs:,} pairs, estimated at {size(estimate.memory)} "
        f"of memory and {duration(estimate.seconds)} of CPU time ({queries:,} judged "
        f"queries, {permutations:,} permutations and {bootstrap:,} bootstrap resamples per "
        f"pair): more than the {size(MEMORY_LIMIT)} limit. Narrow it: {'; '.join(ways)}."
    )


def size(value: float) -> str:
    """Bytes for people: ``4 GB``, ``8.2 TB`` (powers of 1000)."""
    for unit, scale in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if value >= scale:
            return (
                f"{value / scale:.2g} {unit}"
                if value < 10 * scale
                else f"{value / scale:,.0f} {unit}"
            )
    return f"{math.ceil(value / 1e3):,} kB"


def duration(seconds: float) -> str:
    """Seconds for people, in the largest unit that keeps a number above one."""
    for unit, scale in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= scale:
            return f"{seconds / scale:,.1f} {unit}"
    return f"{seconds:.1f} s"
