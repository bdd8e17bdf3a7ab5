"""Agreement between a workspace's annotators (``judgepool agreement``): the
latest grade of each rater per item (`judgepool.store.ratings`: a model's
labels are the rater ``model:NAME``), as a matrix for
`judgepool.core.agreement`, over the whole workspace and per query.

Per query a statistic needs `judgepool.core.agreement.MIN_ITEMS` items (that
module says why); over the whole workspace any number will do, and an
undefined value is None with its reason, never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgepool.core.agreement import (
    MIN_ITEMS,
    Agreement,
    Measured,
    OverallAgreement,
    PairAgreement,
    agreement,
)
from judgepool.core.errors import InputError
from judgepool.display import quoted
from judgepool.services.closest import closest
from judgepool.store.ratings import current_ratings
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class AgreementReport:
    """Agreement of ``raters`` over the workspace, and per query when asked."""

    raters: tuple[str, ...]
    overall: Agreement
    per_query: tuple[tuple[str, Agreement], ...] | None
    minimum_per_query: int = MIN_ITEMS

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``agreement --format json``."""
        data: dict[str, Any] = agreement_dict(self.overall)
        if self.per_query is not None:
            data["per_query"] = [
                {"query_id": query_id, **agreement_dict(found)}
                for query_id, found in self.per_query
            ]
            data["min_items_per_query"] = self.minimum_per_query
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


def rater_names(ws: Workspace) -> list[str]:
    """Every rater with at least one current grade, sorted."""
    return sorted({rater for _, _, rater, _ in current_ratings(ws)})


def _chosen(known: Sequence[str], wanted: Sequence[str] | None) -> list[str]:
    if wanted is None:
        return list(known)
    chosen: list[str] = []
    for name in wanted:
        if name not in known:
            near = closest(name, known)
            hint = "; closest: " + ", ".join(quoted(n) for n in near) if near else ""
            listed = ", ".join(quoted(n) for n in known) or "none yet"
            raise InputError(
                f"no annotator {quoted(name)} has a current grade{hint}. "
                f"Annotators with grades: {listed}"
            )
        if name in chosen:
            raise InputError(f"annotator {quoted(name)} is listed twice")
        chosen.append(name)
    return chosen


def workspace_agreement(
    ws: Workspace, *, annotators: Sequence[str] | None = None, by_query: bool = False
) -> AgreementReport:
    """Agreement of ``annotators`` (default: every rater with a grade) over the
    items they graded; with ``by_query``, also per query."""
    ratings = current_ratings(ws)
    known = sorted({rater for _, _, rater, _ in ratings})
    raters = _chosen(known, annotators)
    if len(raters) < 2:
        have = ", ".join(quoted(n) for n in raters) or "none"
        raise InputError(
            f"agreement needs two annotators with grades or more; the workspace has {have}"
        )
    row_of = {name: index for index, name in enumerate(raters)}
    items: dict[tuple[str, str], int] = {}
    # ratings are in ledger order: a later grade of the same rater replaces an earlier one
    cells: dict[tuple[int, int], int] = {}
    for query_id, doc_id, rater, grade in ratings:
        row = row_of.get(rater)
        if row is None:
            continue
        cells[row, items.setdefault((query_id, doc_id), len(items))] = grade
    grades = np.full((len(raters), len(items)), np.nan)
    if cells:
        rows, columns = np.array(list(cells), dtype=np.int64).T
        grades[rows, columns] = np.fromiter(cells.values(), dtype=np.float64, count=len(cells))
    overall = agreement(raters, grades)
    per_query = _per_query(raters, grades, list(items)) if by_query else None
    return AgreementReport(tuple(raters), overall, per_query)


def _per_query(
    raters: list[str], grades: np.ndarray[Any, np.dtype[np.float64]], items: list[tuple[str, str]]
) -> tuple[tuple[str, Agreement], ...]:
    order = sorted(range(len(items)), key=lambda column: items[column])
    found: list[tuple[str, Agreement]] = []
    start = 0
    while start < len(order):
        query_id = items[order[start]][0]
        end = start
        while end < len(order) and items[order[end]][0] == query_id:
            end += 1
        columns = np.array(order[start:end], dtype=np.int64)
        found.append((query_id, agreement(raters, grades[:, columns], MIN_ITEMS)))
        start = end
    return tuple(found)
