"""Reading an input file's bytes: plain or gzip, a regular file or a stream.

Every reader takes its bytes from here, so that every reader says the same
thing about a file it cannot read (missing, a directory, not readable, a
damaged or cut-short gzip) and opens a file exactly once: a FIFO or a
character device (``/dev/stdin``, a pipe given by process substitution,
``/dev/null``) can be read only once, and a second open of a FIFO waits for a
writer that never comes.

gzip is recognised by its magic bytes, whatever the file is called. A UTF-8
byte order mark at the start of a file is not part of its first line: the
readers remove it with `strip_bom`.
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final

from judgepool.core.terms.errors import InputError

GZIP_MAGIC: Final = b"\x1f\x8b"
UTF8_BOM: Final = b"\xef\xbb\xbf"

# What Python's gzip module raises on damaged data: BadGzipFile (an OSError)
# for a bad header or CRC, EOFError for data cut short, zlib.error for a
# damaged compressed stream.
GZIP_ERRORS: Final = (gzip.BadGzipFile, EOFError, zlib.error)


def open_text_bytes(path: str | Path) -> IO[bytes]:
    """Open a file for reading bytes, transparently un-gzipping it."""
    raw = open(path, "rb")  # noqa: SIM115 - handed to the caller, who closes it
    if raw.peek(2)[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    return raw


def is_regular_file(path: str | Path) -> bool:
    """True for a regular file (or a symlink to one), which can be opened twice;
    False for a stream (FIFO, device, socket), a directory or a missing path."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_error(exc: BaseException, path: str) -> InputError:
    """The InputError that says why ``path`` could not be read."""
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", path)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, not a file", path)
    if isinstance(exc, PermissionError):
        return InputError("cannot be read: permission denied", path)
    if isinstance(exc, EOFError):
        return InputError(
            "the gzip data ends too early: the file was cut short; download or compress it again",
            path,
        )
    if isinstance(exc, GZIP_ERRORS):
        return InputError(
            f"is a damaged gzip file ({exc}); download or compress it again",
            path,
        )
    if isinstance(exc, OSError):
        return InputError(f"cannot be read: {exc.strerror or exc}", path)
    return InputError(f"cannot be read: {exc}", path)


def read_bytes(path: str | Path) -> bytes:
    """The file's content, un-gzipped, read with a single open; a file that
    cannot be read is an InputError saying why."""
    try:
        with open_text_bytes(path) as handle:
            return handle.read()
    except (OSError, *GZIP_ERRORS) as exc:
        raise read_error(exc, str(path)) from None


def strip_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte order mark."""
    return data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data


def listed_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, line) of a small list file (query IDs, items): read with
    `read_bytes`, its byte order mark removed, LF or CR LF ends, blank lines
    and ``#`` comments skipped; a line that is not UTF-8 is refused naming it."""
    for number, raw in enumerate(strip_bom(read_bytes(path)).split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError:
            raise InputError("is not UTF-8 text", str(path), number) from None
        if line.strip() and not line.startswith("#"):
            yield number, line
