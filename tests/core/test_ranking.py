"""Forming one query's list (`core.scoring.ranking`): each tie policy's order, entity
mapping, duplicates, grades and the unjudged policy, on short literal lists."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgepool.core.fast.run import compared_scores
from judgepool.core.scoring.ranking import RankedDoc, compared_score, form_list, order_entries
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import DuplicateEntry, UnjudgedEntry
from judgepool.core.terms.types import RunEntry

# (doc, rank, score), one line each from line 1: equal scores in the middle,
# and a rank column that disagrees with the scores
LINES = [("b", 3, 1.0), ("C", 1, 2.0), ("a", 2, 2.0), ("é", 2, 2.0), ("d", 4, 0.5)]


def entries(lines: list[tuple[str, int, float]], query_id: str = "q") -> list[RunEntry]:
    return [
        RunEntry(query_id, doc, rank, score, line)
        for line, (doc, rank, score) in enumerate(lines, start=1)
    ]


def ordered(ties: str, lines: list[tuple[str, int, float]] = LINES) -> list[str]:
    return [entry.doc_id for entry in order_entries(entries(lines), ties)]


def test_trec_eval_ties_are_score_then_document_id_both_descending() -> None:
    # byte order: "C" < "a" < "é" (uppercase before lowercase, non-ASCII last)
    assert ordered("trec_eval") == ["é", "a", "C", "b", "d"]


def test_docid_ties_are_score_descending_then_document_id_ascending() -> None:
    assert ordered("docid") == ["C", "a", "é", "b", "d"]


def test_rank_ties_follow_the_rank_column_keeping_file_order_for_equal_ranks() -> None:
    assert ordered("rank") == ["C", "a", "é", "b", "d"]
    # equal ranks keep the file's order, whatever the scores
    assert ordered("rank", [("x", 1, 0.0), ("y", 1, 9.0), ("z", 0, 5.0)]) == ["z", "x", "y"]


def test_input_ties_keep_the_file_order() -> None:
    assert ordered("input") == ["b", "C", "a", "é", "d"]


# 68.41769638061524 and 68.41769618988037: real scores printed with 14
# decimals, two doubles and one 32-bit float
NEAR = [("b", 1, 68.41769638061524), ("c", 2, 68.41769618988037), ("a", 3, 68.4176)]


def test_single_precision_ties_scores_that_one_float_holds() -> None:
    assert [e.doc_id for e in order_entries(entries(NEAR), "trec_eval")] == ["b", "c", "a"]
    # trec_eval 9: one score, so the document ID decides, descending
    assert [e.doc_id for e in order_entries(entries(NEAR), "trec_eval", "single")] == [
        "c",
        "b",
        "a",
    ]
    assert [e.doc_id for e in order_entries(entries(NEAR), "docid", "single")] == ["b", "c", "a"]
    formed = form_list("q", entries(NEAR), {}, Contract(score_precision="single"))
    assert [doc.doc_id for doc in formed.final] == ["c", "b", "a"]
    # the documents keep the scores they were given
    assert [doc.score for doc in formed.final] == [68.41769618988037, 68.41769638061524, 68.4176]


def test_compared_score_rounds_as_c_converts_a_double_to_a_float() -> None:
    assert compared_score(68.41769638061524, "single") == compared_score(
        68.41769618988037, "single"
    )
    assert compared_score(68.41769638061524, "double") == 68.41769638061524
    assert compared_score(1.00000001, "single") == 1.0
    # midpoints between two floats round to the even one
    assert compared_score(1 + 2**-24, "single") == 1.0
    assert compared_score(1 + 3 * 2**-24, "single") == 1 + 2**-22
    # beyond the largest float, an infinity; -0.0 stays -0.0
    assert compared_score(1e39, "single") == math.inf
    assert compared_score(-1e39, "single") == -math.inf
    assert math.copysign(1.0, compared_score(-0.0, "single")) == -1.0


@settings(max_examples=400, deadline=None)
@given(
    scores=st.lists(
        st.floats(allow_nan=False, allow_infinity=False)
        | st.floats(-4.0, 4.0).map(lambda x: 1.0 + x * 2**-24)  # about 1.0's midpoints
        | st.integers(-(2**30), 2**30).map(lambda n: (2 * n + 1) * 2**-150),  # subnormals
        min_size=1,
    )
)
def test_the_fast_engines_rounding_is_the_references(scores: list[float]) -> None:
    """`fast.run.compared_scores` (numpy's conversion) gives the reference's
    C cast bit for bit, infinities and subnormals included."""
    fast = compared_scores(np.array(scores, dtype=np.float64), "single").tolist()
    reference = [compared_score(score, "single") for score in scores]
    assert [struct.pack("<d", x) for x in fast] == [struct.pack("<d", x) for x in reference]


def test_an_unknown_tie_policy_orders_nothing() -> None:
    with pytest.raises(AssertionError):
        order_entries(entries(LINES), "random")


def test_grades_are_looked_up_and_unjudged_documents_have_none() -> None:
    formed = form_list("q", entries(LINES), {"a": 2, "d": 0}, Contract(k=3, ties="docid"))
    assert [(doc.doc_id, doc.grade) for doc in formed.final] == [
        ("C", None),
        ("a", 2),
        ("é", None),
        ("b", None),
        ("d", 0),
    ]
    assert formed.final[1] == RankedDoc("a", "a", 2, 2.0, 3)
    # unjudged in the top 3 only, each with its 1-based rank in the list
    assert formed.unjudged_in_top_k == (UnjudgedEntry("q", "C", 1), UnjudgedEntry("q", "é", 3))


@pytest.mark.parametrize("policy", ["reject", "zero"])
def test_reject_and_zero_keep_unjudged_documents_in_the_final_list(policy: str) -> None:
    formed = form_list("q", entries(LINES), {"a": 2}, Contract(k=2, unjudged=policy))
    assert formed.final == formed.deduplicated
    assert len(formed.final) == 5


def test_condense_removes_unjudged_documents_from_the_final_list_only() -> None:
    judged = {"a": 2, "d": 0}
    formed = form_list("q", entries(LINES), judged, Contract(k=2, unjudged="condense"))
    assert [doc.doc_id for doc in formed.final] == ["a", "d"]  # "d" moves into the top 2
    assert [doc.doc_id for doc in formed.deduplicated] == ["é", "a", "C", "b", "d"]
    # what was unjudged in the top k is still reported, at its place before condensing
    assert formed.unjudged_in_top_k == (UnjudgedEntry("q", "é", 1),)


@pytest.mark.parametrize("policy", ["first", "reject"])
def test_duplicates_keep_the_first_copy_in_ranked_order_and_list_every_line(
    policy: str,
) -> None:
    lines = [("x", 1, 1.0), ("y", 2, 3.0), ("x", 3, 2.0), ("x", 4, 5.0)]
    formed = form_list("q", entries(lines), {"x": 1}, Contract(duplicates=policy))
    # the copy ranked first (score 5.0, line 4) is kept, not the first in the file
    assert [(doc.doc_id, doc.line) for doc in formed.deduplicated] == [("x", 4), ("y", 2)]
    assert formed.duplicates == (DuplicateEntry("q", "x", (1, 3, 4)),)


def test_no_duplicates_lists_nothing() -> None:
    formed = form_list("q", entries(LINES), {}, Contract())
    assert formed.duplicates == ()


ENTITY = Contract(entity=r"([^#]+)#\d+", unjudged="zero", duplicates="first", k=5)


def test_an_entity_pattern_maps_chunks_to_their_judged_document() -> None:
    lines = [("d1#0", 1, 3.0), ("d2#4", 2, 2.0), ("d1#7", 3, 1.0), ("loose", 4, 0.5)]
    formed = form_list("q", entries(lines), {"d1": 3, "loose": 1}, ENTITY)
    # the first chunk of d1 stands for it, with d1's grade; the later one is a copy
    assert [(doc.doc_id, doc.entity, doc.grade) for doc in formed.final] == [
        ("d1#0", "d1", 3),
        ("d2#4", "d2", None),
        ("loose", "loose", 1),  # not matched by the pattern: its own entity
    ]
    assert formed.duplicates == (DuplicateEntry("q", "d1", (1, 3)),)


def test_an_entity_pattern_without_a_group_maps_to_the_whole_match() -> None:
    contract = Contract(entity=r"[a-z]+\d", duplicates="first")
    lines = [("doc1-passage-3", 1, 2.0), ("doc1-passage-9", 2, 1.0)]
    formed = form_list("q", entries(lines), {"doc1": 2}, contract)
    assert [(doc.entity, doc.grade) for doc in formed.final] == [("doc1", 2)]
    assert formed.duplicates == (DuplicateEntry("q", "doc1", (1, 2)),)


def test_without_an_entity_pattern_every_document_is_its_own_entity() -> None:
    lines = [("d1#0", 1, 2.0), ("d1#1", 2, 1.0)]
    formed = form_list("q", entries(lines), {"d1": 3}, Contract(unjudged="zero"))
    assert [(doc.entity, doc.grade) for doc in formed.final] == [("d1#0", None), ("d1#1", None)]
    assert formed.duplicates == ()
