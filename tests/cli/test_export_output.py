"""``export -o`` writes by what the path is: a regular file or a new path is
replaced atomically, a symbolic link's target likewise (the link stays), a
FIFO or character device is written into, the workspace's own files are
refused under any name, and a full disk is a message with exit 2.

Devices are made in the test's own directory (``mknod``, as root): a test
must never risk replacing the machine's ``/dev/full``.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgepool.cli import main
from tests.read_only import require_truly_read_only, run_judgepool

EXPECTED = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "w.sqlite"
    assert run("init", str(path)).exit_code == 0
    qrels = tmp_path / "in.qrels"
    qrels.write_text("q2 0 d3 1\nq1 0 d1 2\nq1 0 d2 0\n")
    result = run("import", str(path), "qrels", str(qrels), "--annotator", "nist")
    assert result.exit_code == 0, result.output
    return path


def _device(path: Path, major: int, minor: int) -> Path:
    """A character device node like /dev/null (1, 3) or /dev/full (1, 7) at ``path``."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def _intact(ws: Path) -> None:
    conn = sqlite3.connect(ws)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM judgment_events").fetchone()[0] == 3
    finally:
        conn.close()


def test_a_new_path_and_a_regular_file_are_written_whole(ws: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.qrels"
    result = run("export", str(ws), "qrels", "-o", str(target))
    assert result.exit_code == 0, result.output
    assert target.read_text() == EXPECTED
    assert "wrote 3 judgments" in result.stdout

    # an existing file is replaced (a new inode: renamed over, never rewritten
    # in place), keeping its permissions
    target.write_text("old\n")
    target.chmod(0o640)
    before = target.stat()
    assert run("export", str(ws), "qrels", "-o", str(target)).exit_code == 0
    after = target.stat()
    assert target.read_text() == EXPECTED
    assert after.st_ino != before.st_ino
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert _leftovers(tmp_path) == []


def test_a_refused_export_leaves_the_old_file_and_no_temporary(ws: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.qrels"
    target.write_text("old\n")
    result = run("export", str(ws), "qrels", "-o", str(target), "--annotator", "nobody")
    assert result.exit_code == 2
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_a_symlink_is_followed_and_kept(ws: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.qrels"
    real.write_text("old\n")
    link = tmp_path / "link.qrels"
    link.symlink_to(real)
    assert run("export", str(ws), "qrels", "-o", str(link)).exit_code == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == EXPECTED

    # a link to a path that does not exist yet creates the target
    dangling = tmp_path / "dangling.qrels"
    dangling.symlink_to(tmp_path / "created.qrels")
    assert run("export", str(ws), "qrels", "-o", str(dangling)).exit_code == 0
    assert dangling.is_symlink()
    assert (tmp_path / "created.qrels").read_text() == EXPECTED


def test_a_fifo_is_written_into_not_replaced(ws: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    # a daemon: if the FIFO were replaced, the reader would wait for ever
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    result = run("export", str(ws), "qrels", "-o", str(fifo))
    reader.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert received == [EXPECTED]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_character_device_is_written_into(ws: Path, tmp_path: Path) -> None:
    null = _device(tmp_path / "null", 1, 3)
    result = run("export", str(ws), "qrels", "-o", str(null))
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(null.stat().st_mode)  # still the device, not a file named "null"


def test_a_full_device_is_a_clear_error_with_exit_2(ws: Path, tmp_path: Path) -> None:
    full = _device(tmp_path / "full", 1, 7)
    result = run("export", str(ws), "qrels", "-o", str(full))
    assert result.exit_code == 2
    assert "disk is full" in result.stderr
    assert "Traceback" not in result.output and "unexpected" not in result.stderr
    assert stat.S_ISCHR(full.stat().st_mode)


def test_standard_output_on_a_full_device_is_a_clear_error(ws: Path, tmp_path: Path) -> None:
    full = _device(tmp_path / "full", 1, 7)
    with open(full, "w") as stdout:
        process = subprocess.run(
            [sys.executable, "-m", "judgepool", "export", str(ws), "qrels"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert process.returncode == 2, process.stderr
    assert "standard output: cannot write: the disk is full" in process.stderr
    assert "Traceback" not in process.stderr and "Exception ignored" not in process.stderr


@pytest.fixture
def wal_open(ws: Path) -> Iterator[None]:
    """The workspace open in WAL mode by another connection, so -wal and -shm exist."""
    conn = sqlite3.connect(ws)
    conn.execute("SELECT COUNT(*) FROM judgment_events").fetchone()
    assert Path(f"{ws}-wal").exists() and Path(f"{ws}-shm").exists()
    yield
    conn.close()


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
@pytest.mark.usefixtures("wal_open")
def test_the_workspace_files_are_refused_by_name(ws: Path, suffix: str) -> None:
    target = Path(f"{ws}{suffix}")
    existed = target.exists()
    before = target.stat().st_ino if existed else None
    result = run("export", str(ws), "qrels", "-o", str(target))
    assert result.exit_code == 2
    assert "is the workspace's own file" in result.stderr
    assert target.exists() == existed
    if existed:
        assert target.stat().st_ino == before
    _intact(ws)


@pytest.mark.usefixtures("wal_open")
@pytest.mark.parametrize("suffix", ["", "-wal"])
@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
def test_the_workspace_files_are_refused_through_links(
    ws: Path, tmp_path: Path, suffix: str, kind: str
) -> None:
    own = Path(f"{ws}{suffix}")
    other = tmp_path / "elsewhere"
    other.mkdir()
    alias = other / "innocent.qrels"
    if kind == "symlink":
        alias.symlink_to(own)
    else:
        os.link(own, alias)
    result = run("export", str(ws), "qrels", "-o", str(alias))
    assert result.exit_code == 2, result.output
    assert "is the workspace's own file" in result.stderr
    assert own.stat().st_ino == alias.stat().st_ino  # nothing was replaced
    _intact(ws)


def test_directories_and_missing_directories_are_refused(ws: Path, tmp_path: Path) -> None:
    result = run("export", str(ws), "qrels", "-o", str(tmp_path))
    assert result.exit_code == 2 and "is a directory" in result.stderr
    result = run("export", str(ws), "qrels", "-o", str(tmp_path / "nowhere" / "x.qrels"))
    assert result.exit_code == 2 and "no such directory" in result.stderr
    result = run("export", str(ws), "qrels", "-o", "")
    assert result.exit_code == 2 and "no output file given" in result.stderr


def test_dash_is_standard_output(ws: Path) -> None:
    result = run("export", str(ws), "qrels", "-o", "-")
    assert result.exit_code == 0
    assert result.stdout == EXPECTED


@pytest.mark.parametrize("name", ["/dev/stdout", "/proc/self/fd/1"])
def test_a_name_of_standard_output_is_standard_output(ws: Path, tmp_path: Path, name: str) -> None:
    """Redirected to a file, it is written through standard output itself: no
    second offset into the file, no replaced file, no summary among the qrels."""
    redirected = tmp_path / "redirected.qrels"
    with open(redirected, "w") as stdout:
        process = subprocess.run(
            [sys.executable, "-m", "judgepool", "export", str(ws), "qrels", "-o", name],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
        inode = os.fstat(stdout.fileno()).st_ino
    assert process.returncode == 0, process.stderr
    assert redirected.read_text() == EXPECTED
    assert redirected.stat().st_ino == inode
    piped = subprocess.run(
        [sys.executable, "-m", "judgepool", "export", str(ws), "qrels", "-o", name],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == EXPECTED
    assert Path("/dev/stdout").is_symlink() or name != "/dev/stdout"


def test_a_read_only_file_is_refused_not_replaced(ws: Path, tmp_path: Path) -> None:
    # as root, only a process without CAP_DAC_OVERRIDE is bound by the mode bits
    probe = tmp_path / "probe-folder"
    probe.mkdir()
    require_truly_read_only(probe)
    target = tmp_path / "kept.qrels"
    target.write_text("old\n")
    target.chmod(0o444)
    result = run_judgepool("export", ws, "qrels", "-o", target)
    assert result.returncode == 2 and "is read-only" in result.stderr, result.stderr
    assert target.read_text() == "old\n"


def test_a_socket_or_block_device_is_refused(ws: Path, tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        result = run("export", str(ws), "qrels", "-o", str(path))
        assert result.exit_code == 2 and "is neither a regular file" in result.stderr
        assert stat.S_ISSOCK(path.stat().st_mode)
    finally:
        server.close()
    block = tmp_path / "block"
    try:
        os.mknod(block, stat.S_IFBLK | 0o600, os.makedev(7, 255))  # a loop device number
    except PermissionError:
        return
    result = run("export", str(ws), "qrels", "-o", str(block))
    assert result.exit_code == 2 and "is neither a regular file" in result.stderr
    assert stat.S_ISBLK(block.stat().st_mode)


def test_standard_output_appended_to_the_workspace_is_refused(ws: Path) -> None:
    """``export ws qrels >> ws``: the shell opened the database for us; nothing
    is written into it."""
    size = ws.stat().st_size
    with open(ws, "ab") as stdout:  # what '>>' hands the command
        process = subprocess.run(
            [sys.executable, "-m", "judgepool", "export", str(ws), "qrels"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert process.returncode == 2, process.stderr
    assert "standard output: is the workspace's own file 'w.sqlite'" in process.stderr
    assert ws.stat().st_size == size
    _intact(ws)
