"""Agreement between a workspace's annotators (``judgepool agreement``): the
latest grade of each rater per item (`judgepool.store.ratings`: a model's
labels are the rater ``model:NAME``), as a matrix for
`judgepool.core.team.agreement`, over the whole workspace and per query.

The people who graded are compared by default; imported qrels and a model's
labels only when named, and adjudications never (`judgepool.core.team.raters`):
the report says what it left out, with counts.

Per query a statistic needs `judgepool.core.team.agreement.MIN_ITEMS` items (that
module says why); over the whole workspace any number will do, and an
undefined value is None with its reason, never NaN.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgepool.core.team.agreement import (
    MIN_ITEMS,
    Agreement,
    Measured,
    OverallAgreement,
    PairAgreement,
    agreement,
)
from judgepool.core.team.pair_confusion import PairConfusion, pair_confusion
from judgepool.core.team.raters import LeftOut, left_out
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.raters import compared_raters
from judgepool.store.ratings import CodedRatings, RatingColumns, coded_ratings, current_ratings
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class AgreementReport:
    """Agreement of ``raters`` over the workspace, and per query when asked;
    ``left_out``: the raters with grades not compared, and the adjudications."""

    raters: tuple[str, ...]
    overall: Agreement
    per_query: tuple[tuple[str, Agreement], ...] | None
    minimum_per_query: int = MIN_ITEMS
    left_out: LeftOut = field(default_factory=LeftOut)
    # each pair's confusion table over the whole workspace, in the order of
    # ``overall.pairs`` (the agreement screen's heat map)
    confusions: tuple[PairConfusion, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``agreement --format json``."""
        data: dict[str, Any] = agreement_dict(self.overall)
        if self.per_query is not None:
            data["per_query"] = [
                {"query_id": query_id, **agreement_dict(found)}
                for query_id, found in self.per_query
            ]
            data["min_items_per_query"] = self.minimum_per_query
        data["left_out"] = self.left_out.to_dict()
        return data


def _fields(measures: dict[str, Measured]) -> tuple[dict[str, float | None], dict[str, str]]:
    values = {name: measured.value for name, measured in measures.items()}
    reasons = {
        name: measured.reason for name, measured in measures.items() if measured.reason is not None
    }
    return values, reasons


def pair_dict(pair: PairAgreement) -> dict[str, Any]:
    """``{a, b, items, raw_agreement, cohen_kappa, kappa_linear, kappa_quadratic}``,
    and ``reasons``: why each null value is undefined."""
    values, reasons = _fields(
        {
            "raw_agreement": pair.raw_agreement,
            "cohen_kappa": pair.cohen_kappa,
            "kappa_linear": pair.kappa_linear,
            "kappa_quadratic": pair.kappa_quadratic,
        }
    )
    return {"a": pair.a, "b": pair.b, "items": pair.items, **values, "reasons": reasons}


def overall_dict(overall: OverallAgreement) -> dict[str, Any]:
    """``{annotators, items, fleiss_kappa, alpha_ordinal, alpha_interval}``, with
    ``fleiss_items`` (the items every annotator graded) and ``reasons``."""
    values, reasons = _fields(
        {
            "fleiss_kappa": overall.fleiss_kappa,
            "alpha_ordinal": overall.alpha_ordinal,
            "alpha_interval": overall.alpha_interval,
        }
    )
    return {
        "annotators": list(overall.annotators),
        "items": overall.items,
        "fleiss_items": overall.fleiss_items,
        **values,
        "reasons": reasons,
    }


def agreement_dict(found: Agreement) -> dict[str, Any]:
    return {"pairs": [pair_dict(p) for p in found.pairs], "overall": overall_dict(found.overall)}


Matrix = np.ndarray[Any, np.dtype[np.float64]]


def _grade_matrix(columns: RatingColumns, raters: list[str]) -> tuple[Matrix, list[str]]:
    """Raters × items (NaN: no grade), the items in (query, doc) order, and the
    query of each item column. Items graded by none of ``raters`` are left out."""
    row_of = {name: index for index, name in enumerate(raters)}
    codes = np.array([row_of.get(rater, -1) for rater in columns.raters], dtype=np.int64)
    chosen = codes >= 0
    queries = np.array(columns.query_ids, dtype=object)[chosen]
    docs = np.array(columns.doc_ids, dtype=object)[chosen]
    # rows are sorted by item: a new item starts where the query or doc changes
    starts = np.ones(len(queries), dtype=bool)
    starts[1:] = (queries[1:] != queries[:-1]) | (docs[1:] != docs[:-1])
    item = np.cumsum(starts) - 1
    grades = np.full((len(raters), int(starts.sum())), np.nan)
    grades[codes[chosen], item] = np.array(columns.grades, dtype=np.float64)[chosen]
    return grades, list(queries[starts])


def _coded_matrix(coded: CodedRatings, raters: list[str]) -> Matrix:
    """Raters × items (NaN: no grade) from coded grades, over the items some of
    ``raters`` graded, in no particular order (no statistic depends on it)."""
    index_of = np.array([raters.index(n) if n in raters else -1 for n in coded.raters])
    rows = index_of[coded.rater] if len(coded.rater) else np.zeros(0, dtype=np.int64)
    chosen = rows >= 0
    items, columns = np.unique(coded.item[chosen], return_inverse=True)
    grades = np.full((len(raters), len(items)), np.nan)
    grades[rows[chosen], columns] = coded.grade[chosen]
    return grades


def workspace_agreement(
    ws: Workspace, *, annotators: Sequence[str] | None = None, by_query: bool = False
) -> AgreementReport:
    """Agreement of ``annotators`` (default: every person with a grade; an
    import or a model only when named) over the items they graded; with
    ``by_query``, also per query. Adjudications are never compared."""
    # Over all items the grades are read coded, fast; per query (and where a
    # model's grade was recorded under a person's name) with their IDs.
    coded = None if by_query else coded_ratings(ws)
    columns = current_ratings(ws) if coded is None else None
    if coded is not None:
        kinds = dict(zip(coded.raters, coded.kinds, strict=True))
        counts = np.bincount(coded.rater, minlength=len(coded.raters))
        items = {name: int(count) for name, count in zip(coded.raters, counts, strict=True)}
        adjudications = coded.adjudications
    else:
        assert columns is not None
        kinds = columns.kinds
        items = dict(Counter(columns.raters))
        adjudications = columns.adjudications
    raters = compared_raters(kinds, annotators)
    left = left_out(kinds, items, raters, adjudications)
    if len(raters) < 2:
        have = ", ".join(quoted(n) for n in raters) or "none"
        who = "named" if annotators is not None else "the people who graded"
        raise InputError(
            f"agreement needs two annotators with grades or more; compared ({who}): {have}; "
            f"{left.line(quoted)}"
        )
    per_query = None
    if coded is not None:
        grades = _coded_matrix(coded, raters)
    else:
        assert columns is not None
        grades, item_queries = _grade_matrix(columns, raters)
        if by_query:
            per_query = _per_query(raters, grades, item_queries)
    confusions = tuple(
        pair_confusion(raters[i], raters[j], grades[i], grades[j])
        for i in range(len(raters))
        for j in range(i + 1, len(raters))
    )
    return AgreementReport(
        tuple(raters),
        agreement(raters, grades),
        per_query,
        left_out=left,
        confusions=confusions,
    )


def _per_query(
    raters: list[str], grades: Matrix, item_queries: list[str]
) -> tuple[tuple[str, Agreement], ...]:
    """Agreement per query; the item columns are in query order."""
    found: list[tuple[str, Agreement]] = []
    start = 0
    while start < len(item_queries):
        end = start
        while end < len(item_queries) and item_queries[end] == item_queries[start]:
            end += 1
        found.append((item_queries[start], agreement(raters, grades[:, start:end], MIN_ITEMS)))
        start = end
    return tuple(found)
