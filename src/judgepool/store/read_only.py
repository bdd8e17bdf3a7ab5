"""Workspaces this process may read but not write, and how SQLite is made to read them.

What SQLite does with a WAL database it cannot write (measured with SQLite
3.40, as an ordinary user, which root is not: see tests/store/test_ws_read_only.py):

- A read-only file in a writable folder opens as usual: SQLite falls back to
  a read-only connection by itself (creating ``-wal`` and ``-shm`` beside it
  if they are missing); writes fail with SQLITE_READONLY.
- In a read-only folder SQLite cannot create the ``-shm`` (shared memory)
  and ``-wal`` files it reads through: the first read fails with
  SQLITE_READONLY_DIRECTORY (no ``-shm``) or SQLITE_CANTOPEN (no ``-wal``),
  with ``mode=ro`` too. When both exist (someone has the workspace open),
  it reads them as usual.
- The one way left is ``immutable=1``: SQLite reads the main file alone, with
  no locks and without looking at any ``-wal``. That is exact only when no
  log holds commits the main file lacks, and when nobody writes meanwhile.
  So it is used only when there is no ``-wal`` (or an empty one), and the
  file is checked again when it is closed (`FileSnapshot`): if it changed,
  the command says its output may be inconsistent. Nobody can create the
  ``-wal`` a writer needs in a folder nobody may write to; only a writer
  with more rights than this process could, and that is what the check is for.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from judgepool.core.terms.errors import JudgepoolError

# SQLite's result codes (sqlite3.h): the primary code is the low byte.
SQLITE_READONLY: Final = 8
SQLITE_CANTOPEN: Final = 14
SQLITE_READONLY_DIRECTORY: Final = SQLITE_READONLY | (6 << 8)
SQLITE_READONLY_CANTINIT: Final = SQLITE_READONLY | (5 << 8)


class WorkspaceReadOnly(JudgepoolError):
    """A change was asked of a workspace this process cannot write; nothing changed."""

    def __init__(self, path: str | Path, doing: str = "") -> None:
        self.path = str(path)
        self.reason = why_read_only(Path(path))
        what = f"; {doing}" if doing else ""
        super().__init__(
            f"{self.path}: the workspace is read-only ({self.reason}){what}; nothing was "
            "changed. To change it, make it writable, or copy it (with its -wal file, if "
            "any) to a folder you can write to"
        )


class WorkspaceChanged(JudgepoolError):
    """A workspace read without locks (a read-only folder) changed while it was read."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        super().__init__(
            f"{self.path}: the workspace changed while it was being read (someone who can "
            "write its read-only folder wrote to it), so what was shown may be "
            "inconsistent; run the command again"
        )


def read_only_error(exc: BaseException) -> bool:
    """Whether SQLite refused a write because the database cannot be written."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.Error) and code is not None and code & 0xFF == SQLITE_READONLY


def cannot_share_error(exc: BaseException) -> bool:
    """Whether SQLite could not open or create the ``-wal``/``-shm`` it reads through."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite3.OperationalError) or code is None:
        return False
    return code in (SQLITE_READONLY_DIRECTORY, SQLITE_READONLY_CANTINIT) or (
        code & 0xFF == SQLITE_CANTOPEN
    )


def _writable(path: Path) -> bool:
    # effective_ids: the kernel's own check for this process (a root without
    # CAP_DAC_OVERRIDE is refused like anyone else; a read-only mount refuses all).
    try:
        return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)
    except OSError:
        return False


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def folder_writable(path: Path) -> bool:
    """Whether this process may create files beside ``path`` (its -wal and -shm)."""
    folder = path.absolute().parent
    return _writable(folder) and not _read_only_mount(folder)


def why_read_only(path: Path) -> str:
    """Why this process cannot write the workspace at ``path``, as a user reads it."""
    if _read_only_mount(path.absolute().parent):
        return "it is on a read-only file system"
    if not path.exists():
        return "the file was moved or deleted while it was open"
    if not _writable(path):
        return "you may not write the file"
    if not folder_writable(path):
        return "you may not write its folder, where SQLite keeps its -wal and -shm files"
    return "SQLite opened it read-only"


def write_ahead_log(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def has_unread_log(path: Path) -> bool:
    """Whether a non-empty ``-wal`` lies beside ``path``: commits an immutable
    read would miss."""
    try:
        return write_ahead_log(path).stat().st_size > 0
    except FileNotFoundError:
        return False


def immutable_uri(path: Path) -> str:
    """The URI that opens ``path`` read-only and immutable (no locks, no -wal/-shm)."""
    return f"{path.absolute().as_uri()}?mode=ro&immutable=1"


@dataclass(frozen=True)
class FileSnapshot:
    """What a write to a database file changes: its inode, size and time, and
    whether a log beside it holds anything."""

    inode: int
    size: int
    modified_ns: int
    log: bool

    @classmethod
    def of(cls, path: Path) -> FileSnapshot:
        status = path.stat()
        return cls(status.st_ino, status.st_size, status.st_mtime_ns, has_unread_log(path))

    def changed(self, path: Path) -> bool:
        try:
            return FileSnapshot.of(path) != self
        except OSError:
            return True
