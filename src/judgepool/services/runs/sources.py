"""Where a run comes from: a file (`FileSource`) or a run stored in a
workspace (`StoredSource`); `RunSource` is either.

The source is chosen once, where the run is named (`file_source`,
`stored_source`); what reads it afterwards (`judgepool.services.runs.passes`)
never asks which it is: it calls the reading it needs, which each source does
its own way. The one thing only a file can be, read in chunks, is asked of a
`FileSource` by its ``path``.

A source is a plain value, so it goes to a worker process as it is
(`judgepool.services.runs.parallel_runs`): a file as its path; a stored run
as its workspace's path and its name, read there through a connection of
that process's own (a connection never crosses a process boundary).

The readers are imported in the methods that read: a file's (pyarrow) when a
file is read, the store's (SQLite) when a stored run is, so that naming a file
loads neither, and scoring plain files never loads SQLite.
"""

from __future__ import annotations

import functools
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
class FileSource:
    """A run file (plain or gzip), named by its path as given. Its readings:

    - ``columns``: its lines as columns (the fast engine), the first bad line
      raised as an `InputError`;
    - ``collected``: the same, reading past bad lines to list them with the
      line count (an audit's reading);
    - ``entries``: its lines as `RunEntry` with its digest and line count (the
      reference engine), bad lines listed when called with True, else the
      first raised.

    The fast engine may read it in chunks instead, from ``path``
    (`judgepool.services.runs.streaming`)."""

    path: str

    @property
    def name(self) -> str:
        return self.path

    def columns(self) -> RunColumns:
        from judgepool.formats.fast_run import read_run_columns

        return read_run_columns(self.path)

    def collected(self) -> CollectedRun:
        from judgepool.formats.fast_run.collecting import read_run_columns_collecting

        return read_run_columns_collecting(self.path)

    def entries(self, collect_errors: bool) -> RunFile:
        return read_run(self.path, collect_errors=collect_errors)


@dataclass(frozen=True)
class StoredSource:
    """A run stored in ``workspace`` (open in this process) by ``name``, kept
    as imported: the same numbers as its file, and no bad line (an import
    refuses them). Its readings are those of `FileSource`.

    Pickled, it goes as the workspace's path and the run's name; the process
    that unpickles it reads through a connection of its own, opened once
    (`_stored_here`)."""

    workspace: Workspace
    name: str

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return _stored_here, (str(self.workspace.path), self.name)

    def columns(self) -> RunColumns:
        # Imported here: scoring plain files must not pay for loading SQLite.
        from judgepool.store import runs as run_store

        return run_store.run_columns(self.workspace, self.name)

    def collected(self) -> CollectedRun:
        from judgepool.formats.fast_run.collecting import CollectedRun
        from judgepool.store import runs as run_store

        lines = run_store.get_run(self.workspace, self.name).lines
        return CollectedRun(run_store.run_columns(self.workspace, self.name), (), lines)

    def entries(self, collect_errors: bool) -> RunFile:
        from judgepool.store import runs as run_store

        stored = run_store.get_run(self.workspace, self.name)
        entries = run_store.run_entries(self.workspace, self.name)
        return RunFile(self.name, entries, stored.digest, [], stored.lines)


RunSource = FileSource | StoredSource


def file_source(path: str | Path) -> FileSource:
    """A run file (plain or gzip). Refused here when it is a workspace's own file."""
    refuse_workspace_file(path)
    return FileSource(str(path))


def stored_source(ws: Workspace, name: str) -> StoredSource:
    """A run stored in the open workspace ``ws``."""
    return StoredSource(ws, name)


def _stored_here(workspace: str, name: str) -> StoredSource:
    """A `StoredSource` unpickled in another process: read through that
    process's own connection to the workspace."""
    return StoredSource(_workspace_here(workspace), name)


@functools.cache
def _workspace_here(path: str) -> Workspace:
    """This process's connection to the workspace at ``path``, opened with
    the first stored run it is handed and kept for the next (a worker reads
    one run after another; SQLite's WAL lets the readers share the file)."""
    from judgepool.services.workspace import open_workspace

    return open_workspace(path)


def run_names(ws: Workspace) -> list[str]:
    """The names of the workspace's runs, in name order."""
    from judgepool.store import runs as run_store

    return [run.name for run in run_store.list_runs(ws)]


def has_run(ws: Workspace, name: str) -> bool:
    """Whether the workspace holds a run called ``name``."""
    from judgepool.store import runs as run_store

    return run_store.find_run(ws, name) is not None
