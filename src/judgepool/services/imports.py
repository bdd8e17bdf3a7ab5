"""Importing queries, documents and runs into a workspace (qrels:
`judgepool.services.qrels`).

Each import is one transaction: the whole file is read and checked first,
and nothing is written unless every line is good.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgepool.core.progress import LinesCallback
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.formats.tables import TableKind, read_table
from judgepool.services.entry_checks import check_name, storable_path
from judgepool.store import runs as run_store
from judgepool.store.corpus import CorpusCounts, upsert_rows
from judgepool.store.open_files import refuse_workspace_file
from judgepool.store.workspace import Workspace


def _report(on_progress: LinesCallback | None, done: int, total: int) -> None:
    if on_progress is not None:
        on_progress(done, total)


# -- queries and documents --------------------------------------------------------


@dataclass(frozen=True)
class CorpusImport:
    """What importing a file of queries or documents did."""

    path: str
    kind: str
    rows: int
    counts: CorpusCounts


def _import_table(
    ws: Workspace, path: str | Path, kind: TableKind, on_progress: LinesCallback | None
) -> CorpusImport:
    refuse_workspace_file(path)
    rows = read_table(path, kind)
    if not rows:
        raise InputError(f"has no {kind}", str(path))
    _report(on_progress, 0, len(rows))
    with ws.write():
        counts = upsert_rows(ws.db, kind, rows)
    _report(on_progress, len(rows), len(rows))
    return CorpusImport(str(path), kind, len(rows), counts)


def import_queries(
    ws: Workspace, path: str | Path, *, on_progress: LinesCallback | None = None
) -> CorpusImport:
    """Import queries (TSV ``id<TAB>text[<TAB>narrative]`` or JSONL); an ID already
    present gets the file's text."""
    return _import_table(ws, path, "queries", on_progress)


def import_documents(
    ws: Workspace, path: str | Path, *, on_progress: LinesCallback | None = None
) -> CorpusImport:
    """Import documents (TSV ``id<TAB>text[<TAB>title]`` or JSONL); an ID already
    present gets the file's text."""
    return _import_table(ws, path, "documents", on_progress)


# -- runs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunImport:
    """What importing a run did (``already_present``: the same file was there)."""

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
    # what encode_snapshot takes: the reader's own arrays
    snapshot_columns: tuple[Any, Any, Any, Any, Any]


def _parse_run(path: str | Path) -> _ParsedRun:
    # Imported here: pyarrow is loaded by the commands that read runs, not by
    # every one that imports this module (the app's start, through the demo).
    from judgepool.formats.fast_run import read_run_columns

    refuse_workspace_file(path)
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
    """Refuse a run name that is not a name (`judgepool.core.terms.tokens`) or holds a
    comma (``--runs`` lists names separated by commas)."""
    check_name("run", name)
    if "," in name:
        raise InputError(f"run name {quoted(name)} cannot be used: it holds a comma")


def _already_imported(
    existing: run_store.StoredRun, run_name: str, path: str | Path, digest: str
) -> RunImport:
    """The no-op of importing the same file under its name again; a different
    file under a taken name is refused."""
    if existing.digest == digest:
        return RunImport(run_name, str(path), digest, existing.lines, already_present=True)
    raise InputError(
        f"the workspace already has a different run named {quoted(run_name)} "
        f"(imported from {quoted(existing.source)}); choose another with --name",
        str(path),
    )


def import_run(
    ws: Workspace,
    path: str | Path,
    *,
    name: str | None = None,
    on_progress: LinesCallback | None = None,
) -> RunImport:
    """Import a TREC run (plain or gzip) under ``name`` (default: from the file name).

    The whole file is read and checked first; its lines are then written in
    one transaction, so a bad line or an interrupted import leaves nothing.
    A file of 64 MB or more is read (twice: checked, then written) a chunk at
    a time, in bounded memory (`services.streamed_import`).
    The same file imported again under the same name is a no-op; a different
    file under a taken name is refused.
    """
    run_name = name if name is not None else default_run_name(path)
    check_run_name(run_name)
    # before anything opens the file: a plain open and close of a workspace's
    # file would drop the SQLite locks this process holds on it
    refuse_workspace_file(path)
    if _streams(path):
        return _import_run_in_chunks(ws, path, run_name, on_progress)
    parsed = _parse_run(path)
    if not parsed.scores:
        raise InputError("has no run lines", str(path))
    existing = run_store.find_run(ws, run_name)
    if existing is not None:
        return _already_imported(existing, run_name, path, parsed.digest)
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


def _streams(path: str | Path) -> bool:
    """Whether the run file is large enough to be imported in chunks."""
    from judgepool.services.runs.streaming import streams
    from judgepool.services.streamed_import import IMPORT_STREAM_FROM_BYTES

    return streams(path, IMPORT_STREAM_FROM_BYTES)


def _import_run_in_chunks(
    ws: Workspace, path: str | Path, run_name: str, on_progress: LinesCallback | None
) -> RunImport:
    """`import_run` in bounded memory (`services.streamed_import`): the same
    checks in the same order, the same rows and snapshot."""
    from judgepool.services.streamed_import import check_run_file, import_run_in_chunks

    digest, total = check_run_file(path)
    if not total:
        raise InputError("has no run lines", str(path))
    existing = run_store.find_run(ws, run_name)
    if existing is not None:
        return _already_imported(existing, run_name, path, digest)
    import_run_in_chunks(
        ws, path, name=run_name, source=storable_path(path), digest=digest, total=total,
        on_progress=on_progress,
    )  # fmt: skip
    return RunImport(run_name, str(path), digest, total)
