"""One query of one run taken apart: its ranked list with each document's grade,
gain and contribution, beside the ideal list, and its record under the contract."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from judgepool.core.scoring.metrics import discount, score_missing_query, score_query
from judgepool.core.scoring.ranking import form_list
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import QueryResult, RunEntry


@dataclass(frozen=True)
class RankedRow:
    """A document at its 1-based position in the list the measures see.

    ``contribution`` is its gain times the discount inside the top k, else 0.
    """

    position: int
    doc_id: str
    grade: int | None
    gain: float
    contribution: float
    score: float | None


@dataclass(frozen=True)
class Drilldown:
    """One query of one run: the ranked list with grades, the ideal list, and the
    query's record under the contract (the same numbers as the per-query table)."""

    run: str
    query_id: str
    contract: Contract
    result: QueryResult
    ranked: tuple[RankedRow, ...]
    ideal: tuple[RankedRow, ...]
    # unjudged documents the contract removed (unjudged=condense)
    removed: tuple[str, ...]
    # entities the run returned more than once, with how many extra copies
    duplicates: tuple[tuple[str, int], ...]


def _rows(
    docs: Iterable[tuple[str, int | None, float | None]], contract: Contract
) -> tuple[RankedRow, ...]:
    rows: list[RankedRow] = []
    for position, (doc_id, grade, score) in enumerate(docs, start=1):
        gain = contract.gain_of(grade)
        contribution = gain * discount(position) if position <= contract.k else 0.0
        rows.append(RankedRow(position, doc_id, grade, gain, contribution, score))
    return tuple(rows)


def drill_down_lists(
    run: str,
    query_id: str,
    entries: Sequence[RunEntry],
    judged: Mapping[str, int],
    contract: Contract,
) -> Drilldown:
    """The drill-down of one query from its run lines and its judgments.

    The ideal list orders the universe by gain, then grade, both descending,
    then document ID: the judged documents under ``universe=judged``, the
    run's own (formed) list under ``candidates``.
    """
    if not entries:
        result = score_missing_query(query_id, judged, contract)
        ranked: tuple[RankedRow, ...] = ()
        removed: tuple[str, ...] = ()
        duplicates: tuple[tuple[str, int], ...] = ()
        universe: list[tuple[str, int | None]] = (
            list(judged.items()) if contract.universe == "judged" else []
        )
    else:
        formed = form_list(query_id, entries, judged, contract)
        result = score_query(query_id, formed, judged, contract)
        ranked = _rows(((d.doc_id, d.grade, d.score) for d in formed.final), contract)
        kept = {d.doc_id for d in formed.final}
        removed = tuple(d.doc_id for d in formed.deduplicated if d.doc_id not in kept)
        duplicates = tuple((d.doc_id, len(d.lines) - 1) for d in formed.duplicates)
        if contract.universe == "judged":
            universe = list(judged.items())
        else:
            universe = [(d.entity, d.grade) for d in formed.final]
    ideal_order = sorted(
        universe,
        key=lambda item: (
            -contract.gain_of(item[1]),
            -(item[1] if item[1] is not None else -math.inf),
            item[0],
        ),
    )
    ideal = _rows(((doc, grade, None) for doc, grade in ideal_order), contract)
    return Drilldown(run, query_id, contract, result, ranked, ideal, removed, duplicates)
