"""The trec_eval conformance cases and their inputs: every (dataset, run,
trec_eval invocation) of tests/data, the oracle lines trec_eval printed for
each, and the qrels and runs they were printed for, each read once per worker.
`test_trec_eval` says what is compared and why.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from judgepool.core.scoring.aggregate import group_by_query
from judgepool.core.terms.contract import Scale
from judgepool.core.terms.types import Judgments, RunEntry
from judgepool.formats.trec import read_qrels, read_run

DATA = Path(__file__).resolve().parent.parent / "data"

KEPT = re.compile(r"^(num_q|num_ret|num_rel|recip_rank|(ndcg_cut|P|recall|unj)_\d+)$")

# oracle[measure][query] = value as printed
Oracle = dict[str, dict[str, str]]


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


def run_queries(case: Case) -> set[str]:
    return set(grouped_run(case.run_file))


def is_large(case: Case) -> bool:
    """1000-deep runs: several seconds per case on the reference path."""
    return case.dataset == "dl-hard" or case.run.endswith("top1000")
