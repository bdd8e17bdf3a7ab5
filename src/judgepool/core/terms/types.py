"""The values the engine passes around: run entries, judgments, per-query and summary results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from functools import cached_property
from typing import Any, NamedTuple

from judgepool.core.terms.contract import Contract

# query_id -> doc_id -> grade. The judged universe of each query is its keys.
Judgments = Mapping[str, Mapping[str, int]]


class RunEntry(NamedTuple):
    """One line of a run, as read (source order is kept by the caller's sequence).

    A NamedTuple rather than a dataclass: runs have millions of lines, and a
    tuple is several times cheaper to create.
    """

    query_id: str
    doc_id: str
    rank: int
    score: float
    line: int


@dataclass(frozen=True)
class QueryResult:
    """Every per-query value of the contract. None means "not defined here" (JSON null)."""

    query_id: str
    ndcg: float | None
    dcg: float
    idcg: float
    candidate_ndcg: float | None
    returned: int
    judged_at_k: float | None
    unjudged_at_k: int
    duplicates: int
    zero_idcg: bool
    excluded: bool
    missing: bool
    recall: float | None
    precision: float
    rr: float
    ndcg_tie_min: float | None
    ndcg_tie_max: float | None
    ndcg_if_unjudged_irrelevant: float | None
    ndcg_if_unjudged_max: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_RECORD_FIELDS: tuple[str, ...] = tuple(item.name for item in fields(QueryResult))


def query_results(columns: Mapping[str, Sequence[Any]]) -> list[QueryResult]:
    """The records of several queries from one column per field of `QueryResult`
    (an engine computing every query at once holds its values so), the i-th
    record from the i-th value of each column.

    Every field has its column, by name, and no other is given (a ValueError
    names what is missing or extra); the columns are of one length."""
    given = set(columns)
    if given != set(_RECORD_FIELDS):
        missing = [name for name in _RECORD_FIELDS if name not in given]
        extra = sorted(given - set(_RECORD_FIELDS))
        raise ValueError(f"record columns: missing {missing}, not fields {extra}")
    ordered = [columns[name] for name in _RECORD_FIELDS]
    return [QueryResult(*values) for values in zip(*ordered, strict=True)]


@dataclass(frozen=True)
class Summary:
    """The population's counts and means (see the contract's "What is reported")."""

    queries: int
    scored: int
    zero_idcg: int
    excluded: int
    missing: int
    unknown: int
    duplicates: int
    unjudged_at_k: int
    ndcg: float | None
    ndcg_pooled: float | None
    candidate_ndcg: float | None
    judged_at_k: float | None
    recall: float | None
    precision: float | None
    rr: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Evaluation:
    """One run scored under one contract: the summary, every judged query's record,
    and the run's query IDs that the judgments do not know."""

    contract: Contract
    summary: Summary
    per_query: tuple[QueryResult, ...]
    unknown_queries: tuple[str, ...]
    missing_queries: tuple[str, ...]

    def query(self, query_id: str) -> QueryResult:
        """The record of ``query_id`` (KeyError when the query is not judged)."""
        return self._by_query[query_id]

    @cached_property
    def _by_query(self) -> dict[str, QueryResult]:
        # built once: a comparison looks up every query of every run, and a
        # scan per look-up made that quadratic (minutes on 7,000 queries)
        index: dict[str, QueryResult] = {}
        for result in self.per_query:
            index.setdefault(result.query_id, result)
        return index
