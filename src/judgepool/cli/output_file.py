"""Writing a command's output to the path a user gave (``-o FILE``) safely.

What the path is decides how it is written:

- ``-``, or any name of the file standard output already is (``/dev/stdout``,
  the file ``>`` redirected it to): standard output itself.
- A regular file, or a path that does not exist yet: atomically. The text
  goes to a temporary file in the same directory, is flushed and fsynced,
  then renamed over the path (``os.replace``), so a reader sees the old
  file or the whole new one, never a half-written one; a failure (disk
  full, a refused export) leaves the old file as it was. The replaced
  file's permissions (and owner, where allowed) are kept; a file its mode
  makes read-only is refused, as a shell redirection would. (A file with
  other hard links gets the new text under this name only.)
- A symbolic link: followed to its target, which is written as above; the
  link stays a link.
- A FIFO or a character device (a terminal, ``/dev/null``): written
  straight into, as a shell redirection would; replacing it would turn a
  pipe into a plain file. So is a regular file reached through a link that
  does not resolve to its name (``/proc/self/fd/N`` of a deleted file).
- Anything else (a directory, a block device, a socket) is refused.

The files of a given workspace (its database and the ``-wal``, ``-shm`` and
``-journal`` files beside it) are refused whatever name reaches them,
symbolic links and hard links included: they are compared by resolved name
and by (device, inode). They are only ``stat``-ed, never opened: closing
any descriptor of an open SQLite database drops the process's locks on it.

Write errors become `InputError` (exit 2) with a plain reason: "the disk is
full" for ENOSPC (``/dev/full``), never a traceback.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TextIO

from judgepool.core.terms.errors import InputError
from judgepool.display import quoted

WORKSPACE_SUFFIXES: Final = ("", "-wal", "-shm", "-journal")
STDOUT: Final = "-"
STANDARD_OUTPUT: Final = "standard output"


def _reason(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full (no space left on device)"
    if exc.errno == errno.EFBIG:
        return "the file would be too large for its file system"
    return exc.strerror or str(exc)


def write_error(exc: OSError, target: str, *, replaced: bool = False) -> InputError:
    """An `OSError` met while writing ``target``, as a message for people."""
    kept = "; the file there was left as it was" if replaced else ""
    return InputError(f"cannot write: {_reason(exc)}{kept}", target)


def _workspace_files(workspace: Path) -> list[Path]:
    """Its files by resolved name, and by the name given when it is a link
    (SQLite keeps -wal and -shm beside the file it resolves to; both are refused)."""
    bases = dict.fromkeys((os.path.realpath(workspace), os.path.abspath(workspace)))
    return [Path(base + suffix) for base in bases for suffix in WORKSPACE_SUFFIXES]


def refuse_workspace_files(
    real: Path | None, target: str, workspace: Path, mine: os.stat_result | None = None
) -> None:
    """Refuse ``real`` (a resolved path) or the open file ``mine`` is, if it is
    one of the workspace's files."""
    if mine is None and real is not None:
        try:
            mine = os.stat(real)
        except OSError:
            mine = None
    for own in _workspace_files(workspace):
        same = own == real
        if not same and mine is not None:
            try:
                theirs = os.stat(own)
            except OSError:
                continue
            same = (theirs.st_dev, theirs.st_ino) == (mine.st_dev, mine.st_ino)
        if same:
            raise InputError(
                f"is the workspace's own file {quoted(own.name)}; writing there would destroy "
                "the workspace; choose another output file",
                target,
            )


@contextmanager
def _atomic(real: Path, target: str, existing: os.stat_result | None) -> Iterator[TextIO]:
    temporary = real.with_name(f".{real.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise InputError(
            f"cannot create a temporary file beside it to replace it safely: {_reason(exc)}",
            target,
        ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            if existing is not None:
                _keep_owner_and_mode(handle.fileno(), existing)
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, real)
    except OSError as exc:
        raise write_error(exc, target, replaced=existing is not None) from None
    finally:
        # gone after os.replace; after a failure it must not stay behind
        temporary.unlink(missing_ok=True)
    _sync_directory(real.parent)


def _keep_owner_and_mode(fd: int, existing: os.stat_result) -> None:
    # Only root may give a file away; the mode is kept regardless.
    with contextlib.suppress(OSError):
        os.fchown(fd, existing.st_uid, existing.st_gid)
    os.fchmod(fd, stat.S_IMODE(existing.st_mode))


def _sync_directory(directory: Path) -> None:
    """Make the rename durable; some file systems cannot fsync a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def _straight(target: str) -> Iterator[TextIO]:
    # Opened by the name given, not the resolved one: /dev/stdout resolves
    # to names like "pipe:[123]" that only the kernel can follow.
    try:
        handle = open(target, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
    except OSError as exc:
        raise write_error(exc, target) from None
    try:
        yield handle
        handle.flush()
    except BrokenPipeError:
        raise  # the reader went away (| head): the command line's handler says nothing
    except OSError as exc:
        raise write_error(exc, target) from None
    finally:
        # A failed flush was reported above; closing only retries it.
        with contextlib.suppress(OSError):
            handle.close()


@contextmanager
def _stdout() -> Iterator[TextIO]:
    try:
        yield sys.stdout
        sys.stdout.flush()
    except BrokenPipeError:
        raise  # the reader went away (| head): the command line's handler says nothing
    except OSError as exc:
        # What is left in the buffer would fail again when Python exits,
        # printing its own traceback: send it to /dev/null instead.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
        raise write_error(exc, STANDARD_OUTPUT) from None


def is_standard_output(target: str) -> bool:
    """``-``, or a name for the file standard output already is (``/dev/stdout``,
    ``/proc/self/fd/1``, the file ``>`` redirected it to)."""
    if target == STDOUT:
        return True
    try:
        named = os.stat(target)
        ours = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    return (named.st_dev, named.st_ino) == (ours.st_dev, ours.st_ino)


@contextmanager
def open_output(target: str, *, workspace: Path) -> Iterator[TextIO]:
    """A text stream writing to ``target`` as the module describes, never to
    one of ``workspace``'s files. The text is in place when the block ends."""
    if is_standard_output(target):
        # Through sys.stdout itself: opening /dev/stdout again would start a
        # second offset into a redirected file, and replacing it would
        # unlink the file the shell opened. ('>>' onto the database is
        # refused too; '>' has already truncated it before we start.)
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            ours = os.fstat(sys.stdout.fileno())
            refuse_workspace_files(None, STANDARD_OUTPUT, workspace, ours)
        with _stdout() as stream:
            yield stream
        return
    if not target:
        raise InputError("no output file given; give a file name, or '-' for standard output")
    real = Path(os.path.realpath(target))
    refuse_workspace_files(real, target, workspace)
    try:
        existing: os.stat_result | None = os.stat(target)  # through any links
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise write_error(exc, target) from None
    if existing is not None and stat.S_ISREG(existing.st_mode):
        # the file the links lead to, checked to be the one stat saw
        try:
            resolved = os.stat(real)
        except OSError:
            resolved = None
        if resolved is None or (resolved.st_dev, resolved.st_ino) != (
            existing.st_dev,
            existing.st_ino,
        ):
            with _straight(target) as stream:
                yield stream
            return
    if existing is None:
        if not real.parent.is_dir():
            raise InputError(f"no such directory: {quoted(str(real.parent))}", target)
        with _atomic(real, target, None) as stream:
            yield stream
    elif stat.S_ISREG(existing.st_mode):
        if not os.access(real, os.W_OK):
            # renaming over it would succeed; the file's own mode says not to
            raise InputError("is read-only; make it writable or choose another file", target)
        with _atomic(real, target, existing) as stream:
            yield stream
    elif stat.S_ISFIFO(existing.st_mode) or stat.S_ISCHR(existing.st_mode):
        with _straight(target) as stream:
            yield stream
    elif stat.S_ISDIR(existing.st_mode):
        raise InputError("is a directory; give a file name", target)
    else:
        raise InputError(
            "is neither a regular file, a FIFO nor a character device (a block device or a "
            "socket); give a file name, or '-' for standard output",
            target,
        )
