"""The workspace files this process has open through SQLite, and the one way
anything else in the process may read them.

POSIX record locks, the locks SQLite takes on a database file and on its
``-shm``, belong to a process and an inode, not to a descriptor: closing *any*
descriptor of the file drops every lock the process holds on it, SQLite's
included. SQLite guards its own descriptors (it delays closing one while the
process holds a lock on the file), but a plain ``open()``/``close()`` anywhere
else in the process silently unlocks every connection. The next process that
closes the workspace then believes it is the last one using it, checkpoints
and deletes the write-ahead log, and this process's later commits go to a log
nobody else reads: grades that were acknowledged are lost.

So, while a connection of this process has a workspace file open:

- its header is not read again with a plain descriptor (`read_header` returns
  None: the file was checked when it was first opened, and it is the same
  inode);
- no input of a command may be that file or its ``-wal``, ``-shm`` or
  ``-journal`` (`refuse_workspace_file`).

Files are known by (st_dev, st_ino), so another path or a symlink to the same
file is the same file. `opening()` holds one process-wide lock over reading
the header, connecting and registering, and `release` takes it too, so no
thread reads a header between another thread's check and its connection.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from judgepool.core.terms.errors import InputError

FileKey = tuple[int, int]  # (st_dev, st_ino)

# The files SQLite keeps beside a database: `refuse_workspace_file` maps them
# back to their database.
SIDECAR_SUFFIXES: Final = ("-wal", "-shm", "-journal")

_lock = threading.RLock()
# How many connections of this process have each file open.
_connections: dict[FileKey, int] = {}
# Descriptors that could not be closed when they were done with, because a
# connection had (in a race with a rename) the same file open: closed with
# its last connection instead.
_parked: dict[FileKey, list[int]] = {}


def file_key(status: os.stat_result) -> FileKey:
    return (status.st_dev, status.st_ino)


@contextlib.contextmanager
def opening() -> Iterator[None]:
    """Hold the registry while a workspace file is checked, connected and registered."""
    with _lock:
        yield


def is_open(key: FileKey) -> bool:
    """Whether a connection of this process has the file open."""
    with _lock:
        return _connections.get(key, 0) > 0


def read_header(path: Path, size: int) -> tuple[FileKey, bytes | None]:
    """The file's key and its first ``size`` bytes, read with a plain descriptor;
    None instead of the bytes when a connection of this process has the file
    open (reading it then would mean closing a descriptor of it).

    Raises OSError as `os.stat` and `os.open` do. Call inside `opening()`.
    """
    with _lock:
        key = file_key(os.stat(path))
        if is_open(key):
            return key, None
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            header = os.pread(descriptor, size, 0)
            key = file_key(os.fstat(descriptor))
        finally:
            _close_or_park(descriptor)
        return key, header


def _close_or_park(descriptor: int) -> None:
    # The path was checked a moment before it was opened: if it was renamed
    # in between to a file a connection holds, closing this descriptor would
    # unlock that connection. Keep it open until the last connection closes.
    key = file_key(os.fstat(descriptor))
    if is_open(key):
        _parked.setdefault(key, []).append(descriptor)
    else:
        os.close(descriptor)


def register(key: FileKey) -> None:
    """Count one more connection of this process on the file."""
    with _lock:
        _connections[key] = _connections.get(key, 0) + 1


def release(key: FileKey) -> None:
    """Count one connection less (call once its connection is closed); with the
    last one, close any descriptor parked on the file."""
    with _lock:
        left = _connections.get(key, 0) - 1
        if left > 0:
            _connections[key] = left
            return
        _connections.pop(key, None)
        for descriptor in _parked.pop(key, []):
            os.close(descriptor)


def open_workspace_file(path: str | Path) -> Path | None:
    """The database file behind ``path`` when ``path`` is a workspace file this
    process has open, or its ``-wal``, ``-shm`` or ``-journal``; else None."""
    candidate = Path(path)
    bases = [candidate]
    for suffix in SIDECAR_SUFFIXES:
        if candidate.name.endswith(suffix) and len(candidate.name) > len(suffix):
            bases.append(candidate.with_name(candidate.name[: -len(suffix)]))
    for base in bases:
        try:
            key = file_key(os.stat(base))
        except (OSError, ValueError):
            continue
        if is_open(key):
            return base
    return None


def refuse_workspace_file(path: str | Path) -> None:
    """Refuse, before it is opened, an input file that is an open workspace's own
    file: reading it would drop the workspace's locks (see the module's notes)."""
    database = open_workspace_file(path)
    if database is not None:
        what = "the workspace" if Path(path) == database else f"a file SQLite keeps for {database}"
        raise InputError(f"is {what}, not a file to read; choose another file", str(path))
