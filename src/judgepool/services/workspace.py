"""The workspace's use cases, called alike by the command line and the app:
create and open a workspace, import queries, documents, qrels and runs, grade
(and undo), build pools, export qrels, and hand judgments and runs to scoring
and store its results.

Each change is one transaction: an import reads and checks the whole file
first and writes nothing unless every line is good; a grade returns only once
it is committed.
"""

from __future__ import annotations

import getpass
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgepool.core.aggregate import group_by_query
from judgepool.core.contract import Contract, Scale
from judgepool.core.errors import InputError
from judgepool.core.ranking import order_entries
from judgepool.core.types import Evaluation, RunEntry
from judgepool.display import quoted
from judgepool.formats.tables import TableKind, read_table
from judgepool.formats.trec import read_run
from judgepool.services.entry_checks import (
    check_annotator_name,
    check_id,
    check_known_annotator,
    check_known_item,
    check_name,
    check_text,
    check_user_source,
    storable,
    storable_path,
)
from judgepool.services.qrels import QrelsExport, QrelsImport, export_qrels, import_qrels
from judgepool.store import ledger, pools
from judgepool.store import runs as run_store
from judgepool.store.corpus import CorpusCounts, upsert_rows
from judgepool.store.evaluations import (
    StoredEvaluation,
    get_stored,
    insert_evaluation,
    list_stored,
    per_query_records,
)
from judgepool.store.ledger import Annotator, Consensus, Disagreement, JudgmentEvent
from judgepool.store.open_files import refuse_workspace_file
from judgepool.store.rules import CONSENSUS_RULES
from judgepool.store.runs import StoredRun
from judgepool.store.workspace import (
    BUSY_TIMEOUT_MS,
    Workspace,
    WorkspaceBusy,
    WorkspaceChanged,
    WorkspaceReadOnly,
    create_workspace,
)
from judgepool.store.workspace import open_workspace as _open_workspace

if TYPE_CHECKING:
    from collections.abc import Iterable

    from judgepool.formats.fast_run import RunColumns

__all__ = [
    "CONSENSUS_RULES",
    "Annotator",
    "Consensus",
    "Disagreement",
    "JudgmentEvent",
    "QrelsExport",
    "QrelsImport",
    "StoredEvaluation",
    "StoredRun",
    "Workspace",
    "WorkspaceBusy",
    "WorkspaceChanged",
    "WorkspaceReadOnly",
    "check_annotator",
    "check_annotator_name",
    "default_annotator",
    "default_contract",
    "disagreements",
    "export_qrels",
    "find_run",
    "import_documents",
    "import_qrels",
    "import_queries",
    "import_run",
    "init_workspace",
    "judge",
    "list_annotators",
    "list_evaluations",
    "list_runs",
    "load_evaluation",
    "load_run_columns",
    "load_run_entries",
    "open_workspace",
    "pool",
    "resolve_workspace_path",
    "save_evaluation",
    "set_adjudicator",
    "undo",
    "workspace_consensus",
    "workspace_judgments",
]

# Called as work advances: (done, total) in lines.
ProgressCallback = Callable[[int, int], None]

WORKSPACES_DIR = Path("workspaces")
_BARE_NAME = re.compile(r"[^/\\.]+")


def resolve_workspace_path(text: str | Path) -> Path:
    """A bare name (no slash, no suffix) means ``workspaces/NAME.sqlite``; else a path."""
    if isinstance(text, str) and _BARE_NAME.fullmatch(text):
        return WORKSPACES_DIR / f"{text}.sqlite"
    return Path(text)


def init_workspace(
    path: str | Path, *, scale: Scale | str | None = None, labels: dict[int, str] | None = None
) -> Workspace:
    """Create a workspace (refusing an existing file) and return it open."""
    if isinstance(scale, str):
        scale = Scale.parse(scale)
    return create_workspace(resolve_workspace_path(path), scale, labels)


def open_workspace(path: str | Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Workspace:
    """Open a workspace by path or bare name, upgrading an older schema.

    A write waits up to ``busy_timeout_ms`` for another process's write to
    finish, then fails with `WorkspaceBusy` (nothing changed)."""
    return _open_workspace(resolve_workspace_path(path), busy_timeout_ms=busy_timeout_ms)


def default_annotator() -> str:
    """The login name, the annotator when none is given."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "annotator"


def _report(on_progress: ProgressCallback | None, done: int, total: int) -> None:
    if on_progress is not None:
        on_progress(done, total)


# -- queries and documents --------------------------------------------------------


@dataclass(frozen=True)
class CorpusImport:
    path: str
    kind: str
    rows: int
    counts: CorpusCounts


def _import_table(
    ws: Workspace, path: str | Path, kind: TableKind, on_progress: ProgressCallback | None
) -> CorpusImport:
    refuse_workspace_file(path)
    rows = read_table(path, kind)
    if not rows:
        raise InputError(f"has no {kind}", str(path))
    _report(on_progress, 0, len(rows))
    with ws.write() as conn:
        counts = upsert_rows(conn, kind, rows)
    _report(on_progress, len(rows), len(rows))
    return CorpusImport(str(path), kind, len(rows), counts)


def import_queries(
    ws: Workspace, path: str | Path, *, on_progress: ProgressCallback | None = None
) -> CorpusImport:
    """Import queries (TSV ``id<TAB>text[<TAB>narrative]`` or JSONL); an ID already
    present gets the file's text."""
    return _import_table(ws, path, "queries", on_progress)


def import_documents(
    ws: Workspace, path: str | Path, *, on_progress: ProgressCallback | None = None
) -> CorpusImport:
    """Import documents (TSV ``id<TAB>text[<TAB>title]`` or JSONL); an ID already
    present gets the file's text."""
    return _import_table(ws, path, "documents", on_progress)


# -- runs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunImport:
    name: str
    path: str
    digest: str
    lines: int
    already_present: bool = False


@dataclass
class _ParsedRun:
    query_ids: list[str]
    doc_ids: list[str]
    ranks: list[int]
    scores: list[float]
    lines: Sequence[int]
    digest: str
    # what encode_snapshot takes: the reader's own arrays when it has them
    snapshot_columns: tuple[Any, Any, Any, Any, Any]


def _parse_run(path: str | Path) -> _ParsedRun:
    refuse_workspace_file(path)
    try:
        from judgepool.formats.fast_run import read_run_columns
    except ImportError:  # the fast reader is optional; the reference reader always works
        run = read_run(path)
        entries = run.entries
        query_ids = [e.query_id for e in entries]
        doc_ids = [e.doc_id for e in entries]
        ranks = [e.rank for e in entries]
        scores = [e.score for e in entries]
        lines = [e.line for e in entries]
        return _ParsedRun(
            query_ids, doc_ids, ranks, scores, lines, run.digest,
            (query_ids, doc_ids, ranks, scores, lines),
        )  # fmt: skip
    columns = read_run_columns(path)
    count = len(columns.scores)
    numbers = columns.line_numbers()
    # tolist(): sqlite3 binds Python values only, not numpy scalars.
    return _ParsedRun(
        columns.query_ids.to_pylist(),
        columns.doc_ids.to_pylist(),
        columns.ranks.tolist(),
        columns.scores.tolist(),
        numbers.tolist() if columns.lines is not None else range(1, count + 1),
        columns.digest,
        (columns.query_ids, columns.doc_ids, columns.ranks, columns.scores, numbers),
    )


def default_run_name(path: str | Path) -> str:
    """The file name up to its first dot (``bm25.trec.gz`` -> ``bm25``)."""
    name = Path(path).name
    stem = name.split(".", 1)[0]
    return stem or name


def check_run_name(name: str) -> None:
    """Refuse a run name that is not a name (`judgepool.core.tokens`) or holds a
    comma (``--runs`` lists names separated by commas)."""
    check_name("run", name)
    if "," in name:
        raise InputError(f"run name {quoted(name)} cannot be used: it holds a comma")


def import_run(
    ws: Workspace,
    path: str | Path,
    *,
    name: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> RunImport:
    """Import a TREC run (plain or gzip) under ``name`` (default: from the file name).

    The whole file is read and checked first; its lines are then written in
    one transaction, so a bad line or an interrupted import leaves nothing.
    The same file imported again under the same name is a no-op; a different
    file under a taken name is refused.
    """
    run_name = name if name is not None else default_run_name(path)
    check_run_name(run_name)
    parsed = _parse_run(path)
    if not parsed.scores:
        raise InputError("has no run lines", str(path))
    existing = run_store.find_run(ws, run_name)
    if existing is not None:
        if existing.digest == parsed.digest:
            return RunImport(
                run_name, str(path), parsed.digest, existing.lines, already_present=True
            )
        raise InputError(
            f"the workspace already has a different run named {quoted(run_name)} "
            f"(imported from {quoted(existing.source)}); choose another with --name",
            str(path),
        )
    total = len(parsed.scores)
    # The column snapshot is encoded in a thread while the rows are written:
    # pyarrow and sqlite3 both release the GIL for their heavy parts.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshot") as pool:
        snapshot = pool.submit(run_store.encode_snapshot, *parsed.snapshot_columns)
        with ws.write() as conn:
            run_store.insert_run(
                conn,
                name=run_name,
                source=storable_path(path),
                digest=parsed.digest,
                query_ids=parsed.query_ids,
                doc_ids=parsed.doc_ids,
                ranks=parsed.ranks,
                scores=parsed.scores,
                lines=parsed.lines,
                snapshot=snapshot.result,
                on_progress=on_progress,
            )
    return RunImport(run_name, str(path), parsed.digest, total)


def list_runs(ws: Workspace) -> list[StoredRun]:
    """Every stored run, by name."""
    return run_store.list_runs(ws)


def find_run(ws: Workspace, name: str) -> StoredRun | None:
    """The stored run called ``name``, or None."""
    return run_store.find_run(ws, name)


def load_run_entries(ws: Workspace, name: str) -> tuple[list[RunEntry], StoredRun]:
    """A stored run's lines as `RunEntry` (file order) and its record (digest
    included), for the reference scorer and the audit."""
    run = run_store.get_run(ws, name)
    return run_store.run_entries(ws, name), run


def load_run_columns(ws: Workspace, name: str) -> RunColumns:
    """A stored run as the fast reader's `RunColumns` (file order, line numbers
    given), for `judgepool.core.fast.evaluate_columns`."""
    return run_store.run_columns(ws, name)


# -- judging ------------------------------------------------------------------------


def _check_grade(ws: Workspace, grade: int | None, unsure: bool) -> None:
    if unsure:
        if grade is not None:
            raise InputError("a judgment is either a grade or unsure, not both")
        return
    if grade is None:
        raise InputError("give a grade, or mark the document unsure")
    if grade not in ws.scale:
        raise InputError(f"grade {grade} is outside the workspace's scale {ws.scale}")


def judge(
    ws: Workspace,
    query_id: str,
    doc_id: str,
    grade: int | None,
    *,
    annotator: str,
    unsure: bool = False,
    note: str | None = None,
    source: str = "human",
    seconds: float | None = None,
    allow_new: bool = False,
) -> JudgmentEvent:
    """Record one grade (or ``unsure=True`` with ``grade=None``) as a new ledger
    event, in its own transaction; returns the event once it is committed.

    Query and document IDs must be TREC tokens, and held by the workspace
    (imported, in a run, a pool or a judgment: `judgepool.store.holdings`)
    unless ``allow_new``; the refusal names the closest known IDs. The
    annotator must be a name not reserved for provenance, and ``source``
    ``human`` or ``model:NAME``.
    """
    _check_grade(ws, grade, unsure)
    check_id("query", query_id)
    check_id("document", doc_id)
    check_annotator_name(annotator)
    check_user_source(source)
    if note is not None:
        check_text("note", note)
    if seconds is not None and not seconds >= 0:
        raise InputError(f"seconds spent must be a number ≥ 0, got {seconds!r}")
    if not allow_new:
        check_known_item(ws, query_id, doc_id)
    with ws.write() as conn:
        event_id = ledger.append_event(
            conn,
            query_id=query_id,
            doc_id=doc_id,
            grade=grade,
            unsure=unsure,
            annotator=annotator,
            source=source,
            note=note,
            seconds=seconds,
        )
    return ledger.get_event(ws, event_id)


def undo(ws: Workspace, event_id: int, *, annotator: str) -> JudgmentEvent:
    """Take back one of ``annotator``'s events by appending an event that restores
    the state before it (a previous grade, unsure, or no judgment at all).

    Only the annotator's latest event on that item can be undone: undoing an
    older one would silently discard what came after it.
    """
    with ws.write() as conn:
        target = ledger.get_event(ws, event_id)
        if target.annotator != annotator:
            raise InputError(
                f"event {event_id} is {quoted(target.annotator)}'s, not {quoted(annotator)}'s; "
                "only your own grades can be undone"
            )
        latest = conn.execute(
            "SELECT MAX(id) FROM judgment_events "
            "WHERE query_id = ? AND doc_id = ? AND annotator = ?",
            (target.query_id, target.doc_id, annotator),
        ).fetchone()[0]
        if latest != event_id:
            raise InputError(
                f"query {quoted(target.query_id)} doc {quoted(target.doc_id)} was judged again "
                f"after event "
                f"{event_id} (event {latest}); undo that one first"
            )
        grade: int | None = None
        unsure = False
        if target.previous_event is not None:
            before = ledger.get_event(ws, target.previous_event)
            grade, unsure = before.grade, before.unsure
        new_id = ledger.append_event(
            conn,
            query_id=target.query_id,
            doc_id=target.doc_id,
            grade=grade,
            unsure=unsure,
            annotator=annotator,
            source="human",
            undoes=event_id,
        )
    return ledger.get_event(ws, new_id)


def set_adjudicator(ws: Workspace, name: str, adjudicator: bool = True) -> None:
    """Record (or revoke) ``name`` as an adjudicator, whose grade settles
    disagreements under the ``adjudicated`` rule. ``name`` must be an annotator
    the workspace knows (the refusal names the closest ones)."""
    check_annotator(ws, name)
    ledger.set_adjudicator(ws, name, adjudicator)


def check_annotator(ws: Workspace, name: str) -> None:
    """Refuse ``name`` unless it is an annotator the workspace knows, naming the
    closest known ones."""
    check_name("annotator", name)
    check_known_annotator(ws, name)


def list_annotators(ws: Workspace) -> list[Annotator]:
    """Every annotator with their role, event count and currently graded items."""
    return ledger.list_annotators(ws)


def disagreements(ws: Workspace) -> list[Disagreement]:
    """Every item whose annotators currently hold different grades, with how each
    consensus rule resolves it."""
    return ledger.list_disagreements(ws)


# -- judgments for scoring, and export ----------------------------------------------


def workspace_consensus(ws: Workspace, rule: str | None = None) -> Consensus:
    """The judged universe under ``rule`` (the workspace's default when None):
    judgments, digest, disagreements and what the rule left unresolved."""
    return ledger.consensus(ws, rule if rule is not None else ws.default_consensus())


def workspace_judgments(
    ws: Workspace, rule: str | None = None
) -> tuple[dict[str, dict[str, int]], str]:
    """(query -> doc -> grade, qrels_digest) under the consensus ``rule``
    (``latest``, ``median`` or ``adjudicated``; None: the workspace's default,
    ``latest`` unless changed). The digest equals that of the exported qrels."""
    chosen = workspace_consensus(ws, rule)
    return chosen.judgments, chosen.digest


# -- pools --------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolResult:
    name: str
    depth: int
    runs: tuple[str, ...]
    added: int
    members: int
    queries: int


def pool_contributions(
    entries: Iterable[RunEntry], run: str, depth: int
) -> list[tuple[str, str, str, int]]:
    """(query, doc, run, rank) for the first ``depth`` distinct documents of each
    query under trec_eval's order (score, then doc ID, descending); rank is the
    document's 1-based position among the distinct documents."""
    found: list[tuple[str, str, str, int]] = []
    for query_id, lines in group_by_query(entries).items():
        seen: set[str] = set()
        for entry in order_entries(lines, "trec_eval"):
            if entry.doc_id in seen:
                continue
            seen.add(entry.doc_id)
            found.append((query_id, entry.doc_id, run, len(seen)))
            if len(seen) == depth:
                break
    return found


def pool(
    ws: Workspace,
    *,
    depth: int,
    runs: Sequence[str] | None = None,
    name: str = "default",
) -> PoolResult:
    """Add the top ``depth`` documents per query of each run (every stored run when
    ``runs`` is None) to the pool ``name`` (a name: `judgepool.core.tokens`),
    recording which run and rank brought each one in. A pool only grows:
    existing members are kept."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
        raise InputError(f"depth must be a positive integer, got {depth!r}")
    check_name("pool", name)
    for wanted in runs or ():
        if not storable(wanted):  # not a name SQLite could hold, so not a run's
            raise InputError(f"no run named {quoted(wanted)} in the workspace", str(ws.path))
    chosen = run_store.run_names(ws, runs)
    if not chosen:
        raise InputError("the workspace has no runs to pool; import one first", str(ws.path))
    contributions: list[tuple[str, str, str, int]] = []
    for run in chosen:
        contributions.extend(
            pool_contributions(run_store.run_entries(ws, run.name), run.name, depth)
        )
    with ws.write() as conn:
        added = pools.add_to_pool(conn, name, contributions, depth)
    members, queries = pools.pool_size(ws, name)
    return PoolResult(name, depth, tuple(r.name for r in chosen), added, members, queries)


# -- stored evaluations -------------------------------------------------------------


def save_evaluation(
    ws: Workspace,
    evaluation: Evaluation,
    *,
    qrels_digest: str,
    run_digest: str,
    consensus: str,
    run_name: str | None = None,
    source: str | None = None,
    implementation: str = "reference",
) -> StoredEvaluation:
    """Store an evaluation with its contract, consensus rule, digests and
    fingerprint (computed here from the three), summary and per-query records."""
    ledger.check_rule(consensus)
    with ws.write() as conn:
        evaluation_id = insert_evaluation(
            conn,
            evaluation,
            run_name=run_name,
            source=source,
            consensus=consensus,
            qrels_digest=qrels_digest,
            run_digest=run_digest,
            implementation=implementation,
        )
    stored = get_stored(ws, evaluation_id)
    current = ledger.consensus(ws, consensus).digest == qrels_digest
    return replace(stored, current=current)


def list_evaluations(ws: Workspace) -> list[StoredEvaluation]:
    """Every stored evaluation, oldest first, each with ``current``: whether its
    ``qrels_digest`` is still the digest of the workspace's judgments under
    its consensus rule (False: the judged universe has changed since)."""
    stored = list_stored(ws)
    digests = {rule: ledger.consensus(ws, rule).digest for rule in {s.consensus for s in stored}}
    return [replace(s, current=digests[s.consensus] == s.qrels_digest) for s in stored]


def load_evaluation(
    ws: Workspace, evaluation_id: int
) -> tuple[StoredEvaluation, list[dict[str, Any]]]:
    """One stored evaluation and its per-query records."""
    stored = get_stored(ws, evaluation_id)
    current = ledger.consensus(ws, stored.consensus).digest == stored.qrels_digest
    return replace(stored, current=current), per_query_records(ws, evaluation_id)


def default_contract(ws: Workspace) -> Contract:
    """The workspace's default contract (its scale, the contract's defaults unless changed)."""
    return ws.default_contract()
