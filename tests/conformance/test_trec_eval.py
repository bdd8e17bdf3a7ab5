"""Conformance with trec_eval: the ``trec_eval`` preset reproduces, query by query,
the numbers trec_eval printed for real qrels and runs (see tests/data/PROVENANCE.md).

Each test case is one (dataset, run, trec_eval invocation, engine path). The
engine is evaluated once per cutoff k found in the oracle, and every per-query
``ndcg_cut_k``, ``P_k``, ``recall_k``, ``unj_k``, ``recip_rank`` and ``num_ret``
line is compared, as are all their ``all`` lines (means; ``num_ret``: a sum)
except mean recall (below), and a test fails if any oracle line was left
uncompared. trec_eval prints 4 decimals, so a value matches when it lies
within half a unit of the last printed digit. (On the reference path every
value formatted with ``%.4f`` also equals trec_eval's printed string.)

What trec_eval does that the comparison has to know about (each checked below):

- ``-l2`` changes only the binary measures (P, recall, recip_rank, num_rel);
  nDCG uses the grades themselves, so ``relevant_from`` follows ``-l`` and the
  ndcg_cut lines are identical with and without it (verified on all 12 DL
  oracles when the data was prepared).
- ``-c`` prints and averages judged queries that the run lacks, with 0 for
  every measure: ``missing="zero"``. Without ``-c`` (trec_eval's own suite apart
  from ``out.test.aqc``) every judged query is in the run, which the test asserts,
  so the means are over the same population.
- ``-M1000`` keeps the first 1000 documents per query *after* sorting by score.
  Every DL-HARD run has exactly 1000 lines per query, so it changes nothing
  there; the test checks ``num_ret`` against our ``returned`` to make sure.
- A query with no document at or above the ``-l`` level (DL-HARD 588587 at
  ``-l2``) gets recall 0 from trec_eval and ``recall = None`` from us (the
  contract: recall is undefined there), and trec_eval averages that 0 into its
  mean recall. Per-query values are compared with that one exception (oracle
  ``num_rel`` must then be 0); mean recall is not compared.
- Negative grades (``qrels.rel_level`` has 304 judgments of -1): for us judged,
  gain 0, never relevant, and trec_eval's ndcg_cut, P, recall and recip_rank
  agree. Its ``unj_k`` does not: trec_eval codes "not in the pool" as -1, the
  same number as the grade, so it counts a document judged -1 as unjudged
  (query 303 of out.test.aql: unj_10 = 0.5 where only judged documents are in
  the top 10; five of them are judged -1). The contract counts them as judged
  (as it does for ``-J``, see evaluation-contract.md), so the test adds the
  documents judged below 0 in the top k to our count before comparing, and
  that adjustment must explain the whole difference.
- ``-m ndcg_cut.10,20,23.4`` makes trec_eval read the cutoff 23.4 as 23 (it
  prints ``ndcg_cut_23``); our cutoffs are integers, so k=23 is what we compare.
- The v9.0.8 oracles (32-bit float scores) agree with v10.0 on every line kept
  here, so only v10.0 is stored; ``unj_k`` exists only in v10. These runs
  have no two scores of a query that only single precision would tie, so
  both presets, ``trec_eval9`` (``trec_eval``) and ``trec_eval10``, must
  print every line: the first on every path, the second on the fast one and
  on the reference for the short runs. On the 1000-deep runs the reference
  under ``trec_eval10`` would repeat its ``trec_eval9`` computation step for
  step (the presets differ only in the scores' precision, and no query's
  order changes with it: checked below, in a fraction of the time), which
  cost about 50 s of the suite's CPU. Where the versions differ,
  `test_score_precision` checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from judgepool.core.scoring.ranking import order_entries
from judgepool.core.terms.contract import preset
from tests.conformance.trec_eval_cases import (
    CASES,
    DATA,
    Case,
    grouped_run,
    is_large,
    load_oracle,
    read_text,
)
from tests.conformance.trec_eval_check import Outcome, check_case
from tests.conformance.trec_eval_paths import PATHS

# The paths that differ from "fast" only in how the run is read (in chunks,
# with its IDs rewritten): trec_eval's -l and -c change no byte they read, so
# on the DL runs, which trec_eval scored twice (-c and -c -l2), they take the
# first invocation only (about 15 s of the suite's CPU); "fast" and the
# reference take both.
READING_PATHS = ("fast-streamed", "fast-msmarco-v2-ids", "fast-url-ids")


def read_again(case: Case) -> bool:
    """A DL invocation whose run and qrels the -c one already read."""
    return case.dataset in ("dl19-passage", "dl20-passage") and case.level == 2


def iter_params() -> Iterator[Any]:
    for case in CASES:
        marks = [pytest.mark.slow] if is_large(case) else []
        for path in PATHS:
            if path in READING_PATHS and read_again(case):
                continue
            yield pytest.param(case, path, "trec_eval", id=f"{case.id}/{path}", marks=marks)
        for path in ("fast",) if is_large(case) else ("reference", "fast"):
            yield pytest.param(
                case, path, "trec_eval10", id=f"{case.id}/{path}/trec_eval10", marks=marks
            )


@pytest.mark.parametrize(("case", "path", "preset_name"), list(iter_params()))
def test_matches_trec_eval(
    case: Case, path: str, preset_name: str, record_property: Callable[[str, object], None]
) -> None:
    outcome = check_case(case, PATHS[path](case), preset_name)
    record_property("values_compared", outcome.values)
    record_property("max_abs_diff", outcome.max_diff)
    assert not outcome.mismatches, (
        f"{len(outcome.mismatches)} of {outcome.values} values differ from trec_eval "
        f"(first 20):\n" + "\n".join(outcome.mismatches[:20])
    )
    # every printed line was compared, apart from the mean recall (see the docstring)
    oracle = load_oracle(case)
    printed = {
        (m, q) for m, values in oracle.items() for q in values if m not in ("num_q", "num_rel")
    }
    left = {
        (m, q) for m, q in printed - outcome.seen if not (m.startswith("recall_") and q == "all")
    }
    assert not left, f"oracle lines never compared: {sorted(left)[:10]}"


@pytest.mark.parametrize("path", list(PATHS))
def test_gain_map_matches_trec_eval_ndcg_with_gains(path: str) -> None:
    """``-m ndcg.1=3,2=9,4=4.5`` in trec_eval's meas_params test: a gain map,
    levels not named keeping gain = level. ``ndcg`` has no cutoff; k = 1000
    covers every one of the 500 documents per query of results.test."""
    case = next(c for c in CASES if c.run == "results.test-meas_params")
    printed = {}
    for line in read_text(DATA / case.oracle).splitlines():
        measure, query, value = line.split()
        if measure == "ndcg_1=3,2=9,4=4.5":
            printed[query] = value
    assert printed
    contract = preset("trec_eval", k=1000, gain="0=0,1=3,2=9,3=3")
    evaluation = PATHS[path](case)(contract)
    outcome = Outcome()
    for query, value in printed.items():
        ours = evaluation.summary.ndcg if query == "all" else evaluation.query(query).ndcg
        outcome.compare("ndcg_1=3,2=9,4=4.5", query, ours, value)
    assert not outcome.mismatches, "\n".join(outcome.mismatches)


@pytest.mark.parametrize(
    "run_file", sorted({case.run_file for case in CASES if is_large(case)}), ids=str
)
def test_large_runs_rank_alike_in_single_and_double_precision(run_file: str) -> None:
    """Why the reference path is not run under ``trec_eval10`` on the 1000-deep
    runs: there it ranks every query's documents as under ``trec_eval9``, so
    every value trec_eval prints (all rest on the order) is the same under
    both, and trec_eval's lines check it under the first."""
    for query, entries in grouped_run(run_file).items():
        single = order_entries(entries, "trec_eval", "single")
        double = order_entries(entries, "trec_eval", "double")
        assert [e.doc_id for e in single] == [e.doc_id for e in double], query
