"""The orchestration both engines share (`aggregate.evaluate_returned`): the
refusals, the judged queries a run lacks, the unknown ones, the population.

Every case runs through both engines: the reference (`aggregate.evaluate`)
and the fast one (`fast.engine.evaluate_columns`), which differ only in how they
score the queries the run returned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pytest

from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.arrow import arrow_strings
from judgepool.core.scoring.metrics import score_missing_query
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import (
    DuplicateEntry,
    DuplicatesRejected,
    UnjudgedEntry,
    UnjudgedRejected,
)
from judgepool.core.terms.types import Evaluation, Judgments, RunEntry

Engine = Callable[[list[RunEntry], Judgments, Contract], Evaluation]


@dataclass(frozen=True)
class Columns:
    query_ids: pa.Array
    doc_ids: pa.Array
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64]
    lines: npt.NDArray[np.int64] | None


def reference(entries: list[RunEntry], judgments: Judgments, contract: Contract) -> Evaluation:
    return evaluate(group_by_query(entries), judgments, contract, "run")


def fast(entries: list[RunEntry], judgments: Judgments, contract: Contract) -> Evaluation:
    columns = Columns(
        arrow_strings([e.query_id for e in entries]),
        arrow_strings([e.doc_id for e in entries]),
        np.array([e.score for e in entries], dtype=np.float64),
        np.array([e.rank for e in entries], dtype=np.int64),
        np.array([e.line for e in entries], dtype=np.int64),
    )
    return evaluate_columns(columns, judgments, contract, "run")


ENGINES = pytest.mark.parametrize("engine", [reference, fast], ids=["reference", "fast"])

JUDGMENTS = {"q2": {"a": 2, "b": 1}, "q1": {"a": 1}, "q3": {"c": 3}}


def run(*lines: tuple[str, str, float]) -> list[RunEntry]:
    return [
        RunEntry(query_id, doc, rank, score, rank)
        for rank, (query_id, doc, score) in enumerate(lines, 1)
    ]


@ENGINES
def test_duplicates_are_refused_before_unjudged_documents(engine: Engine) -> None:
    lines = run(("q2", "a", 3.0), ("q2", "x", 2.0), ("q2", "a", 1.0), ("q1", "y", 1.0))
    with pytest.raises(DuplicatesRejected) as refused:
        engine(lines, JUDGMENTS, Contract(k=3))
    assert refused.value.entries == (DuplicateEntry("q2", "a", (1, 3)),)
    with pytest.raises(UnjudgedRejected) as unjudged:
        engine(lines, JUDGMENTS, Contract(k=3, duplicates="first"))
    # every query's entries, by query ID then rank
    assert unjudged.value.entries == (
        UnjudgedEntry("q1", "y", 1),
        UnjudgedEntry("q2", "x", 2),
    )


@ENGINES
def test_no_refusal_under_the_lenient_policies(engine: Engine) -> None:
    lines = run(("q2", "a", 3.0), ("q2", "x", 2.0), ("q2", "a", 1.0))
    evaluation = engine(lines, JUDGMENTS, Contract(k=3, duplicates="first", unjudged="zero"))
    record = evaluation.query("q2")
    assert (record.returned, record.duplicates, record.unjudged_at_k) == (2, 1, 1)


@ENGINES
def test_duplicates_of_an_unknown_query_are_not_the_judgments_business(engine: Engine) -> None:
    lines = run(("q1", "a", 1.0), ("zz", "u", 2.0), ("zz", "u", 1.0))
    evaluation = engine(lines, JUDGMENTS, Contract(k=3))
    assert evaluation.unknown_queries == ("zz",)


@ENGINES
def test_missing_and_unknown_queries(engine: Engine) -> None:
    lines = run(("zz", "a", 1.0), ("q2", "a", 1.0), ("aa", "b", 1.0))
    contract = Contract(k=2, unjudged="zero")
    evaluation = engine(lines, JUDGMENTS, contract)
    # every judged query, in query ID order; the ones the run lacks scored as missing
    assert [r.query_id for r in evaluation.per_query] == ["q1", "q2", "q3"]
    assert evaluation.missing_queries == ("q1", "q3")
    assert evaluation.query("q3") == score_missing_query("q3", JUDGMENTS["q3"], contract)
    assert evaluation.unknown_queries == ("aa", "zz")
    summary = evaluation.summary
    assert (summary.queries, summary.scored, summary.missing, summary.unknown) == (5, 3, 2, 2)


def test_a_judged_query_with_no_lines_is_missing_in_the_reference() -> None:
    # a grouped run may name a query with an empty list: missing, not unknown
    evaluation = evaluate({"q1": [], "zz": []}, JUDGMENTS, Contract())
    assert evaluation.missing_queries == ("q1", "q2", "q3")
    assert evaluation.unknown_queries == ("zz",)
