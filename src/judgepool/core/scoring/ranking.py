"""Forming one query's ranked list from a run's lines, under the contract.

The steps, in order: order the lines (`ties`, comparing scores at the
contract's `score_precision`), map document IDs to judged entities
(`entity`), drop or reject repeated entities (`duplicates`), look up grades,
then keep or remove unjudged documents (`unjudged`). Each step is a plain
function so the reference implementation reads like the specification.

`compared_score` is a score as the contract compares it. Under ``single`` it
is what trec_eval 9 holds after ``float sim = atof(text)``: the double the
text denotes (Python's ``float`` and C's ``strtod`` both round correctly),
converted to a C ``float`` by the same C cast (``struct`` packs a native
``'f'`` with it), so the double is rounded once more, to nearest, ties to
even, and a double beyond the largest float becomes an infinity.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from judgepool.core.terms.contract import Contract, ScorePrecision, TiePolicy
from judgepool.core.terms.errors import DuplicateEntry, UnjudgedEntry
from judgepool.core.terms.types import RunEntry


@dataclass(frozen=True, slots=True)
class RankedDoc:
    """A document at its place in the formed list. ``grade`` is None when unjudged."""

    doc_id: str
    entity: str
    grade: int | None
    score: float
    line: int


@dataclass(frozen=True)
class FormedList:
    """One query's list after every contract step, and what the steps found."""

    # after ordering and duplicate handling, before unjudged handling
    deduplicated: tuple[RankedDoc, ...]
    # what the measures see: `deduplicated` with the unjudged policy applied
    final: tuple[RankedDoc, ...]
    duplicates: tuple[DuplicateEntry, ...]
    # unjudged documents inside the top k of `deduplicated`, with 1-based rank
    unjudged_in_top_k: tuple[UnjudgedEntry, ...]


def compared_score(score: float, precision: ScorePrecision) -> float:
    """The score as the contract compares it: as read, or as a 32-bit float."""
    match precision:
        case "double":
            return score
        case "single":
            single: float = struct.unpack("f", struct.pack("f", score))[0]
            return single
        case _:
            assert_never(precision)


def order_entries(
    entries: Sequence[RunEntry], ties: TiePolicy, precision: ScorePrecision = "double"
) -> list[RunEntry]:
    """The run's lines of one query in ranked order under the tie policy, their
    scores compared at ``precision``."""
    match ties:
        case "trec_eval":
            # score descending, then document ID descending (byte order: Python
            # compares str by code point, which is UTF-8 byte order).
            return sorted(
                entries, key=lambda e: (compared_score(e.score, precision), e.doc_id), reverse=True
            )
        case "docid":
            return sorted(entries, key=lambda e: (-compared_score(e.score, precision), e.doc_id))
        case "rank":
            return sorted(entries, key=lambda e: e.rank)  # stable: equal ranks keep file order
        case "input":
            return list(entries)
        case _:
            assert_never(ties)


def form_list(
    query_id: str,
    entries: Sequence[RunEntry],
    judged: Mapping[str, int],
    contract: Contract,
) -> FormedList:
    """Apply the contract's list-forming steps to one query's run lines."""
    seen: dict[str, list[RunEntry]] = {}
    kept: list[RankedDoc] = []
    for entry in order_entries(entries, contract.ties, contract.score_precision):
        entity = contract.entity_of(entry.doc_id)
        copies = seen.setdefault(entity, [])
        copies.append(entry)
        if len(copies) == 1:
            kept.append(
                RankedDoc(entry.doc_id, entity, judged.get(entity), entry.score, entry.line)
            )
    duplicates = tuple(
        DuplicateEntry(query_id, entity, tuple(sorted(e.line for e in copies)))
        for entity, copies in seen.items()
        if len(copies) > 1
    )
    unjudged = tuple(
        UnjudgedEntry(query_id, doc.doc_id, position)
        for position, doc in enumerate(kept[: contract.k], start=1)
        if doc.grade is None
    )
    return FormedList(tuple(kept), _final(kept, contract), duplicates, unjudged)


def _final(kept: Sequence[RankedDoc], contract: Contract) -> tuple[RankedDoc, ...]:
    """The list the measures see: the unjudged documents kept (at gain 0) or
    removed. Under ``reject`` a list with unjudged documents in its top k is
    refused, and those beyond it stay."""
    match contract.unjudged:
        case "reject" | "zero":
            return tuple(kept)
        case "condense":
            return tuple(doc for doc in kept if doc.grade is not None)
        case _:
            assert_never(contract.unjudged)
