"""The audit of a run: everything that would make its score misleading, as findings.

`audit_run` takes a run's lines (as read, with their 1-based source line numbers),
the lines the reader could not use, and the judgments, and returns an
`AuditReport` whose ``to_dict()`` is the JSON object of docs/audit-report.md.
It never raises on what it is there to report (duplicates, unjudged
documents, bad lines): lists are formed with ``duplicates=first`` and
``unjudged=zero`` whatever the caller's contract says, keeping its ``ties`` and
``entity`` so every rank agrees with what scoring would see. `failed` turns a
``--fail-on`` list into the finding kinds that should fail a CI gate.

Definitions, where docs/audit-report.md leaves room:

- ``queries`` counts the distinct query IDs of the run.
- ``unjudged`` and ``coverage`` concern the run's *judged* queries (those the
  judgments know), as scoring does; every document of an unknown query is
  unjudged, and the query is listed once in ``unknown_queries`` instead.
- ``short_lists`` covers every query of the run, judged or not; ``returned`` is
  the list length after duplicate handling (as in scoring). A judged query the
  run does not return at all is in ``missing_queries`` only.
- ``ties``: the documents of one query (after duplicate handling) with exactly
  equal scores, when at least two share a score and at least one of them is in
  the top k. Grouping is by score value, not adjacency, so that under
  ``ties=rank`` or ``ties=input`` equal scores far apart are still one group.
  Scores are compared as the contract compares them (``score_precision``:
  under ``single``, 68.41769638061524 and 68.41769618988037 are one 32-bit
  float, a tie, as trec_eval 9 sees them), and a group's ``score`` is that
  shared value, its first member's.
- ``rank_disagreements``: two lines of one query *disagree* when one has the
  strictly smaller rank and the strictly smaller score (the rank column puts it
  first, the score puts it after; scores compared at the contract's
  precision). Equal ranks claim no order and equal scores
  are free to be broken by rank, so neither disagrees. Every line taking part
  in a disagreement is involved; ``lines`` lists the first
  `MAX_DISAGREEMENT_LINES` of them by line number, ``involved`` counts them all.
  Duplicate lines count, since the rank column is about the file as written.
- ``zero_idcg_queries``: judged queries none of whose grades has positive gain
  (a grade > 0 outside the contract's scale counts as positive).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Final, Protocol

from judgepool.core.scoring.ranking import RankedDoc, compared_score, form_list
from judgepool.core.terms.contract import Contract, ScorePrecision
from judgepool.core.terms.errors import DuplicateEntry, UnjudgedEntry
from judgepool.core.terms.types import Judgments, RunEntry

FINDING_KINDS: Final = (
    "bad_lines",
    "duplicates",
    "unjudged",
    "unknown_queries",
    "missing_queries",
    "ties",
    "rank_disagreements",
    "short_lists",
    "zero_idcg_queries",
)

# RunEntry is a NamedTuple: an item getter is the cheapest sort key.
_rank_of: Final = itemgetter(2)

# A run whose rank column is reversed has every line in a disagreement: listing
# millions of line numbers helps nobody, the first few locate the problem.
MAX_DISAGREEMENT_LINES: Final = 20


class BadLineLike(Protocol):
    """A line the reader could not use (`judgepool.formats.trec.BadLine` is one)."""

    @property
    def line(self) -> int: ...

    @property
    def message(self) -> str: ...


@dataclass(frozen=True)
class BadLineFinding:
    line: int
    message: str


@dataclass(frozen=True)
class TieGroup:
    """Documents of one query with equal scores, in formed-list order."""

    query_id: str
    score: float
    doc_ids: tuple[str, ...]
    crosses_cutoff: bool


@dataclass(frozen=True)
class RankDisagreement:
    """Lines of one query where the rank column contradicts the scores."""

    query_id: str
    lines: tuple[int, ...]
    # how many lines are involved in all; `lines` shows at most MAX_DISAGREEMENT_LINES
    # (not part of the JSON shape of docs/audit-report.md)
    involved: int


@dataclass(frozen=True)
class ShortList:
    query_id: str
    returned: int


@dataclass(frozen=True)
class Coverage:
    # mean over the run's judged queries of judged-in-top-k / min(k, returned);
    # None when no judged query returned anything
    judged_at_k: float | None
    unjudged_at_k: int


@dataclass(frozen=True)
class Findings:
    """The nine finding lists, each empty when the run is clean in that respect."""

    bad_lines: tuple[BadLineFinding, ...] = ()
    duplicates: tuple[DuplicateEntry, ...] = ()
    unjudged: tuple[UnjudgedEntry, ...] = ()
    unknown_queries: tuple[str, ...] = ()
    missing_queries: tuple[str, ...] = ()
    ties: tuple[TieGroup, ...] = ()
    rank_disagreements: tuple[RankDisagreement, ...] = ()
    short_lists: tuple[ShortList, ...] = ()
    zero_idcg_queries: tuple[str, ...] = ()

    def of_kind(self, kind: str) -> tuple[Any, ...]:
        """The list of one finding kind, by its JSON name."""
        if kind not in FINDING_KINDS:
            raise ValueError(_unknown_kind_message(kind))
        result: tuple[Any, ...] = getattr(self, kind)
        return result

    def to_dict(self) -> dict[str, list[Any]]:
        return {
            "bad_lines": [{"line": f.line, "message": f.message} for f in self.bad_lines],
            "duplicates": [
                {"query_id": d.query_id, "doc_id": d.doc_id, "lines": list(d.lines)}
                for d in self.duplicates
            ],
            "unjudged": [
                {"query_id": u.query_id, "doc_id": u.doc_id, "rank": u.rank} for u in self.unjudged
            ],
            "unknown_queries": list(self.unknown_queries),
            "missing_queries": list(self.missing_queries),
            "ties": [
                {
                    "query_id": t.query_id,
                    "score": t.score,
                    "doc_ids": list(t.doc_ids),
                    "crosses_cutoff": t.crosses_cutoff,
                }
                for t in self.ties
            ],
            "rank_disagreements": [
                {"query_id": r.query_id, "lines": list(r.lines)} for r in self.rank_disagreements
            ],
            "short_lists": [
                {"query_id": s.query_id, "returned": s.returned} for s in self.short_lists
            ],
            "zero_idcg_queries": list(self.zero_idcg_queries),
        }


@dataclass(frozen=True)
class AuditReport:
    """One run's audit: what was read, the top-k coverage, and every finding."""

    run: str
    k: int
    lines: int
    queries: int
    coverage: Coverage
    findings: Findings = field(default_factory=Findings)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of docs/audit-report.md."""
        return {
            "run": self.run,
            "k": self.k,
            "lines": self.lines,
            "queries": self.queries,
            "coverage": {
                "judged_at_k": self.coverage.judged_at_k,
                "unjudged_at_k": self.coverage.unjudged_at_k,
            },
            "findings": self.findings.to_dict(),
        }


def audit_contract(k: int, contract: Contract | None = None) -> Contract:
    """The contract lists are formed under: the caller's ``ties``, ``entity`` and
    scale, cut at ``k``, with policies that report rather than refuse."""
    base = contract if contract is not None else Contract()
    return base.with_changes(k=k, duplicates="first", unjudged="zero")


def audit_run(
    entries: Sequence[RunEntry],
    judgments: Judgments,
    k: int,
    contract: Contract | None = None,
    *,
    run: str = "",
    bad_lines: Iterable[BadLineLike] = (),
    lines: int | None = None,
) -> AuditReport:
    """Audit a run's lines against the judgments at cutoff ``k``.

    ``entries`` are the run's usable lines in source order, ``bad_lines`` the
    ones the reader refused and ``lines`` the file's physical line count (when
    None, the highest line number seen). ``run`` names the run in the report.
    Raises `ContractError` only for an invalid ``k``.
    """
    effective = audit_contract(k, contract)
    by_query: dict[str, list[RunEntry]] = {}
    for entry in entries:
        by_query.setdefault(entry.query_id, []).append(entry)

    bad = sorted(
        (BadLineFinding(b.line, b.message) for b in bad_lines), key=lambda b: (b.line, b.message)
    )
    duplicates: list[DuplicateEntry] = []
    unjudged: list[UnjudgedEntry] = []
    ties: list[TieGroup] = []
    disagreements: list[RankDisagreement] = []
    short: list[ShortList] = []
    coverage_values: list[float] = []
    no_judgments: Mapping[str, int] = {}

    for query_id in sorted(by_query):
        query_entries = by_query[query_id]
        judged = judgments.get(query_id)
        formed = form_list(
            query_id, query_entries, judged if judged is not None else no_judgments, effective
        )
        kept = formed.deduplicated
        duplicates.extend(sorted(formed.duplicates, key=lambda d: d.lines))
        if judged is not None:
            unjudged.extend(formed.unjudged_in_top_k)
            top = kept[:k]
            judged_in_top = sum(1 for doc in top if doc.grade is not None)
            coverage_values.append(judged_in_top / len(top))
        precision = effective.score_precision
        ties.extend(_tie_groups(query_id, kept, k, precision))
        disagreement = _rank_disagreement(query_id, query_entries, precision)
        if disagreement is not None:
            disagreements.append(disagreement)
        if len(kept) < k:
            short.append(ShortList(query_id, len(kept)))

    if lines is None:
        lines = max(
            max((e.line for e in entries), default=0), max((b.line for b in bad), default=0)
        )
    findings = Findings(
        bad_lines=tuple(bad),
        duplicates=tuple(duplicates),
        unjudged=tuple(unjudged),
        unknown_queries=tuple(q for q in sorted(by_query) if q not in judgments),
        missing_queries=tuple(q for q in sorted(judgments) if q not in by_query),
        ties=tuple(ties),
        rank_disagreements=tuple(disagreements),
        short_lists=tuple(short),
        zero_idcg_queries=zero_idcg_queries(judgments, effective),
    )
    coverage = Coverage(
        judged_at_k=math.fsum(coverage_values) / len(coverage_values) if coverage_values else None,
        unjudged_at_k=len(unjudged),
    )
    return AuditReport(run, k, lines, len(by_query), coverage, findings)


def failed(report: AuditReport, kinds: Iterable[str] | str) -> list[str]:
    """The finding kinds among ``kinds`` (``--fail-on``) that the report has entries for.

    ``kinds`` is an iterable of names or one comma-separated string; blanks
    around names and empty names are ignored. The result keeps the order given,
    without repeats. An unknown name is a ValueError listing the nine kinds.
    """
    names = kinds.split(",") if isinstance(kinds, str) else kinds
    wanted: list[str] = []
    for name in names:
        name = name.strip()
        if not name or name in wanted:
            continue
        if name not in FINDING_KINDS:
            raise ValueError(_unknown_kind_message(name))
        wanted.append(name)
    return [kind for kind in wanted if report.findings.of_kind(kind)]


def _unknown_kind_message(kind: str) -> str:
    return f"unknown audit finding {kind!r}; the finding kinds are: {', '.join(FINDING_KINDS)}"


def zero_idcg_queries(judgments: Judgments, contract: Contract) -> tuple[str, ...]:
    """The judged queries none of whose grades has a positive gain, by query ID."""
    return tuple(q for q in sorted(judgments) if not _has_positive_gain(judgments[q], contract))


def _has_positive_gain(judged: Mapping[str, int], contract: Contract) -> bool:
    gains = contract.gains
    # A grade outside the scale has no gain in the table; it is positive if > 0.
    return any(grade > 0 and gains.get(grade, 1.0) > 0 for grade in judged.values())


def _tie_groups(
    query_id: str, kept: Sequence[RankedDoc], k: int, precision: ScorePrecision
) -> list[TieGroup]:
    """Groups of equal scores (at ``precision``) with a member in the top k, in
    order of first position."""
    scores = [compared_score(doc.score, precision) for doc in kept]
    top_scores = set(scores[:k])
    members: dict[float, list[tuple[int, str]]] = {}
    for position, (doc, score) in enumerate(zip(kept, scores, strict=True)):
        if score in top_scores:
            members.setdefault(score, []).append((position, doc.doc_id))
    groups = [
        TieGroup(
            query_id,
            score,
            tuple(doc_id for _, doc_id in group),
            # positions are 0-based here; some inside the cutoff is given
            crosses_cutoff=group[-1][0] >= k,
        )
        for score, group in members.items()
        if len(group) > 1
    ]
    # dict insertion order is already the order of first position
    return groups


def _rank_disagreement(
    query_id: str, entries: Sequence[RunEntry], precision: ScorePrecision
) -> RankDisagreement | None:
    """The lines of one query involved in a rank/score contradiction, if any.

    A line is involved when some line of strictly smaller rank has a strictly
    smaller score, or some line of strictly greater rank a strictly greater
    score (scores at ``precision``): one sort by rank, then a running minimum
    forwards and a running maximum backwards over groups of equal rank.
    """
    by_rank = sorted(entries, key=_rank_of)
    scores = [compared_score(entry.score, precision) for entry in by_rank]
    # The usual case: scores never rise along the rank order, so no pair can
    # disagree. Sorting a non-increasing list is one linear pass in C.
    if scores == sorted(scores, reverse=True):
        return None
    # groups of equal rank, each line with its compared score
    groups: list[list[tuple[RunEntry, float]]] = []
    for entry, score in zip(by_rank, scores, strict=True):
        if groups and groups[-1][0][0].rank == entry.rank:
            groups[-1].append((entry, score))
        else:
            groups.append([(entry, score)])
    involved: set[int] = set()
    lowest_before = math.inf
    for group in groups:
        for entry, score in group:
            if lowest_before < score:
                involved.add(entry.line)
        lowest_before = min(lowest_before, min(score for _, score in group))
    highest_after = -math.inf
    for group in reversed(groups):
        for entry, score in group:
            if highest_after > score:
                involved.add(entry.line)
        highest_after = max(highest_after, max(score for _, score in group))
    if not involved:
        return None
    shown = tuple(sorted(involved)[:MAX_DISAGREEMENT_LINES])
    return RankDisagreement(query_id, shown, len(involved))
