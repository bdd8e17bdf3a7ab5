"""The audit of `judgepool.core.auditing.audit`, computed on a run's columns: the same
`AuditReport`, item for item, from the fast engine's sorted order, keys and
judged lines (`audit.audit_run` over the reference reader's lines is the
reference; the tests hold the two together on random files and real runs).

An audit is computed in two steps, so that a run read in chunks of whole
queries can be audited chunk by chunk:

- `audit_part` (or `audit_indexed`, on a run the scorer already indexed):
  every finding of one set of whole queries: duplicates, unjudged documents
  in the top k, unknown queries, tie groups, rank disagreements, short lists,
  and each judged query's share of judged documents in its top k.
- `finish_audit`: the parts merged (each finding list by query ID, as the
  reference lists them), with what only the whole run or the judgments know:
  the bad lines the reader collected, the line count, the judged queries the
  run never returned (the only finding across parts) and the zero-IDCG queries.

Everything is array work over the run; Python loops run over the findings
only. Like the scorer, the audit never trusts a hash alone: judged lines and
duplicates are verified exactly, and every document of a top k reported
unjudged is checked exactly against the judgments (`matching.confirm_unjudged`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Any

import numpy as np

from judgepool.core.auditing.audit import (
    AuditReport,
    BadLineFinding,
    BadLineLike,
    Coverage,
    Findings,
    RankDisagreement,
    ShortList,
    TieGroup,
    audit_contract,
    zero_idcg_queries,
)
from judgepool.core.fast.audit_duplicates import find_all_duplicates
from judgepool.core.fast.audit_ranks import rank_disagreements
from judgepool.core.fast.audit_ties import tie_groups
from judgepool.core.fast.engine import evaluate_indexed
from judgepool.core.fast.indexed import IndexedRun, index_run
from judgepool.core.fast.judged import Matched, list_sizes, rank_judged_lines
from judgepool.core.fast.matching import JudgedLines, find_judged_lines
from judgepool.core.fast.run import ColumnarRun
from judgepool.core.fast.unjudged import unjudged_entries, unjudged_in_top
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import (
    DuplicateEntry,
    EngineInconsistency,
    PolicyError,
    UnjudgedEntry,
)
from judgepool.core.terms.types import Evaluation, Judgments


@dataclass(frozen=True)
class AuditPart:
    """The findings of a set of whole queries of a run, each list by query ID.

    ``coverage`` holds each judged query's judged share of its top k;
    ``last_line`` the highest line number among the part's lines (0: none);
    ``unknown_holes`` the top k of every unknown query (all unjudged), for the
    audit screen, which lists an unknown query's documents to judge.
    """

    query_ids: frozenset[str]
    duplicates: tuple[DuplicateEntry, ...] = ()
    unjudged: tuple[UnjudgedEntry, ...] = ()
    unknown_queries: tuple[str, ...] = ()
    ties: tuple[TieGroup, ...] = ()
    rank_disagreements: tuple[RankDisagreement, ...] = ()
    short_lists: tuple[ShortList, ...] = ()
    coverage: tuple[float, ...] = ()
    last_line: int = 0
    unknown_holes: dict[str, tuple[UnjudgedEntry, ...]] = field(default_factory=dict)


def audit_part(
    columns: ColumnarRun, judgments: Judgments, k: int, contract: Contract | None = None
) -> AuditPart:
    """The findings of a run's lines (whole queries) against the judgments at ``k``."""
    effective = audit_contract(k, contract)
    indexed = index_run(columns, judgments, effective)
    return audit_indexed(indexed, find_judged_lines(indexed, judgments), judgments, effective)


def audit_indexed(
    indexed: IndexedRun, lookup: JudgedLines, judgments: Judgments, contract: Contract
) -> AuditPart:
    """The findings of an indexed run whose judged lines are ``lookup``, under
    ``contract`` (an `audit_contract`: duplicates first, unjudged zero)."""
    layout, k = indexed.layout, contract.k
    if contract.duplicates != "first" or contract.unjudged != "zero":
        raise ValueError("audit_indexed takes an audit contract (see audit.audit_contract)")
    if layout.count == 0:
        return AuditPart(frozenset())
    duplicates, duplicate_entries = find_all_duplicates(indexed)
    matched = Matched(indexed, lookup, duplicates)
    lines = rank_judged_lines(matched, contract)
    sizes = list_sizes(matched, lines, contract)
    known = np.array(indexed.judged, dtype=bool)
    query_ids = layout.query_ids

    holes = np.flatnonzero(known & (sizes.unjudged_in_top > 0)).astype(np.int64)
    unjudged: list[UnjudgedEntry] = []
    if holes.size:
        unjudged = unjudged_entries(matched, unjudged_in_top(matched, lines, holes, judgments, k))
    unknown = np.flatnonzero(~known).astype(np.int64)
    unknown_holes: dict[str, list[UnjudgedEntry]] = {}
    if unknown.size:
        top = unjudged_in_top(matched, lines, unknown, judgments, k)
        for entry in unjudged_entries(matched, top):
            unknown_holes.setdefault(entry.query_id, []).append(entry)

    judged_at = np.flatnonzero(known)
    coverage = sizes.judged_in_top[judged_at] / np.minimum(k, sizes.returned[judged_at])
    short_at = np.flatnonzero(sizes.returned < k)
    short = sorted(
        (
            ShortList(query_ids[s], n)
            for s, n in zip(short_at.tolist(), sizes.returned[short_at].tolist(), strict=True)
        ),
        key=attrgetter("query_id"),
    )
    last_line = indexed.run.size if indexed.run.lines is None else int(indexed.run.lines.max())
    return AuditPart(
        query_ids=frozenset(query_ids),
        duplicates=tuple(duplicate_entries),
        unjudged=tuple(unjudged),
        unknown_queries=tuple(sorted(query_ids[s] for s in unknown.tolist())),
        ties=tuple(tie_groups(matched, k, contract.ties)),
        rank_disagreements=tuple(rank_disagreements(indexed)),
        short_lists=tuple(short),
        coverage=tuple(coverage.tolist()),
        last_line=last_line,
        unknown_holes={query: tuple(entries) for query, entries in unknown_holes.items()},
    )


def finish_audit(
    parts: Sequence[AuditPart],
    judgments: Judgments,
    k: int,
    contract: Contract | None = None,
    *,
    run: str = "",
    bad_lines: Iterable[BadLineLike] = (),
    lines: int | None = None,
) -> AuditReport:
    """The report of a run audited in ``parts`` (each a set of whole queries,
    no query in two), as `audit.audit_run` gives it. ``bad_lines``,
    ``lines`` and ``run`` as there."""
    effective = audit_contract(k, contract)
    returned: set[str] = set()
    for part in parts:
        returned |= part.query_ids
    if len(returned) != sum(len(part.query_ids) for part in parts):
        raise EngineInconsistency("a query of the run was audited in two parts")
    bad = sorted(
        (BadLineFinding(b.line, b.message) for b in bad_lines), key=lambda b: (b.line, b.message)
    )
    if lines is None:
        lines = max(
            max((part.last_line for part in parts), default=0),
            max((b.line for b in bad), default=0),
        )
    unjudged = _merged(parts, "unjudged")
    coverage = list(chain.from_iterable(part.coverage for part in parts))
    findings = Findings(
        bad_lines=tuple(bad),
        duplicates=_merged(parts, "duplicates"),
        unjudged=unjudged,
        unknown_queries=tuple(sorted(chain.from_iterable(p.unknown_queries for p in parts))),
        missing_queries=tuple(sorted(q for q in judgments if q not in returned)),
        ties=_merged(parts, "ties"),
        rank_disagreements=_merged(parts, "rank_disagreements"),
        short_lists=_merged(parts, "short_lists"),
        zero_idcg_queries=zero_idcg_queries(judgments, effective),
    )
    return AuditReport(
        run,
        k,
        lines,
        len(returned),
        Coverage(
            judged_at_k=math.fsum(coverage) / len(coverage) if coverage else None,
            unjudged_at_k=len(unjudged),
        ),
        findings,
    )


def _merged(parts: Sequence[AuditPart], kind: str) -> tuple[Any, ...]:
    """One finding list of every part, by query ID (a stable sort: each
    query's items are in one part, already in order)."""
    lists = [getattr(part, kind) for part in parts]
    if len(lists) == 1:
        return tuple(lists[0])
    return tuple(sorted(chain.from_iterable(lists), key=attrgetter("query_id")))


def audit_columns(
    columns: ColumnarRun,
    judgments: Judgments,
    k: int,
    contract: Contract | None = None,
    *,
    run: str = "",
    bad_lines: Iterable[BadLineLike] = (),
    lines: int | None = None,
) -> AuditReport:
    """A whole run's audit from its columns: `audit.audit_run`'s report."""
    part = audit_part(columns, judgments, k, contract)
    return finish_audit([part], judgments, k, contract, run=run, bad_lines=bad_lines, lines=lines)


def evaluate_and_audit(
    columns: ColumnarRun,
    judgments: Judgments,
    contract: Contract,
    source: str | None = None,
) -> tuple[AuditPart, Evaluation | PolicyError]:
    """Score a run and audit it at the contract's k in one pass: the run is
    grouped, ordered, hashed and matched against the judgments once.

    The evaluation is `evaluate_columns`'s; a ``reject`` policy's refusal is
    returned in its place, since the audit says what it refuses and more.
    """
    effective = audit_contract(contract.k, contract)
    # the index depends on the tie policy, the score precision and the entity
    # pattern only, which the audit's contract keeps: the scorer reads the same one
    indexed = index_run(columns, judgments, effective)
    lookup = find_judged_lines(indexed, judgments)
    part = audit_indexed(indexed, lookup, judgments, effective)
    try:
        evaluation = evaluate_indexed(indexed, judgments, contract, source, lookup)
    except PolicyError as refusal:
        return part, refusal
    return part, evaluation
