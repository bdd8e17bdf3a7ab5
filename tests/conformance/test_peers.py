"""Agreement with the peer libraries on random inputs (hypothesis).

- ``unjudged="condense"`` is pytrec_eval's judged-only mode (trec_eval ``-J``);
- ``gain="exponential"`` is ranx's ``ndcg_burges@k`` (gain 2^r − 1);
- the ``trec_eval`` preset is pytrec_eval's ``ndcg_cut_k``, to 1e-9.

The inputs keep away from what the peers decide differently on purpose (see
the table in evaluation-contract.md): no duplicate documents, and no two
scores of a query closer than 1e-3, so ranx's double-precision scores and
arbitrary tie order never meet pytrec_eval's 32-bit ones (it ranks
1.00000001 and 1.0 as a tie, as the ``trec_eval`` preset does:
`test_score_precision` holds both presets to it on near-equal scores).
Every judged query is in the run and the reverse, since ranx refuses anything
else. ranx's kernels run as the Python they are written in (numba's
``NUMBA_DISABLE_JIT``, `ranx_module`): compiling them cost 45 s of CPU in a
fresh environment and loading them from numba's cache 9 s, every run of the
suite, for examples of a few documents each. What is compared is ranx's
definition of the measure, in the same double-precision arithmetic; numba's
compiling of it is ranx's to test.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgepool.core.scoring.aggregate import evaluate
from judgepool.core.terms.contract import Contract, Scale, preset
from judgepool.core.terms.types import Evaluation, RunEntry

PEER_TOLERANCE = 1e-9
DOCS = tuple(f"d{i:02d}" for i in range(30))

PEER_SETTINGS = settings(
    max_examples=200,
    deadline=None,  # a loaded 2-core machine makes single examples slow at random
    suppress_health_check=[HealthCheck.too_slow],
)


@dataclass(frozen=True)
class Example:
    """Judgments and a run over the same queries; ``run`` in file order."""

    judgments: dict[str, dict[str, int]]
    run: dict[str, list[tuple[str, float]]]
    k: int

    def entries(self) -> dict[str, list[RunEntry]]:
        grouped: dict[str, list[RunEntry]] = {}
        line = 0
        for query, docs in self.run.items():
            for rank, (doc, score) in enumerate(docs, start=1):
                line += 1
                grouped.setdefault(query, []).append(RunEntry(query, doc, rank, score, line))
        return grouped

    def scores(self) -> dict[str, dict[str, float]]:
        return {query: dict(docs) for query, docs in self.run.items()}

    def ours(self, contract: Contract) -> Evaluation:
        return evaluate(self.entries(), self.judgments, contract)


@st.composite
def examples(draw: st.DrawFn, min_grade: int = 0, max_grade: int = 3) -> Example:
    """1-4 queries; each judges some of 30 documents and returns 1-30 of them
    (judged or not) in an order unrelated to the scores."""
    judgments: dict[str, dict[str, int]] = {}
    run: dict[str, list[tuple[str, float]]] = {}
    for number in range(draw(st.integers(1, 4))):
        query = f"q{number}"
        judgments[query] = draw(
            st.dictionaries(st.sampled_from(DOCS), st.integers(min_grade, max_grade), min_size=1)
        )
        returned = draw(st.lists(st.sampled_from(DOCS), min_size=1, unique=True))
        # distinct thousandths: exactly apart by ≥ 1e-3, and distinct as float32
        thousandths = draw(
            st.lists(
                st.integers(-1_000_000, 1_000_000),
                min_size=len(returned),
                max_size=len(returned),
                unique=True,
            )
        )
        run[query] = [(doc, t / 1000) for doc, t in zip(returned, thousandths, strict=True)]
    return Example(judgments, run, draw(st.integers(1, 20)))


def pytrec_ndcg_cut(example: Example, judged_only: bool) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        example.judgments, {f"ndcg_cut.{example.k}"}, judged_docs_only_flag=judged_only
    )
    results = evaluator.evaluate(example.scores())
    return {query: values[f"ndcg_cut_{example.k}"] for query, values in results.items()}


def assert_agree(ours: Evaluation, peer: dict[str, float], peer_name: str) -> None:
    assert set(peer) == {r.query_id for r in ours.per_query}
    for result in ours.per_query:
        assert result.ndcg is not None
        assert abs(result.ndcg - peer[result.query_id]) <= PEER_TOLERANCE, (
            f"{result.query_id}: ours {result.ndcg!r}, {peer_name} {peer[result.query_id]!r}"
        )


@PEER_SETTINGS
@given(examples())
def test_condense_matches_pytrec_eval_judged_only(example: Example) -> None:
    contract = preset("trec_eval", k=example.k, unjudged="condense")
    peer = pytrec_ndcg_cut(example, judged_only=True)
    assert_agree(example.ours(contract), peer, "pytrec_eval -J")


@PEER_SETTINGS
@given(examples(min_grade=-1))
def test_trec_eval_preset_matches_pytrec_eval(example: Example) -> None:
    # grades down to -1: judged, gain 0, as in trec_eval (without -J)
    contract = preset("trec_eval", k=example.k, scale=Scale(-1, 3))
    assert_agree(example.ours(contract), pytrec_ndcg_cut(example, judged_only=False), "pytrec_eval")


def test_condense_keeps_negative_grades_that_trec_eval_minus_j_drops() -> None:
    """The documented difference: trec_eval codes "not in the pool" as -1, so
    ``-J`` also removes documents judged -1. We keep them (judged, gain 0)."""
    example = Example({"q": {"A": -1, "B": 1}}, {"q": [("A", 2.0), ("B", 1.0), ("Z", 3.0)]}, 10)
    ours = example.ours(preset("trec_eval", k=10, unjudged="condense", scale=Scale(-1, 3)))
    peer = pytrec_ndcg_cut(example, judged_only=True)
    assert peer["q"] == pytest.approx(1.0)  # [B]
    assert ours.query("q").ndcg == pytest.approx(1 / 1.584962500721156)  # [A, B]: 1/log2(3)


def ranx_module() -> ModuleType:
    """ranx, with numba set to run its kernels uncompiled. numba reads the
    setting when first imported, and only ranx imports it in the suite: the
    assertion makes sure nothing imported it compiled first."""
    os.environ["NUMBA_DISABLE_JIT"] = "1"
    import numba
    import ranx

    assert numba.config.DISABLE_JIT, "numba was imported before NUMBA_DISABLE_JIT was set"
    return ranx


def ranx_ndcg_burges(example: Example) -> dict[str, float]:
    ranx = ranx_module()
    run = ranx.Run.from_dict(example.scores())
    metric = f"ndcg_burges@{example.k}"
    ranx.evaluate(ranx.Qrels.from_dict(example.judgments), run, metric, save_results_in_run=True)
    scores: dict[str, Any] = run.scores[metric]
    return {query: float(value) for query, value in scores.items()}


@PEER_SETTINGS
@given(example=examples())
@pytest.mark.slow
def test_exponential_gain_matches_ranx_ndcg_burges(example: Example) -> None:
    contract = preset("trec_eval", k=example.k, gain="exponential")
    assert_agree(example.ours(contract), ranx_ndcg_burges(example), "ranx")
