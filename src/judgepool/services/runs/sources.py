"""Where a run comes from: a file, or a run stored in a workspace (`RunSource`).

The source is chosen once, where the run is named (`file_source`,
`stored_source`); what reads it afterwards (`judgepool.services.runs.passes`)
never asks which it is: it calls the reading it needs. A file's ``path`` is
given too, for the one thing only a file can be: read in chunks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgepool.formats.trec import RunFile, read_run
from judgepool.store.open_files import refuse_workspace_file

if TYPE_CHECKING:
    from judgepool.formats.fast_run import RunColumns
    from judgepool.formats.fast_run.collecting import CollectedRun
    from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class RunSource:
    """A run's readings, each done only when called:

    - ``columns``: its lines as columns (the fast engine), the first bad line
      raised as an `InputError`;
    - ``collected``: the same, reading past bad lines to list them with the
      line count (an audit's reading; a stored run has no bad line);
    - ``entries``: its lines as `RunEntry` with its digest and line count (the
      reference engine), bad lines listed when called with True, else the
      first raised.

    ``path``: a run file's (None for a stored run), which the fast engine may
    read in chunks instead (`judgepool.services.runs.streaming`)."""

    name: str
    columns: Callable[[], RunColumns]
    collected: Callable[[], CollectedRun]
    entries: Callable[[bool], RunFile]
    path: str | None = None


def file_source(path: str | Path) -> RunSource:
    """A run file (plain or gzip). Refused here when it is a workspace's own file."""
    refuse_workspace_file(path)

    def columns() -> RunColumns:
        from judgepool.formats.fast_run import read_run_columns

        return read_run_columns(path)

    def collected() -> CollectedRun:
        from judgepool.formats.fast_run.collecting import read_run_columns_collecting

        return read_run_columns_collecting(path)

    def entries(collect_errors: bool) -> RunFile:
        return read_run(path, collect_errors=collect_errors)

    return RunSource(str(path), columns, collected, entries, str(path))


def stored_source(ws: Workspace, name: str) -> RunSource:
    """A run stored in a workspace, kept as imported: the same numbers as its file."""
    # Imported here: scoring plain files must not pay for loading SQLite.
    from judgepool.store import runs as run_store

    def columns() -> RunColumns:
        return run_store.run_columns(ws, name)

    def collected() -> CollectedRun:
        from judgepool.formats.fast_run.collecting import CollectedRun

        lines = run_store.get_run(ws, name).lines
        return CollectedRun(run_store.run_columns(ws, name), (), lines)

    def entries(collect_errors: bool) -> RunFile:
        stored = run_store.get_run(ws, name)
        return RunFile(name, run_store.run_entries(ws, name), stored.digest, [], stored.lines)

    return RunSource(name, columns, collected, entries)


def run_names(ws: Workspace) -> list[str]:
    """The names of the workspace's runs, in name order."""
    from judgepool.store import runs as run_store

    return [run.name for run in run_store.list_runs(ws)]


def has_run(ws: Workspace, name: str) -> bool:
    """Whether the workspace holds a run called ``name``."""
    from judgepool.store import runs as run_store

    return run_store.find_run(ws, name) is not None
