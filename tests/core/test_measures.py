"""The measure table: one spelling of each measure's label, trec_eval name and
format, each naming a field the records or the summary hold."""

from __future__ import annotations

from dataclasses import fields

import pytest

from judgepool.core.terms.measures import (
    CANDIDATE_NDCG,
    DCG,
    MEASURES,
    NDCG,
    PRECISION,
    RECALL,
    RR,
    SCORED,
    TREC_EVAL_MEASURES,
    UNJUDGED_AT_K,
)
from judgepool.core.terms.types import QueryResult, Summary, query_results


def test_every_measure_names_a_field_of_the_record_or_the_summary() -> None:
    held = {item.name for item in (*fields(QueryResult), *fields(Summary))}
    assert [m.field for m in MEASURES if m.field not in held] == []
    assert len({m.field for m in MEASURES}) == len(MEASURES)


def test_labels_name_the_cutoff_where_the_value_depends_on_it() -> None:
    assert NDCG.label(10) == "nDCG@10" and NDCG.template.format(k=5) == "nDCG@5"
    assert DCG.label(3) == "DCG@3" and DCG.name == "DCG"
    assert CANDIDATE_NDCG.label(10) == "candidate-only@10"
    assert CANDIDATE_NDCG.label(10, short=True) == "cand-only@10"
    assert CANDIDATE_NDCG.short == "cand-only" and NDCG.short == "nDCG"
    assert RR.label(10) == "RR" and UNJUDGED_AT_K.label(20) == "unjudged@20"


def test_trec_eval_names() -> None:
    assert [m.trec_name(10) for m in TREC_EVAL_MEASURES] == [
        "ndcg_cut_10", "P_10", "recall_10", "recip_rank",
    ]  # fmt: skip
    assert SCORED.trec_name(10) == "num_q"
    with pytest.raises(ValueError, match="trec_eval has no measure for dcg"):
        DCG.trec_name(10)


def test_values_are_written_as_every_table_writes_them() -> None:
    assert NDCG.shown(0.123456) == "0.1235" and NDCG.shown(None) == "-"
    assert PRECISION.shown(1.0) == "1.0000" and RECALL.shown(None) == "-"
    assert UNJUDGED_AT_K.shown(3) == "3" and SCORED.shown(0) == "0"


def test_records_from_columns_are_matched_by_field_name() -> None:
    record = QueryResult("q", 0.5, 1.0, 2.0, None, 3, 1.0, 0, 0, False, False, False,
                         None, 0.1, 1.0, None, None, None, None)  # fmt: skip
    columns = {item.name: [getattr(record, item.name)] * 2 for item in fields(QueryResult)}
    assert query_results(columns) == [record, record]
    del columns["rr"]
    with pytest.raises(ValueError, match=r"missing \['rr'\], not fields \[\]"):
        query_results(columns)
    with pytest.raises(ValueError, match=r"not fields \['rank'\]"):
        query_results({**columns, "rr": [1.0, 1.0], "rank": [1, 2]})
    with pytest.raises(ValueError):  # columns of different lengths
        query_results({**columns, "rr": [1.0]})
