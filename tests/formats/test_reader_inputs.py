"""Input that used to change numbers silently, or to fail without a clear message.

Every run reader (the reference `read_run`, the fast `read_run_columns` and its
in-memory tiers) reads these alike, as `check_all_readers_agree` asserts: a
byte order mark, every line end, IDs the TREC formats cannot carry, ranks
beyond 64 bits, damaged gzip files, and streams (a FIFO, /dev/null).
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.formats.fast_run import read_run_columns
from judgepool.formats.fast_run import stream as run_stream
from judgepool.formats.trec import read_run
from tests.formats.test_fast_run import GOOD, _fast, _reference, _rows, check_all_readers_agree


def test_ranks_beyond_int64_are_refused_with_file_and_line(tmp_path: Path) -> None:
    data = b"q Q0 a 5 1 t\nq Q0 b 99999999999999999999 1 t\n"
    expected = check_all_readers_agree(tmp_path, data)
    assert expected[0] == "error"
    message, path, line = expected[1]
    assert (path, line) == (str(tmp_path / "run"), 2)
    assert "rank '99999999999999999999' is outside the range of a 64-bit integer" in message


def test_a_byte_order_mark_is_dropped_and_counted_in_the_digest(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_bytes(GOOD)
    marked = tmp_path / "marked"
    marked.write_bytes(b"\xef\xbb\xbf" + GOOD)
    assert _rows(read_run_columns(marked)) == _rows(read_run_columns(plain))
    assert read_run(marked).entries == read_run(plain).entries
    assert read_run_columns(marked).digest == read_run(marked).digest != read_run(plain).digest
    # the common case stays on the fast tier
    assert run_stream.read_streaming(marked) is not None


@pytest.mark.parametrize(
    "ending", [b"\n", b"\r\n", b"\r", b"mixed", b"none at the end"], ids=lambda e: repr(e)
)
def test_every_line_end_is_read_alike_and_cr_only_is_refused(tmp_path: Path, ending: bytes) -> None:
    lines = [b"q1 Q0 d1 1 2.5 tag", b"q1 Q0 d2 2 1.5 tag", b"q2 Q0 d1 1 0.5 tag"]
    if ending == b"mixed":
        data = lines[0] + b"\r\n" + lines[1] + b"\n" + lines[2] + b"\r"
    elif ending == b"none at the end":
        data = b"\n".join(lines)
    else:
        data = ending.join(lines) + ending
    for bom in (b"", b"\xef\xbb\xbf"):
        outcome = check_all_readers_agree(tmp_path, bom + data)
        if ending == b"\r":
            # CR-only: one line for a reader that splits at LF, so refused, never
            # read as one entry that scores 0
            assert outcome[0] == "error" and outcome[1][2] == 1
            assert "carriage return" in outcome[1][0] and "tr '\\r' '\\n'" in outcome[1][0]
        else:
            assert outcome[0] == "ok" and len(outcome[1][0]) == 3


@pytest.mark.parametrize(
    ("data", "line", "shown"),
    [
        (b"q Q0 d 1 2 t\nq Q0 #d 1 2 t\n", 2, "document ID '#d'"),
        (b"q\x1b[2J Q0 d 1 2 t\n", 1, "query ID 'q\\x1b[2J'"),
        ("q Q0 a\u202eb 1 2 t\n".encode(), 1, "document ID 'a\\u202eb'"),
        ("q Q0 a\u00a0b 1 2 t\n".encode(), 1, "document ID 'a\\xa0b'"),
    ],
)
def test_ids_the_formats_cannot_carry_are_refused_naming_file_and_line(
    tmp_path: Path, data: bytes, line: int, shown: str
) -> None:
    for body in (data, GOOD * 20_000 + data):  # alone, and late in a large file
        outcome = check_all_readers_agree(tmp_path, body, tiny_blocks=len(body) < 1000)
        assert outcome[0] == "error"
        message, path, number = outcome[1]
        assert number == line + (0 if body is data else 60_000)
        assert path == str(tmp_path / "run") and shown in message


def test_a_file_of_forbidden_ids_never_takes_the_fast_tier(tmp_path: Path) -> None:
    # the fast tier's column check must see what the reference refuses
    path = tmp_path / "run"
    for doc in ("d\x01", "d\x7f", "#d", "d\u0085", "d\u00a0", "d\u202e", "d\u200b", "d\ufeff"):
        path.write_bytes(f"q Q0 ok 1 2 t\nq Q0 {doc} 2 1 t\n".encode())
        assert run_stream.read_streaming(path) is None
        assert run_stream.parse_regular(path.read_bytes()) is None
    for doc in ("d–x", "文書", "é", "d#1"):  # allowed, non-ASCII or not
        path.write_bytes(f"q Q0 ok 1 2 t\nq Q0 {doc} 2 1 t\n".encode())
        assert run_stream.read_streaming(path) is not None


def _damaged_gzip() -> dict[str, bytes]:
    good = gzip.compress(b"q1 Q0 d1 1 1.0 r\n" * 2000)
    return {
        "truncated": good[: len(good) // 2],
        "bad CRC": good[:-8] + bytes([good[-8] ^ 1]) + good[-7:],
        "garbage after the magic": b"\x1f\x8b" + b"garbage" * 50,
        "garbage after the header": good[:10] + b"\xff" * 300,
        "garbage after the end": good + b"xyzzy garbage",
        "magic only": b"\x1f\x8b",
    }


@pytest.mark.parametrize("kind", list(_damaged_gzip()))
def test_a_damaged_gzip_is_a_clear_input_error(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "run.gz"
    path.write_bytes(_damaged_gzip()[kind])
    expected = _reference(path)
    assert _fast(path) == expected
    assert expected[0] == "error"
    message = expected[1][0]
    assert "gzip" in message and "download or compress it again" in message


def _read_through_fifo(
    tmp_path: Path, data: bytes, program: str
) -> subprocess.CompletedProcess[str]:
    """Run ``program`` (Python, reading the FIFO named by argv[1]) while a thread
    writes ``data`` into the FIFO once; a reader that opened it twice would
    wait for a second writer, and time out."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as handle:
            handle.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        return subprocess.run(
            [sys.executable, "-c", program, str(fifo)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        if writer.is_alive():  # the reader never opened it: let the writer go
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(5)


@pytest.mark.parametrize(
    "data",
    [GOOD, b"# a comment: not the fast tier\n" + GOOD, gzip.compress(GOOD)],
    ids=["plain", "comment", "gzip"],
)
def test_a_fifo_is_read_once_as_a_stream(tmp_path: Path, data: bytes) -> None:
    program = (
        "import sys\n"
        "from judgepool.formats.fast_run import read_run_columns\n"
        "columns = read_run_columns(sys.argv[1])\n"
        "print(len(columns), columns.digest)\n"
    )
    done = _read_through_fifo(tmp_path, data, program)
    assert done.returncode == 0, done.stderr
    plain = tmp_path / "plain"
    plain.write_bytes(data)
    assert done.stdout.split() == ["3", read_run(plain).digest]


def test_dev_null_is_an_empty_run(tmp_path: Path) -> None:
    assert len(read_run_columns(os.devnull)) == 0
    assert read_run(os.devnull).entries == []


def test_a_missing_file_and_a_directory_say_what_they_are(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_run_columns(tmp_path / "absent")
    with pytest.raises(InputError, match="is a directory"):
        read_run_columns(tmp_path)
