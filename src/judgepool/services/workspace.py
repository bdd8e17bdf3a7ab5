"""Creating and opening workspaces, the entry to every other use case.

A workspace is named by a path, or by a bare name that means
``workspaces/NAME.sqlite``. The types a caller names alongside these
functions (`Workspace`, SQLite's own failure `StorageError`, and the
refusals `WorkspaceBusy`, `WorkspaceChanged` and `WorkspaceReadOnly`) are
the store's, exposed here so that the command line and the app reach the
workspace only through the services.
"""

from __future__ import annotations

import getpass
import re
from pathlib import Path
from typing import Final

from judgepool.core.terms.contract import Scale
from judgepool.store.workspace import BUSY_TIMEOUT_MS, create_workspace
from judgepool.store.workspace import StorageError as StorageError
from judgepool.store.workspace import Workspace as Workspace
from judgepool.store.workspace import WorkspaceBusy as WorkspaceBusy
from judgepool.store.workspace import WorkspaceChanged as WorkspaceChanged
from judgepool.store.workspace import WorkspaceReadOnly as WorkspaceReadOnly
from judgepool.store.workspace import open_workspace as open_workspace_file

WORKSPACES_DIR: Final = Path("workspaces")
_BARE_NAME: Final = re.compile(r"[^/\\.]+")


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


def open_workspace(
    path: str | Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS, to_write: bool = False
) -> Workspace:
    """Open a workspace by path or bare name, upgrading an older schema.

    A write waits up to ``busy_timeout_ms`` for another process's write to
    finish, then fails with `WorkspaceBusy` (nothing changed). With
    ``to_write``, a workspace this process cannot write is refused at once
    (`WorkspaceReadOnly`), before a command reads a whole file only to find
    it cannot be stored."""
    ws = open_workspace_file(resolve_workspace_path(path), busy_timeout_ms=busy_timeout_ms)
    if to_write and ws.read_only:
        ws.close()
        raise WorkspaceReadOnly(ws.path)
    return ws


def default_annotator() -> str:
    """The login name, the annotator when none is given."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "annotator"
