"""The engine paths the trec_eval conformance cases go through (`PATHS`): the
reference, the fast engine read whole or in chunks, and the fast engine on the
same runs with every document ID rewritten to MS MARCO v2 and URL shapes. Each
takes a case and gives a function from a contract to its evaluation.
"""

from __future__ import annotations

from collections.abc import Callable

from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.scoring.aggregate import evaluate
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import Evaluation
from judgepool.formats.fast_run import parse_run_bytes, read_run_columns
from judgepool.services.runs.streaming import score_in_chunks
from tests.conformance.trec_eval_cases import DATA, Case, grouped_run, judgments_of, read_text

Evaluator = Callable[[Contract], Evaluation]


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
