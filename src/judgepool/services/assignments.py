"""Personal queues: assigning pooled items (or whole queries) to annotators
(``judgepool assign``), and each annotator's progress (``judgepool progress``).

An assignment gives every unit ``overlap`` annotators with balanced loads
(`judgepool.core.assignment`), deterministic under its seed, and is stored
whole in one transaction; the newest assignment is the workspace's queues,
and replacing one says what it replaced. Progress counts against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from judgepool.core.assignment import balanced_assignment
from judgepool.core.errors import InputError
from judgepool.display import literal, quoted
from judgepool.formats.id_list import read_id_list
from judgepool.services.closest import closest
from judgepool.services.entry_checks import annotator_names, storable_path
from judgepool.store import assignments as store
from judgepool.store import holdings
from judgepool.store.assignments import StoredAssignment
from judgepool.store.open_files import refuse_workspace_file
from judgepool.store.workspace import Workspace

Unit = Literal["item", "query"]
UNITS: Final = ("item", "query")


@dataclass(frozen=True)
class AssignResult:
    """What ``assign`` stored, and the assignment it replaced (None: the first)."""

    assignment: StoredAssignment
    loads: dict[str, int]
    units: int
    left_out: int
    replaced: StoredAssignment | None


def describe_assignment(stored: StoredAssignment) -> str:
    """One line for people: number, date, annotators and parameters."""
    names = ", ".join(quoted(name) for name in stored.annotators)
    cap = "" if stored.per_annotator is None else f", at most {stored.per_annotator} each"
    return (
        f"assignment #{stored.id} of {stored.created_at}: {stored.items:,} items to {names} "
        f"(overlap {stored.overlap}, by {stored.unit}{cap}, seed {stored.seed})"
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


def assign(
    ws: Workspace,
    *,
    annotators: Sequence[str],
    overlap: int,
    by: Unit = "item",
    queries_file: str | Path | None = None,
    per_annotator: int | None = None,
    seed: int = 0,
) -> AssignResult:
    """Assign the pooled items (of the queries listed in ``queries_file``, if
    given) so that each unit, an item or a whole query (``by``), gets
    ``overlap`` of ``annotators``, with balanced loads, and store it as the
    workspace's current assignment."""
    if by not in UNITS:
        raise InputError(f"assign by 'item' or 'query', not {quoted(by)}")
    annotators = annotator_names(ws, annotators)
    if per_annotator is not None and per_annotator < 1:
        raise InputError(f"--per-annotator must be 1 or more, got {per_annotator}")
    items = store.pooled_items(ws)
    if not items:
        raise InputError(
            "the workspace has no pooled documents to assign; pool runs first "
            "(judgepool pool WS --depth D)",
            str(ws.path),
        )
    if queries_file is not None:
        wanted = _chosen_queries(ws, queries_file, {query_id for query_id, _ in items})
        items = [item for item in items if item[0] in wanted]
    by_query: dict[str, list[tuple[str, str]]] = {}
    for item in items:
        by_query.setdefault(item[0], []).append(item)
    units: list[Any] = list(by_query) if by == "query" else items
    done = balanced_assignment(
        units, list(annotators), overlap, seed=seed, per_annotator=per_annotator
    )
    rows: list[tuple[str, str, str]] = []
    for unit, names in done.units:
        members = by_query[unit] if by == "query" else [unit]
        rows.extend((name, query_id, doc_id) for name in names for query_id, doc_id in members)
    replaced = store.current_assignment(ws)
    with ws.write() as conn:
        store.save_assignment(
            conn,
            unit=by,
            overlap=overlap,
            seed=seed,
            annotators=annotators,
            per_annotator=per_annotator,
            queries_file=None if queries_file is None else storable_path(queries_file),
            rows=rows,
        )
    stored = store.current_assignment(ws)
    assert stored is not None  # just written
    loads = {name: 0 for name in annotators} | done.loads()
    return AssignResult(stored, loads, len(done.units), len(done.left_out), replaced)


def current_assignment(ws: Workspace) -> StoredAssignment | None:
    """The workspace's current assignment, None when it has none."""
    return store.current_assignment(ws)


@dataclass(frozen=True)
class Progress:
    """One annotator's progress. ``seconds`` is the time their grading events
    record (the app records how long each document was shown before it was
    graded or marked unsure; the command line records none); ``per_hour`` the
    grades among those timed events per hour of it (None: nothing timed)."""

    annotator: str
    assigned: int
    graded: int
    unsure: int
    remaining: int
    seconds: float
    per_hour: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "annotator": self.annotator,
            "assigned": self.assigned,
            "graded": self.graded,
            "unsure": self.unsure,
            "remaining": self.remaining,
            "seconds": round(self.seconds, 3),
            "per_hour": None if self.per_hour is None else round(self.per_hour, 1),
        }


def grades_per_hour(timed_grades: int, seconds: float) -> float | None:
    """The rate of ``progress`` and of the app's grade screen: grades per hour of
    the time the app recorded for them (None: no time recorded)."""
    return timed_grades * 3600.0 / seconds if seconds > 0 else None


def progress(ws: Workspace) -> list[Progress]:
    """Every annotator's progress against the current assignment, by name.
    ``remaining``: assigned items they hold no grade of (unsure ones included)."""
    return [
        Progress(
            row.annotator,
            row.assigned,
            row.graded,
            row.unsure,
            row.remaining,
            row.seconds,
            grades_per_hour(row.timed_grades, row.seconds),
        )
        for row in store.progress(ws)
    ]
