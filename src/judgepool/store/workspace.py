"""Opening and creating a workspace file, its transactions and its settings.

`Workspace` wraps one SQLite connection (through sqlite-utils) in WAL mode
with a busy timeout, so several processes can grade the same file: readers
never wait, writers queue for up to `BUSY_TIMEOUT_MS`. Every change goes
through `Workspace.write()`, one ``BEGIN IMMEDIATE`` transaction: taking the
write lock up front means a transaction that reads and then writes cannot be
refused half-way because another process wrote in between.

A workspace this process cannot write (a read-only file, folder or file
system) opens for reading; `Workspace.read_only` says so and a write raises
`WorkspaceReadOnly` before anything changes (see `judgepool.store.read_only`
for how SQLite is made to read it). Every workspace file of the process is
counted in `judgepool.store.open_files`, so that nothing but SQLite opens it
while a connection is open: closing any other descriptor of the file would
drop the connection's locks, and grades would be lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from judgepool import __version__
from judgepool.core.team.consensus import CONSENSUS_RULES
from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.errors import ContractError, InputError, JudgepoolError
from judgepool.store import open_files
from judgepool.store.connection import BUSY_TIMEOUT_MS as BUSY_TIMEOUT_MS
from judgepool.store.connection import (
    busy_error,
    configure,
    connect,
    probe_read_only,
    readable_connection,
)
from judgepool.store.database import Database
from judgepool.store.read_only import FileSnapshot, folder_writable, read_only_error
from judgepool.store.read_only import WorkspaceChanged as WorkspaceChanged
from judgepool.store.read_only import WorkspaceReadOnly as WorkspaceReadOnly
from judgepool.store.schema import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    apply_migrations,
    check_header,
    stored_version,
)

# TREC Deep Learning's labels for its 0..3 scale.
TREC_DL_LABELS: Final[dict[int, str]] = {
    0: "Irrelevant",
    1: "Related",
    2: "Highly relevant",
    3: "Perfectly relevant",
}


# What SQLite raises when a read or write fails (a corrupt page, a full disk):
# named here so that the app can catch it without importing sqlite3 itself.
StorageError: Final = sqlite3.Error


class WorkspaceBusy(JudgepoolError):
    """Another process held the workspace's write lock for longer than the busy timeout."""

    def __init__(self, path: str, waited_ms: int) -> None:
        self.path = path
        super().__init__(
            f"{path}: the workspace is busy: another process has been writing to it for "
            f"over {waited_ms / 1000:g} s (a large import?); nothing was changed, try again"
        )


def now() -> str:
    """The current time as stored: ISO 8601, UTC, microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def default_labels(scale: Scale) -> dict[int, str]:
    """TREC DL's labels on a 0..3 scale; elsewhere each grade is its own label."""
    if (scale.minimum, scale.maximum) == (0, 3):
        return dict(TREC_DL_LABELS)
    return {grade: str(grade) for grade in scale.grades}


class Workspace:
    """An open workspace file. Use as a context manager, or call `close()`."""

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        *,
        file_key: open_files.FileKey | None = None,
        immutable: FileSnapshot | None = None,
    ) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.db = Database(conn)
        self._lock = threading.RLock()
        self._scale: Scale | None = None
        # The file as registered in open_files, released when closed.
        self._file_key = file_key
        # Set when SQLite reads the file without locks (a read-only folder):
        # the file as it was when opened, checked again on leaving a `with`.
        self._immutable = immutable
        self._read_only: bool | None = True if immutable is not None else None
        self._closed = False

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close()
        if kind is None and self._immutable is not None and self._immutable.changed(self.path):
            raise WorkspaceChanged(self.path)

    def __repr__(self) -> str:
        return f"<Workspace {self.path}>"

    def close(self) -> None:
        """Close the connection (again: nothing), then let the process open the file otherwise."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self.db.close()
            if self._file_key is not None:
                open_files.release(self._file_key)

    @property
    def read_only(self) -> bool:
        """Whether SQLite refuses to write this workspace (asked once, without writing)."""
        with self._lock:
            if self._read_only is None:
                self._read_only = probe_read_only(self.conn, self.busy_timeout_ms)
            return self._read_only

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back on
        any exception (KeyboardInterrupt included). `WorkspaceReadOnly` when the
        workspace cannot be written, `WorkspaceBusy` when another process held
        the write lock too long; nothing changed in either case."""
        with self._lock:
            if self.conn.in_transaction:
                raise RuntimeError("write transactions do not nest")
            if self.read_only:
                raise WorkspaceReadOnly(self.path)
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if busy_error(exc):
                    raise WorkspaceBusy(str(self.path), self.busy_timeout_ms) from None
                self._refuse_if_read_only(exc)
                raise
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                self._refuse_if_read_only(exc)
                raise

    def _refuse_if_read_only(self, exc: BaseException) -> None:
        # The file or its folder may have become read-only since it was opened.
        if read_only_error(exc):
            self._read_only = True
            raise WorkspaceReadOnly(self.path) from None

    # -- settings -------------------------------------------------------------

    def setting(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def put_setting(self, conn: sqlite3.Connection, key: str, value: Any) -> None:
        """Set a setting inside the caller's write transaction."""
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value, sort_keys=True)),
        )

    @property
    def scale(self) -> Scale:
        if self._scale is None:
            self._scale = Scale.parse(self.setting("scale", "0..3"))
        return self._scale

    def labels(self) -> dict[int, str]:
        """Each grade of the scale with its label."""
        stored: Mapping[str, str] = self.setting("grade_labels", {})
        fallback = default_labels(self.scale)
        return {grade: stored.get(str(grade), fallback[grade]) for grade in self.scale.grades}

    def default_contract(self) -> Contract:
        """The contract saved as the default; `ContractError` naming the workspace
        when it cannot be used (an entity pattern saved before patterns ran in
        RE2, which RE2 refuses)."""
        data = self.setting("default_contract")
        if data is None:
            return Contract(scale=self.scale)
        try:
            return Contract.from_dict(data)
        except ContractError as exc:
            raise ContractError(
                f"the workspace's default contract cannot be used: {exc}. "
                "Open the app on it (it starts under the plain contract), change the "
                "contract there with c and save it with ctrl+o"
            ) from None

    def set_default_contract(self, contract: Contract) -> None:
        if contract.scale != self.scale:
            raise ContractError(
                f"the contract's scale {contract.scale} is not the workspace's scale {self.scale}"
            )
        with self.write() as conn:
            self.put_setting(conn, "default_contract", contract.to_dict())

    def default_consensus(self) -> str:
        rule = self.setting("default_consensus", "latest")
        return rule if rule in CONSENSUS_RULES else "latest"

    def schema_version(self) -> int:
        return stored_version(self.conn, str(self.path))


def create_workspace(
    path: str | Path, scale: Scale | None = None, labels: Mapping[int, str] | None = None
) -> Workspace:
    """Create a new workspace file and open it. An existing file is refused, untouched.

    The file is built under a temporary name and linked into place only when
    complete, so an interrupted init leaves no half-made workspace behind.
    """
    target = Path(path)
    scale = scale or Scale()
    chosen = default_labels(scale)
    if labels:
        outside = sorted(grade for grade in labels if grade not in scale)
        if outside:
            raise ContractError(f"labels name grade(s) {outside} outside the scale {scale}")
        chosen.update(labels)
    if target.exists():
        raise InputError("already exists; choose another path or open it", str(target))
    temporary = target.with_name(f".{target.name}.{os.getpid()}.init")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.unlink(missing_ok=True)
        conn = connect(temporary)  # creates the (empty) file
    except (OSError, sqlite3.Error) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        if target.parent.is_dir() and not folder_writable(target):
            reason = "you may not write its folder"
        raise InputError(f"cannot create a workspace here: {reason}", str(target)) from None
    try:
        try:
            # Built in rollback-journal mode so the header (with the
            # application ID) is in the main file before WAL is switched on.
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute("BEGIN IMMEDIATE")
            apply_migrations(conn, 0)
            created = now()
            for key, value in (("created_at", created), ("created_by", f"judgepool {__version__}")):
                conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
            settings: dict[str, Any] = {
                "scale": str(scale),
                "grade_labels": {str(grade): label for grade, label in chosen.items()},
                "default_contract": Contract(scale=scale).to_dict(),
                "default_consensus": "latest",
            }
            for key, value in settings.items():
                conn.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?)",
                    (key, json.dumps(value, sort_keys=True)),
                )
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise InputError(
                "already exists; choose another path or open it", str(target)
            ) from None
    finally:
        temporary.unlink(missing_ok=True)
    return open_workspace(target)


def open_workspace(path: str | Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Workspace:
    """Open an existing workspace, upgrading an older schema in one transaction.

    A file that is not a workspace (a text file, another SQLite database) is
    refused with an InputError and left byte for byte as it was. A workspace
    this process may not write opens for reading (`Workspace.read_only`).
    """
    target = Path(path)
    # Checked, connected (SQLite opens the file now) and counted under one
    # lock: no other thread of the process reads the header with a plain
    # descriptor in between. The first read, which may wait, comes after.
    with open_files.opening():
        key = check_header(target)
        conn = connect(target, busy_timeout_ms)
        open_files.register(key)
    try:
        if _key_of(target) != key:
            raise InputError(
                "was replaced by another file while it was opened; try again", str(target)
            )
        conn, immutable = readable_connection(target, conn, busy_timeout_ms)
    except BaseException:
        conn.close()
        open_files.release(key)
        raise
    try:
        version = stored_version(conn, str(target))
        if version > SCHEMA_VERSION:
            raise InputError(
                f"made by a newer judgepool (schema version {version}; this one reads up to "
                f"{SCHEMA_VERSION}); upgrade judgepool to open it",
                str(target),
            )
        configure(conn, immutable=immutable is not None)
        if version < SCHEMA_VERSION:
            if immutable is not None:
                raise WorkspaceReadOnly(target, _needs_upgrade(version))
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                raise WorkspaceBusy(str(target), busy_timeout_ms) from None
            _upgrade(conn, target)
    except BaseException:
        conn.close()
        open_files.release(key)
        raise
    return Workspace(target, conn, busy_timeout_ms, file_key=key, immutable=immutable)


def _key_of(path: Path) -> open_files.FileKey | None:
    try:
        return open_files.file_key(path.stat())
    except OSError:
        return None


def _needs_upgrade(version: int) -> str:
    return (
        f"it was made by an older judgepool (schema version {version}) and must be upgraded "
        f"to version {SCHEMA_VERSION} to be opened, which writes to it"
    )


def _upgrade(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the schema up to date inside the open write transaction, and commit."""
    version = 0
    try:
        # Read again under the write lock: another process may have upgraded
        # the file since we looked.
        version = stored_version(conn, str(path))
        if version < SCHEMA_VERSION:
            apply_migrations(conn, version)
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('upgraded_at', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (now(),),
            )
    except sqlite3.Error as exc:
        conn.execute("ROLLBACK")
        if read_only_error(exc):
            raise WorkspaceReadOnly(path, _needs_upgrade(version)) from None
        raise InputError(
            f"cannot upgrade the workspace from schema version {version} to {SCHEMA_VERSION} "
            f"({exc}); the file is unchanged",
            str(path),
        ) from None
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
