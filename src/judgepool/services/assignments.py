"""Personal queues: assigning pooled items (or whole queries) to annotators
(``judgepool assign``), and each annotator's progress (``judgepool progress``).

An assignment gives every unit ``overlap`` annotators with balanced loads
(`judgepool.core.team.assignment`), deterministic under its seed, and is stored
whole in one transaction; the newest assignment is the workspace's queues.
It hands out the work still to do: items without a current grade (unless
re-judging is asked for), all of them, the ones the current assignment does
not hold yet (extending it: every row it has stays), or the first holes in
settle order (`judgepool.services.settle_holes`) up to a budget of open items
that extending keeps and tops up (`judgepool.services.assignment_settle`).
"Judged" means a person's or an import's grade or an adjudication: an item
only a model labelled is still to hand out. Replacing or extending one
says what moved in each queue (`judgepool.core.team.assignment_moves`), and an
assignment with too few units for every pair of annotators to share one
says so. Progress counts against it, the grades of other items apart; a
rate is given once there are `RATE_MIN_GRADES` timed grades over
`RATE_MIN_SECONDS` at least (one quick grade made "1,783.1/h").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, cast

from judgepool.core.team.assignment import (
    Assigned,
    balanced_assignment,
    units_for_every_pair,
    unshared_pairs,
)
from judgepool.core.team.assignment_moves import Moved, moves
from judgepool.core.terms.errors import InputError
from judgepool.display import literal, quoted
from judgepool.formats.id_list import read_id_list
from judgepool.services.assignment_sample import SamplePick, sample_pick
from judgepool.services.assignment_settle import SettlePick, settle_pick
from judgepool.services.closest import closest
from judgepool.services.entry_checks import annotator_names, storable_path
from judgepool.store import assignments as store
from judgepool.store import grading_live, holdings
from judgepool.store.assignments import StoredAssignment
from judgepool.store.open_files import refuse_workspace_file
from judgepool.store.workspace import Workspace

Unit = Literal["item", "query"]
UNITS: Final = ("item", "query")


@dataclass(frozen=True)
class PairCoverage:
    """Whether every pair of the assignment's annotators shares a unit (which
    pairwise agreement needs): ``unshared`` of ``pairs`` share none, and
    ``needed`` units at least would let each pair share one at this overlap."""

    annotators: int
    overlap: int
    units: int
    pairs: int
    unshared: int
    needed: int


@dataclass(frozen=True)
class AssignResult:
    """What ``assign`` stored (``stored`` False: nothing new, the current one
    stays), the assignment it replaced or extended (None: the first), what
    moved in each queue, and the checks on it."""

    assignment: StoredAssignment
    unit: Unit
    overlap: int
    loads: dict[str, int]
    units: int
    left_out: int
    replaced: StoredAssignment | None
    extended: StoredAssignment | None = None
    stored: bool = True
    judged_left_out: int = 0
    # by query, extending: new items of queries already assigned, given to their annotators
    joined_items: int = 0
    moved: tuple[Moved, ...] = ()
    coverage: PairCoverage | None = None
    settle: SettlePick | None = None
    sample: SamplePick | None = None


def describe_assignment(stored: StoredAssignment) -> str:
    """One line for people: number, date, annotators and parameters."""
    names = ", ".join(quoted(name) for name in stored.annotators)
    cap = "" if stored.per_annotator is None else f", at most {stored.per_annotator} each"
    budget = "" if stored.settle is None else f", settle budget {stored.settle:,}"
    return (
        f"assignment #{stored.id} of {stored.created_at}: {stored.items:,} items to {names} "
        f"(overlap {stored.overlap}, by {stored.unit}{cap}{budget}, seed {stored.seed})"
    )


def _chosen_queries(ws: Workspace, path: str | Path, pooled: set[str]) -> set[str]:
    refuse_workspace_file(path)
    chosen: set[str] = set()
    for line, query_id in read_id_list(path):
        if query_id in pooled:
            chosen.add(query_id)
            continue
        if holdings.holds(ws.conn, "query", query_id):
            why = "has no pooled documents; pool a run that returns it first (judgepool pool)"
        else:
            near = closest(query_id, sorted(pooled))
            hint = "; closest pooled: " + ", ".join(quoted(q) for q in near) if near else ""
            why = f"is not a query of the workspace{hint}"
        raise InputError(f"query {quoted(query_id)} {why}", literal(str(path)), line)
    return chosen


@dataclass(frozen=True)
class _Plan:
    """The parameters an assignment is made with, those of the one it extends
    filled in."""

    annotators: list[str]
    overlap: int
    by: Unit
    per_annotator: int | None
    extending: StoredAssignment | None


def _plan(
    current: StoredAssignment | None,
    annotators: Sequence[str] | None,
    overlap: int | None,
    by: Unit | None,
    per_annotator: int | None,
    extend: bool,
) -> _Plan:
    if not extend or current is None:
        if annotators is None or overlap is None:
            missing = "--annotators" if annotators is None else "--overlap"
            why = " (there is no assignment to extend)" if extend else ""
            raise InputError(f"assign needs {missing}{why}")
        return _Plan(list(annotators), overlap, by or "item", per_annotator, None)
    if overlap is not None and overlap != current.overlap:
        raise InputError(
            f"--extend keeps the overlap of assignment #{current.id}, {current.overlap}; "
            f"--overlap {overlap} differs (assign without --extend to change it)"
        )
    if by is not None and by != current.unit:
        raise InputError(
            f"--extend keeps assignment #{current.id} by {current.unit}; --by {by} differs"
        )
    names = list(current.annotators) if annotators is None else list(annotators)
    cap = current.per_annotator if per_annotator is None else per_annotator
    return _Plan(names, current.overlap, cast(Unit, current.unit), cap, current)


def assign(
    ws: Workspace,
    *,
    annotators: Sequence[str] | None,
    overlap: int | None,
    by: Unit | None = None,
    queries_file: str | Path | None = None,
    per_annotator: int | None = None,
    seed: int = 0,
    include_judged: bool = False,
    extend: bool = False,
    settle: int | None = None,
    sample: str | Path | None = None,
) -> AssignResult:
    """Assign the pooled items (of the queries listed in ``queries_file``, if
    given) so that each unit, an item or a whole query (``by``), gets
    ``overlap`` of ``annotators``, with balanced loads, and store it as the
    workspace's current assignment.

    Only items without a current grade (from anyone: imports and models too)
    or adjudication are handed out, unless ``include_judged`` (for re-judging
    studies). ``extend``: keep every row of the current assignment (graded or
    not) and assign only the items it does not hold, with its overlap and unit
    (and, unless given, its annotators and cap), new loads going first to
    whoever holds fewest. ``settle``: a budget of open items, filled with
    the first holes of the stored runs in settle order that could be
    assigned, as items; extending keeps the budget of the assignment it
    extends (unless ``settle`` gives another) and tops it up, adding as many
    holes as its items no longer open (`judgepool.services.assignment_settle`).
    ``sample``: a sample file's holes instead, every one still open
    (`judgepool.services.assignment_sample`)."""
    if by is not None and by not in UNITS:
        raise InputError(f"assign by 'item' or 'query', not {quoted(by)}")
    if annotators is not None:
        annotators = annotator_names(ws, annotators)
    if per_annotator is not None and per_annotator < 1:
        raise InputError(f"--per-annotator must be 1 or more, got {per_annotator}")
    if settle is not None and settle < 1:
        raise InputError(f"--settle must be 1 or more, got {settle}")
    current = store.current_assignment(ws)
    plan = _plan(current, annotators, overlap, by, per_annotator, extend)
    if settle is not None and plan.by == "query":
        raise InputError("--settle assigns holes one by one: it cannot be by query")
    if sample is not None and (settle is not None or plan.by == "query"):
        raise InputError("--sample assigns the sample's holes one by one: not with --settle "
                         "or by query")  # fmt: skip
    items = store.pooled_items(ws)
    if not items:
        raise InputError(
            "the workspace has no pooled documents to assign; pool runs first "
            "(judgepool pool WS --depth D)",
            str(ws.path),
        )
    held_rows = [] if plan.extending is None else store.assignment_rows(ws, plan.extending.id)
    judged = store.judged_items(ws)
    why_not = _passed_over(ws, items, queries_file, held_rows, set() if include_judged else judged)
    judged_left_out = sum(1 for reason in why_not.values() if reason == "already judged")
    open_items = [item for item in items if item not in why_not]
    budget = settle if settle is not None or plan.extending is None else plan.extending.settle
    pick = None
    sampled = None
    if sample is not None:
        open_items, sampled = sample_pick(sample, items, why_not)
        judged_left_out = sampled.passed_over.get("already judged", 0)
    elif budget is not None:
        kept_from = plan.extending if settle is None else None
        open_items, pick = settle_pick(
            ws, budget, open_items, why_not, held_rows, judged, kept_from=kept_from
        )
        judged_left_out = pick.passed_over.get("already judged", 0)
    if not open_items and plan.extending is None:
        raise InputError(_nothing_to_assign(len(items), why_not, pick), str(ws.path))
    names = list(dict.fromkeys([*(plan.extending.annotators if plan.extending else ()),
                                *plan.annotators]))  # fmt: skip
    new_rows, done, joined = _assign_units(open_items, held_rows, plan, seed)
    if plan.extending is not None and not new_rows:
        return _unchanged(ws, plan, plan.extending, judged_left_out, pick)
    rows = held_rows + new_rows
    replaced = current if plan.extending is None else None
    with ws.write() as conn:
        store.save_assignment(
            conn,
            unit=plan.by,
            overlap=plan.overlap,
            seed=seed,
            annotators=names,
            per_annotator=plan.per_annotator,
            queries_file=None if queries_file is None else storable_path(queries_file),
            rows=rows,
            settle=budget,
        )
    stored = store.current_assignment(ws)
    assert stored is not None  # just written
    before = held_rows if replaced is None else store.assignment_rows(ws, replaced.id)
    graded = set() if replaced is None else store.graded_rows(ws, replaced.id)
    moved = () if current is None else moves(names, before, rows, graded)
    return AssignResult(
        stored,
        plan.by,
        plan.overlap,
        _unit_loads(names, rows, plan.by),
        len(done.units),
        len(done.left_out),
        replaced,
        extended=plan.extending,
        judged_left_out=judged_left_out,
        joined_items=joined,
        moved=moved,
        coverage=_coverage(names, rows, plan),
        settle=pick,
        sample=sampled,
    )


def _passed_over(
    ws: Workspace,
    items: list[tuple[str, str]],
    queries_file: str | Path | None,
    held_rows: list[tuple[str, str, str]],
    judged: set[tuple[str, str]],
) -> dict[tuple[str, str], str]:
    """The pooled items not to assign, each with why: not a query of
    ``queries_file``, held by the assignment extended, or ``judged`` already."""
    why_not: dict[tuple[str, str], str] = {}
    if queries_file is not None:
        wanted = _chosen_queries(ws, queries_file, {query_id for query_id, _ in items})
        why_not.update((item, "not in --queries") for item in items if item[0] not in wanted)
    held = {(query_id, doc_id) for _, query_id, doc_id in held_rows}
    for item in items:
        if item in why_not:
            continue
        if item in held:
            why_not[item] = "already assigned"
        elif item in judged:
            why_not[item] = "already judged"
    return why_not


def _nothing_to_assign(
    pooled: int, why_not: dict[tuple[str, str], str], pick: SettlePick | None
) -> str:
    """Why no item is left to assign, with the counts."""
    counts: dict[str, int] = {}
    for reason in why_not.values():
        counts[reason] = counts.get(reason, 0) + 1
    if pick is not None and pick.holes == 0:
        return "nothing to assign: the stored runs' top k hold no hole (no unjudged document)"
    whys = ", ".join(f"{count:,} {reason}" for reason, count in sorted(counts.items()))
    text = f"nothing to assign: of {pooled:,} pooled items, {whys}"
    if pick is not None:
        text += f"; of {pick.holes:,} holes in settle order none is pooled and open"
    if "already judged" in counts:
        text += "; --include-judged assigns judged items too (for re-judging)"
    return text


def _assign_units(
    items: list[tuple[str, str]], held_rows: list[tuple[str, str, str]], plan: _Plan, seed: int
) -> tuple[list[tuple[str, str, str]], Assigned[Any], int]:
    """The rows that give ``items`` their annotators (by item, or by query:
    a query some annotators already hold goes on to them), the units, and
    how many items went on to the holders of their query."""
    by_query: dict[str, list[tuple[str, str]]] = {}
    for item in items:
        by_query.setdefault(item[0], []).append(item)
    holders = _groups(held_rows, plan.by)
    rows: list[tuple[str, str, str]] = []
    joined = 0
    if plan.by == "query":
        for query_id in [q for q in by_query if q in holders]:
            members = by_query.pop(query_id)
            joined += len(members)
            rows.extend((who, q, d) for who in holders[query_id] for q, d in members)
    units: list[Any] = list(by_query) if plan.by == "query" else items
    loads: dict[str, int] = {}
    for names in holders.values():
        for name in names:
            loads[name] = loads.get(name, 0) + 1
    done = balanced_assignment(
        units,
        plan.annotators,
        plan.overlap,
        seed=seed,
        per_annotator=plan.per_annotator,
        loads=loads,
        together=holders.values(),
    )
    for unit, names in done.units:
        members = by_query[unit] if plan.by == "query" else [unit]
        rows.extend((name, query_id, doc_id) for name in names for query_id, doc_id in members)
    return rows, done, joined


def _groups(rows: Sequence[tuple[str, str, str]], by: str) -> dict[Any, tuple[str, ...]]:
    """The annotators of each unit (an item, or a query) of ``rows``."""
    found: dict[Any, dict[str, None]] = {}
    for who, query_id, doc_id in rows:
        key: Any = query_id if by == "query" else (query_id, doc_id)
        found.setdefault(key, {})[who] = None
    return {key: tuple(names) for key, names in found.items()}


def _unit_loads(
    names: Sequence[str], rows: Sequence[tuple[str, str, str]], by: str
) -> dict[str, int]:
    loads = dict.fromkeys(names, 0)
    for group in _groups(rows, by).values():
        for name in group:
            loads[name] = loads.get(name, 0) + 1
    return loads


def _coverage(
    names: Sequence[str], rows: Sequence[tuple[str, str, str]], plan: _Plan
) -> PairCoverage | None:
    if plan.overlap < 2 or len(names) < 2:
        return None  # nobody is meant to share
    groups = _groups(rows, plan.by)
    return PairCoverage(
        len(names),
        plan.overlap,
        len(groups),
        len(names) * (len(names) - 1) // 2,
        unshared_pairs(groups.values(), names),
        units_for_every_pair(len(names), plan.overlap),
    )


def _unchanged(
    ws: Workspace,
    plan: _Plan,
    current: StoredAssignment,
    judged_left_out: int,
    pick: SettlePick | None,
) -> AssignResult:
    """Nothing new to assign: the current assignment stays, as it is."""
    rows = store.assignment_rows(ws, current.id)
    names = list(current.annotators)
    return AssignResult(
        current, plan.by, plan.overlap, _unit_loads(names, rows, plan.by), 0, 0, None,
        extended=current, stored=False, judged_left_out=judged_left_out,
        moved=moves(names, rows, rows, ()), coverage=_coverage(names, rows, plan), settle=pick,
    )  # fmt: skip


def assigned_items(ws: Workspace, annotator: str) -> set[tuple[str, str]] | None:
    """The items the current assignment gives ``annotator`` (their queue);
    None when there is no assignment or it gives them nothing."""
    return grading_live.assigned_to(ws, annotator)


def current_assignment(ws: Workspace) -> StoredAssignment | None:
    """The workspace's current assignment, None when it has none."""
    return store.current_assignment(ws)


@dataclass(frozen=True)
class Progress:
    """One annotator's progress against the current assignment (`store.ProgressRow`:
    ``graded`` and ``unsure`` count its items, ``graded_elsewhere`` the
    others they hold a grade of). ``seconds`` is the time their grading events
    record (the app records how long each document was shown before it was
    graded or marked unsure; the command line records none); ``per_hour`` the
    grades among those timed events per hour of it (None: too few yet,
    `grades_per_hour`)."""

    annotator: str
    assigned: int
    graded: int
    unsure: int
    remaining: int
    seconds: float
    per_hour: float | None
    graded_elsewhere: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "annotator": self.annotator,
            "assigned": self.assigned,
            "graded": self.graded,
            "unsure": self.unsure,
            "remaining": self.remaining,
            "graded_elsewhere": self.graded_elsewhere,
            "seconds": round(self.seconds, 3),
            "per_hour": None if self.per_hour is None else round(self.per_hour, 1),
        }


RATE_MIN_GRADES: Final = 5
RATE_MIN_SECONDS: Final = 120.0


def grades_per_hour(timed_grades: int, seconds: float) -> float | None:
    """The rate of ``progress`` and of the app's grade screen: grades per hour of
    the time the app recorded for them; None before `RATE_MIN_GRADES` timed
    grades over `RATE_MIN_SECONDS` at least, since a rate from a grade or two,
    or from seconds, says nothing of an hour."""
    if timed_grades < RATE_MIN_GRADES or seconds < RATE_MIN_SECONDS:
        return None
    return timed_grades * 3600.0 / seconds


def progress(ws: Workspace) -> list[Progress]:
    """Every annotator's progress against the current assignment, by name.
    ``remaining``: assigned items they hold no grade of (unsure ones included),
    so ``assigned`` is ``graded`` + ``remaining``."""
    return [
        Progress(
            row.annotator,
            row.assigned,
            row.graded,
            row.unsure,
            row.remaining,
            row.seconds,
            grades_per_hour(row.timed_grades, row.seconds),
            row.graded_elsewhere,
        )
        for row in store.progress(ws)
    ]
