"""What the command line says about a failure that is not one of judgepool's
own errors: the one place where exception types become messages for people.

`describe` covers what the machine and its files can do to any command: a
damaged or full workspace (SQLite), a full disk, a file that cannot be
written, memory running out, and a non-UTF-8 byte in argv that reaches a
place that keeps text. sqlite3 is never imported here: a command that
has not loaded it (``score --qrels``) cannot have raised one of its errors,
so the module is looked up only among those already loaded.

`shown` makes any message safe for a terminal: every line through
`judgepool.display.literal` (control characters as visible escapes), and a
lone surrogate (what a non-UTF-8 byte in argv becomes) as its escape.
"""

from __future__ import annotations

import errno
import shlex
import sys
from collections.abc import Callable
from typing import Final

from judgepool.display import literal

_NO_SPACE: Final = (errno.ENOSPC, errno.EDQUOT)


def shown(message: str) -> str:
    """``message`` with every line made literal, newlines kept."""
    text = "\n".join(literal(line) for line in message.split("\n"))
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def describe(exc: BaseException, workspace: Callable[[], str | None]) -> str | None:
    """A message for ``exc`` (exit code 2), or None when it is not a known kind
    of failure. ``workspace()`` gives the workspace file the command was given,
    if any (asked only for a database error)."""
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is not None and isinstance(exc, sqlite3.Error):
        return _database(exc, workspace())
    if isinstance(exc, MemoryError):
        return (
            "out of memory: the input, or what the options ask for, needs more memory "
            "than this machine has"
        )
    if isinstance(exc, OSError):
        return _system(exc)
    if isinstance(exc, UnicodeEncodeError) and "surrogate" in exc.reason:
        # a non-UTF-8 byte in argv (a path, a name) arrives as a lone surrogate,
        # which no UTF-8 text (SQLite, a file, the terminal) can hold
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
        return (
            f"a value given on the command line holds a byte that is not UTF-8 "
            f"({bad.encode('utf-8', 'surrogateescape')!r} in {exc.object!r}), which judgepool "
            "cannot store: rename the file, or give the value in UTF-8"
        )
    return None


def _database(exc: BaseException, workspace: str | None) -> str | None:
    """SQLite's errors that the machine or the file cause, by their result code
    (Python 3.11 gives its name); None for the others (a constraint or misuse
    is a bug, and is reported as one)."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    ws = workspace or "the workspace file"
    said = f"(SQLite: {exc})"
    if name == "SQLITE_FULL" or "database or disk is full" in str(exc):
        return (
            f"the disk holding {ws} is full {said}: the change was not written; "
            "free some space and run the command again"
        )
    if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in str(exc):
        source = shlex.quote(workspace or "WS")
        target = shlex.quote((workspace or "WS") + ".recovered")
        return (
            f"{ws} is damaged {said}. Recover what it holds into a new file with\n"
            f"  sqlite3 {source} .recover | sqlite3 {target}\n"
            "check the new file, then use it in place of the damaged one; or restore a backup."
        )
    if name.startswith("SQLITE_READONLY") or "readonly" in str(exc):
        return f"{ws} is read-only {said}: nothing was written"
    if name == "SQLITE_CANTOPEN":
        return f"cannot open {ws} {said}: check that it and its folder exist and can be written"
    if name.startswith("SQLITE_IOERR"):
        return f"the disk failed while reading or writing {ws} {said}; check the disk and the file"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return f"{ws} is busy {said}: another process is writing to it; try again"
    return None


def _system(exc: OSError) -> str:
    """An operating system error: what failed, on which file, and what to do."""
    where = f" {exc.filename}" if exc.filename is not None else " the output"
    if exc.errno in _NO_SPACE:
        return f"no space left on the device while writing{where}: free some space and run again"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"permission denied:{where}"
    if exc.errno == errno.EROFS:
        return f"the file system is read-only:{where}"
    reason = exc.strerror or str(exc)
    return f"{reason}:{where}" if exc.filename is not None else reason
