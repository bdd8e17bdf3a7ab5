"""Opening and creating a workspace file, its transactions and its settings.

`Workspace` wraps one SQLite connection (through sqlite-utils) in WAL mode
with a busy timeout, so several processes can grade the same file: readers
never wait, writers queue for up to `BUSY_TIMEOUT_MS`. Every change goes
through `Workspace.write()`, one ``BEGIN IMMEDIATE`` transaction: taking the
write lock up front means a transaction that reads and then writes cannot be
refused half-way because another process wrote in between.
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

from sqlite_utils import Database

from judgepool import __version__
from judgepool.core.contract import Contract, Scale
from judgepool.core.errors import ContractError, InputError, JudgepoolError
from judgepool.store.rules import CONSENSUS_RULES
from judgepool.store.schema import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    apply_migrations,
    check_header,
    stored_version,
)

BUSY_TIMEOUT_MS: Final = 10_000

# TREC Deep Learning's labels for its 0..3 scale.
TREC_DL_LABELS: Final[dict[int, str]] = {
    0: "Irrelevant",
    1: "Related",
    2: "Highly relevant",
    3: "Perfectly relevant",
}


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


def _connect(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; Workspace.write() opens
    # them explicitly with BEGIN IMMEDIATE.
    conn = sqlite3.connect(
        str(path),
        timeout=busy_timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    return conn


def _configure(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    # FULL: a commit is on disk (the WAL is synced) before it is acknowledged.
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: bulk imports spill less


class Workspace:
    """An open workspace file. Use as a context manager, or call `close()`."""

    def __init__(
        self, path: Path, conn: sqlite3.Connection, busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.db = Database(conn)
        self._lock = threading.RLock()
        self._scale: Scale | None = None

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Workspace {self.path}>"

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back on
        any exception (KeyboardInterrupt included)."""
        with self._lock:
            if self.conn.in_transaction:
                raise RuntimeError("write transactions do not nest")
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise WorkspaceBusy(str(self.path), self.busy_timeout_ms) from None
                raise
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

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
        data = self.setting("default_contract")
        if data is None:
            return Contract(scale=self.scale)
        return Contract.from_dict(data)

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
    if not target.parent.exists():
        target.parent.mkdir(parents=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.init")
    temporary.unlink(missing_ok=True)
    try:
        conn = _connect(temporary)
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
    refused with an InputError and left byte for byte as it was.
    """
    target = Path(path)
    check_header(target)
    conn = _connect(target, busy_timeout_ms)
    try:
        version = stored_version(conn, str(target))
        if version > SCHEMA_VERSION:
            raise InputError(
                f"made by a newer judgepool (schema version {version}; this one reads up to "
                f"{SCHEMA_VERSION}); upgrade judgepool to open it",
                str(target),
            )
        _configure(conn)
        if version < SCHEMA_VERSION:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                raise WorkspaceBusy(str(target), busy_timeout_ms) from None
            _upgrade(conn, target)
    except BaseException:
        conn.close()
        raise
    return Workspace(target, conn, busy_timeout_ms)


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
        raise InputError(
            f"cannot upgrade the workspace from schema version {version} to {SCHEMA_VERSION} "
            f"({exc}); the file is unchanged",
            str(path),
        ) from None
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
