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
  print every line: the first on every path, the second on the reference and
  the fast one. Where the versions differ, `test_score_precision` checks.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from judgepool.core.aggregate import evaluate, group_by_query
from judgepool.core.contract import Contract, Scale, preset
from judgepool.core.fast import evaluate_columns
from judgepool.core.ranking import order_entries
from judgepool.core.types import Evaluation, Judgments, QueryResult, RunEntry
from judgepool.formats.fast_run import parse_run_bytes, read_run_columns
from judgepool.formats.trec import read_qrels, read_run
from judgepool.services.runs.streaming import score_in_chunks

DATA = Path(__file__).resolve().parent.parent / "data"

# trec_eval prints %.4f: a correct value is within half a unit of the last digit.
TOLERANCE = 5e-5 + 1e-12

KEPT = re.compile(r"^(num_q|num_ret|num_rel|recip_rank|(ndcg_cut|P|recall|unj)_\d+)$")
CUTOFF = re.compile(r"^(ndcg_cut|P|recall|unj)_(\d+)$")

# oracle[measure][query] = value as printed
Oracle = dict[str, dict[str, str]]
Evaluator = Callable[[Contract], Evaluation]


@dataclass(frozen=True)
class Case:
    """One trec_eval invocation on one qrels/run pair, and what it implies."""

    dataset: str
    run: str
    qrels: str
    run_file: str
    oracle: str
    level: int = 1  # trec_eval -l, i.e. our relevant_from
    complete: bool = True  # trec_eval -c, i.e. our missing="zero" matches its mean
    scale: Scale = field(default_factory=Scale)

    @property
    def flags(self) -> str:
        """The trec_eval options that matter here, as a short test-id part."""
        return ("c" if self.complete else "") + (
            "" if self.level == 1 else f"l{self.level}"
        ) or "plain"

    @property
    def id(self) -> str:
        return f"{self.dataset}/{self.run}/{self.flags}"


DL_RUNS = (
    "bm25.top100",
    "bm25-rm3.top100",
    "tasb.top100",
    "openai-ada2.top100",
    "splade-pp-ed.top100",
    "repllama.top1000",
)
DL_HARD_RUNS = ("bm25", "bm25+rm3", "bm25+bertzs", "bm25+t5zs", "bm25+rm3+bertzs", "bm25+rm3+t5zs")


def _cases() -> list[Case]:
    cases: list[Case] = []
    for dataset, qrels in (
        ("dl19-passage", "qrels.dl19-passage.txt.gz"),
        ("dl20-passage", "qrels.dl20-passage.txt.gz"),
    ):
        for run in DL_RUNS:
            for level in (1, 2):
                cases.append(
                    Case(
                        dataset,
                        run,
                        f"{dataset}/{qrels}",
                        f"{dataset}/runs/{run}.trec.gz",
                        f"{dataset}/oracle.tsv.gz",
                        level=level,
                    )
                )
    for run in DL_HARD_RUNS:
        # the oracle is `trec_eval -l2 -c -M1000 -q -m all_trec`
        cases.append(
            Case(
                "dl-hard",
                run,
                "dl-hard/dl_hard-passage.qrels.gz",
                f"dl-hard/runs/{run}.trec.gz",
                "dl-hard/oracle.tsv.gz",
                level=2,
            )
        )
    cases.append(
        Case(
            "noveleval",
            "google-order",
            "noveleval/qrels.txt.gz",
            "noveleval/google-order.run.trec.gz",
            "noveleval/oracle.tsv.gz",
        )
    )
    suite = "trec_eval-test"
    cases += [
        Case(
            suite,
            "results.test",
            f"{suite}/qrels.test.gz",
            f"{suite}/results.test.gz",
            f"{suite}/out.test.aq",
            complete=False,
        ),
        Case(
            suite,
            "results.trunc",
            f"{suite}/qrels.test.gz",
            f"{suite}/results.trunc.gz",
            f"{suite}/out.test.aqc",
        ),
        Case(
            suite,
            "results.test-rel_level",
            f"{suite}/qrels.rel_level.gz",
            f"{suite}/results.test.gz",
            f"{suite}/out.test.aql",
            level=2,
            complete=False,
            scale=Scale(-1, 4),
        ),
        Case(
            suite,
            "results.test-meas_params",
            f"{suite}/qrels.test.gz",
            f"{suite}/results.test.gz",
            f"{suite}/out.test.meas_params",
            complete=False,
        ),
    ]
    return cases


CASES = _cases()


def read_text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8")


@cache
def _oracle_table(name: str) -> dict[tuple[str, int], Oracle]:
    """Every (run, level)'s lines of one long table written by prepare.py, parsed
    once per worker: a DL table holds twelve cases, each tested on five paths."""
    table: dict[tuple[str, int], Oracle] = {}
    for row in read_text(DATA / name).splitlines()[1:]:
        run, level, measure, query, value = row.split("\t")
        table.setdefault((run, int(level)), {}).setdefault(measure, {})[query] = value
    return table


@cache
def load_oracle(case: Case) -> Oracle:
    """The oracle lines of this case: from the long table written by prepare.py,
    or one of trec_eval's own verbatim ``out.*`` files."""
    oracle: Oracle = {}
    if case.oracle.endswith(".tsv.gz"):
        oracle = _oracle_table(case.oracle).get((case.run, case.level), {})
    else:
        for line in read_text(DATA / case.oracle).splitlines():
            measure, query, value = line.split()
            if KEPT.match(measure):
                oracle.setdefault(measure, {})[query] = value
    assert oracle, f"no oracle lines for {case.id}"
    return oracle


# The inputs are read once per worker and shared by the paths, which only read
# them (each rewrite builds its own copies): the five paths of a case, and the
# cases of one qrels file, would otherwise parse the same gzip files again.


@cache
def judgments_of(qrels: str, scale: Scale) -> Judgments:
    return read_qrels(DATA / qrels, scale).judgments


@cache
def grouped_run(run_file: str) -> dict[str, list[RunEntry]]:
    return group_by_query(read_run(DATA / run_file).entries)


# ---- the two engine paths -------------------------------------------------


def reference_evaluator(case: Case) -> Evaluator:
    judgments = judgments_of(case.qrels, case.scale)
    grouped = grouped_run(case.run_file)
    return lambda contract: evaluate(grouped, judgments, contract)


def fast_evaluator(case: Case) -> Evaluator:
    """The vectorised path: the same case through `read_run_columns` and `evaluate_columns`."""
    judgments = judgments_of(case.qrels, case.scale)
    columns = read_run_columns(DATA / case.run_file)
    return lambda contract: evaluate_columns(columns, judgments, contract)


def streamed_evaluator(case: Case) -> Evaluator:
    """The same case read and scored in chunks of whole queries
    (`services.runs.streaming`), with 64 kB reads: many cuts on every run."""
    judgments = judgments_of(case.qrels, case.scale)

    def evaluate_streamed(contract: Contract) -> Evaluation:
        merged, _ = score_in_chunks(
            DATA / case.run_file, case.run, judgments, contract, chunk_bytes=64 << 10
        )
        return merged.evaluation()

    return evaluate_streamed


# Document IDs rewritten to other shapes, order kept (a common prefix), so
# trec_eval's tie order and every printed value stay the same: MS MARCO v2's
# ``msmarco_passage_00_`` and a URL whose length crosses 64 bytes on DL data.
# The judgments also get one judged (grade 0, never returned) ID of another
# length class, so the run's IDs and the judged IDs differ in length as in the
# bug report that made judged documents unfound.
URL_PREFIX = "https://collection.example.org/msmarco/passages/v1/by-id/"
REWRITES: dict[str, tuple[Callable[[str], str], str]] = {
    "msmarco-v2": (lambda doc: f"msmarco_passage_00_{doc}", URL_PREFIX + "x" * 20),
    "url": (lambda doc: URL_PREFIX + doc, "d1"),
}


def rewritten_evaluator(shape: str) -> Callable[[Case], Evaluator]:
    rewrite, extra = REWRITES[shape]

    def build(case: Case) -> Evaluator:
        judgments = {
            query: {rewrite(doc): grade for doc, grade in docs.items()}
            for query, docs in judgments_of(case.qrels, case.scale).items()
        }
        judgments[min(judgments)][extra] = 0
        lines = []
        for line in read_text(DATA / case.run_file).splitlines():
            columns = line.split()
            columns[2] = rewrite(columns[2])
            lines.append(" ".join(columns))
        data = ("\n".join(lines) + "\n").encode()
        columns = parse_run_bytes(data, f"{case.run_file} ({shape} IDs)")
        return lambda contract: evaluate_columns(columns, judgments, contract)

    return build


PATHS: dict[str, Callable[[Case], Evaluator]] = {
    "reference": reference_evaluator,
    "fast": fast_evaluator,
    "fast-streamed": streamed_evaluator,
    "fast-msmarco-v2-ids": rewritten_evaluator("msmarco-v2"),
    "fast-url-ids": rewritten_evaluator("url"),
}


# ---- the comparison --------------------------------------------------------


@dataclass
class Outcome:
    """What one case compared: counts, the largest difference, every mismatch."""

    values: int = 0
    seen: set[tuple[str, str]] = field(default_factory=set)
    max_diff: float = 0.0
    recall_undefined: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)

    def compare(self, measure: str, query: str, ours: float | None, printed: str) -> None:
        self.values += 1
        self.seen.add((measure, query))
        if ours is None:
            self.mismatches.append(f"{measure} {query}: ours None, trec_eval {printed}")
            return
        diff = abs(ours - float(printed))
        self.max_diff = max(self.max_diff, diff)
        if diff > TOLERANCE:
            self.mismatches.append(f"{measure} {query}: ours {ours:.6f}, trec_eval {printed}")


def cutoffs(oracle: Oracle) -> list[int]:
    return sorted({int(m.group(2)) for name in oracle if (m := CUTOFF.match(name))})


def run_queries(case: Case) -> set[str]:
    return set(grouped_run(case.run_file))


def is_large(case: Case) -> bool:
    """1000-deep runs: several seconds per case on the reference path."""
    return case.dataset == "dl-hard" or case.run.endswith("top1000")


@cache
def judged_negative_in_top(case: Case, k: int) -> dict[str, int]:
    """Per query, the documents judged below 0 among the top k in trec_eval's
    order: what trec_eval's unj_k counts beyond our unjudged_at_k."""
    if case.scale.minimum >= 0:
        return {}
    judgments = judgments_of(case.qrels, case.scale)
    counts: dict[str, int] = {}
    for query, entries in grouped_run(case.run_file).items():
        grades = judgments.get(query, {})
        top = order_entries(entries, "trec_eval")[:k]
        counts[query] = sum(1 for e in top if grades.get(e.doc_id, 0) < 0)
    return counts


def check_case(case: Case, evaluator: Evaluator, preset_name: str = "trec_eval") -> Outcome:
    oracle = load_oracle(case)
    outcome = Outcome()
    judged: set[str] | None = None
    for k in cutoffs(oracle):
        contract = preset(preset_name, k=k, scale=case.scale, relevant_from=case.level)
        evaluation = evaluator(contract)
        results = {r.query_id: r for r in evaluation.per_query}
        if judged is None:
            judged = set(results)
            expected = judged if case.complete else judged & run_queries(case)
            # Without -c trec_eval averages over judged ∩ run; our mean (missing
            # = zero) is over every judged query. Same population only if equal.
            assert expected == judged, f"{case.id}: judged queries absent from the run"
            for measure in ("ndcg_cut", "P", "recall", "unj", "recip_rank", "num_ret"):
                for name, values in oracle.items():
                    if name == measure or name.startswith(measure + "_"):
                        listed = set(values) - {"all"}
                        assert listed == expected, f"{case.id} {name}: query sets differ"
            _check_list_measures(case, oracle, results, outcome)
            if "num_q" in oracle:
                assert int(oracle["num_q"]["all"]) == evaluation.summary.scored
        _check_cut_measures(case, oracle, k, evaluation, results, outcome)
    return outcome


def _check_list_measures(
    case: Case, oracle: Oracle, results: dict[str, QueryResult], outcome: Outcome
) -> None:
    """Measures over the whole formed list, whatever k: recip_rank and num_ret."""
    for query, printed in oracle.get("recip_rank", {}).items():
        if query != "all":
            outcome.compare("recip_rank", query, results[query].rr, printed)
    for query, printed in oracle.get("num_ret", {}).items():
        # -M1000 would show here: trec_eval's num_ret counts what it kept
        ours = (
            sum(r.returned for r in results.values()) if query == "all" else results[query].returned
        )
        outcome.compare("num_ret", query, float(ours), printed)


def _check_cut_measures(
    case: Case,
    oracle: Oracle,
    k: int,
    evaluation: Evaluation,
    results: dict[str, QueryResult],
    outcome: Outcome,
) -> None:
    summary = evaluation.summary
    negative = judged_negative_in_top(case, k)
    per_query: dict[str, Callable[[QueryResult], float | None]] = {
        "ndcg_cut": lambda r: r.ndcg,
        "P": lambda r: r.precision,
        "recall": lambda r: r.recall,
        # trec_eval's unj_k divides by k (ours is a count) and counts grades < 0 in
        "unj": lambda r: (r.unjudged_at_k + negative.get(r.query_id, 0)) / k,
    }
    means: dict[str, float | None] = {
        "ndcg_cut": summary.ndcg,
        "P": summary.precision,
        "unj": (summary.unjudged_at_k + sum(negative.get(q, 0) for q in results))
        / k
        / summary.scored,
    }
    for measure, ours_of in per_query.items():
        name = f"{measure}_{k}"
        for query, printed in oracle.get(name, {}).items():
            if query == "all":
                if measure in means:
                    outcome.compare(name, query, means[measure], printed)
                continue
            ours = ours_of(results[query])
            # undefined for us, 0 for trec_eval: allowed only when nothing is relevant
            if (
                measure == "recall"
                and ours is None
                and float(printed) == 0.0
                and oracle["num_rel"][query] == "0"
            ):
                outcome.recall_undefined.append(query)
                outcome.seen.add((name, query))
                continue
            outcome.compare(name, query, ours, printed)
    if k == cutoffs(oracle)[0] and "recip_rank" in oracle and "all" in oracle["recip_rank"]:
        outcome.compare("recip_rank", "all", summary.rr, oracle["recip_rank"]["all"])


def iter_params() -> Iterator[Any]:
    for case in CASES:
        marks = [pytest.mark.slow] if is_large(case) else []
        for path in PATHS:
            yield pytest.param(case, path, "trec_eval", id=f"{case.id}/{path}", marks=marks)
        for path in ("reference", "fast"):
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
