"""The central error handler: failures of the machine and its files (a damaged
or full workspace, a full disk, bytes in argv that are not UTF-8) become clear
messages with exit code 2, every message reaches the terminal literally, and
none of it costs ``score --qrels`` an import of SQLite."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import ranked, write_qrels, write_run

ESC = b"\x1b"


def judgepool(
    *args: str | bytes | Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """The real command in a subprocess; arguments may be bytes (not UTF-8)."""
    return subprocess.run(
        [sys.executable, "-m", "judgepool", *(str(a) if isinstance(a, Path) else a for a in args)],
        capture_output=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def assert_clear(done: subprocess.CompletedProcess[bytes], code: int = 2) -> str:
    """Exit ``code``, a message without traceback, bug report or raw escape; the message."""
    assert done.returncode == code, done.stderr
    assert b"Traceback" not in done.stderr and b"unexpected error" not in done.stderr
    assert ESC not in done.stderr and ESC not in (done.stdout or b"")
    return done.stderr.decode("utf-8")


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = write_qrels(tmp_path / "q.qrels", {"q": {"A": 3, "B": 1, "C": 0}})
    run = write_run(tmp_path / "r.trec", ranked("q", ["B", "A", "C"]))
    return run, qrels


@pytest.fixture
def workspace(tmp_path: Path, files: tuple[Path, Path]) -> Path:
    run, qrels = files
    ws = tmp_path / "w.sqlite"
    for args in (("init", ws), ("import", ws, "qrels", qrels), ("import", ws, "run", run)):
        assert judgepool(*args).returncode == 0
    return ws


# ------------------------------------------------------------- bytes that are not UTF-8


def test_a_non_utf8_path_is_printed_as_an_escape(tmp_path: Path, files: tuple[Path, Path]) -> None:
    run, qrels = files
    odd = os.fsencode(tmp_path) + b"/r\xff.trec"
    Path(os.fsdecode(odd)).write_bytes(run.read_bytes())
    for output in ("table", "json", "trec"):
        done = judgepool("score", odd, "--qrels", qrels, "--format", output, "--per-query")
        assert done.returncode == 0, done.stderr
    done = judgepool("score", odd, "--qrels", qrels)
    assert b"r\\udcff.trec" in done.stdout  # shown as an escape, never a crash
    missing = judgepool("score", os.fsencode(tmp_path) + b"/gone\xff", "--qrels", qrels)
    assert "gone\\udcff" in assert_clear(missing)


@pytest.mark.parametrize(
    "args",
    [
        ("--gain", b"\xff"),
        ("--scale", b"0..\xff"),
        ("-k", b"\xff"),
        ("--preset", b"\xff"),
        ("--entity", b"(\xff"),
        (b"--\xff",),
    ],
)
def test_non_utf8_option_values_are_clear_errors(
    files: tuple[Path, Path], args: tuple[str | bytes, ...]
) -> None:
    run, qrels = files
    assert_clear(judgepool("score", run, "--qrels", qrels, *args))


def test_a_non_utf8_file_name_is_stored_as_a_visible_escape(
    tmp_path: Path, files: tuple[Path, Path], workspace: Path
) -> None:
    # the file is fine, only its name is not UTF-8: the run is imported and its
    # source recorded with the byte shown as an escape, never raw
    run, _ = files
    odd = os.fsencode(tmp_path) + b"/other\xff.trec"
    Path(os.fsdecode(odd)).write_bytes(run.read_bytes().replace(b" t\n", b" u\n"))
    done = judgepool("import", workspace, "run", odd, "--name", "other")
    assert done.returncode == 0, done.stderr
    assert b"\xff" not in done.stdout and b"other\\udcff.trec" in done.stdout
    listed = judgepool("evaluations", workspace)
    assert listed.returncode == 0 and b"\xff" not in listed.stdout


# ------------------------------------------------------------- raw escapes stay literal


@pytest.mark.slow
def test_escapes_in_paths_and_options_never_reach_the_terminal(
    tmp_path: Path, files: tuple[Path, Path]
) -> None:
    run, qrels = files
    evil = str(tmp_path / "evil\x1b]0;owned\x07\x1b[2J")
    for args in (
        ("score", run, "--qrels", evil),
        ("score", evil, "--qrels", qrels),
        ("score", run, "--qrels", qrels, "--gain", "\x1b[2J"),
        ("score", run, "--qrels", qrels, "--preset", "\x1b[2J"),
        ("score", run, "--qrels", qrels, "--\x1b[2J"),
        ("judge", evil + ".sqlite", "q", "d", "1", "--annotator", "a"),
    ):
        message = assert_clear(judgepool(*args))
        assert "\\x1b" in message


# ------------------------------------------------------------------- damaged workspaces


def test_a_damaged_run_snapshot_names_the_run_and_how_to_import_it_again(
    workspace: Path, files: tuple[Path, Path]
) -> None:
    run, _ = files
    conn = sqlite3.connect(workspace)
    with conn:
        conn.execute("UPDATE run_columns SET data = X'00112233445566778899'")
    conn.close()
    for args in (
        ("score", "--workspace", workspace, "r"),
        ("score", "--workspace", workspace, "r", "--engine", "reference"),
        ("audit", "--workspace", workspace, "r"),
    ):
        message = assert_clear(judgepool(*args))
        assert "the stored copy of run 'r' is damaged" in message
        assert f"judgepool import {workspace} run {run} --name r-again" in message


def test_a_damaged_ledger_page_names_the_file_and_how_to_recover(workspace: Path) -> None:
    conn = sqlite3.connect(workspace)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [
            row[0]
            for row in conn.execute(
                "SELECT pageno FROM dbstat WHERE name IN ('judgment_events', 'current_judgments')"
            )
        ]
    finally:
        conn.close()
    with open(workspace, "r+b") as handle:  # no connection is open: only this test touches it
        for page in pages:  # whole pages: SQLite then sees the damage
            handle.seek((page - 1) * page_size)
            handle.write(b"\xde\xad\xbe\xef" * (page_size // 4))
    for command in ("export", "annotators"):
        extra = ("qrels",) if command == "export" else ()
        message = assert_clear(judgepool(command, workspace, *extra))
        assert f"{workspace} is damaged (SQLite: database disk image is malformed)" in message
        assert f"sqlite3 {workspace} .recover | sqlite3 {workspace}.recovered" in message
        assert "restore a backup" in message


# ---------------------------------------------------------------------- a full disk


def _can_mount_tmpfs() -> bool:
    try:
        done = subprocess.run(
            ["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


needs_tmpfs = pytest.mark.skipif(
    sys.platform != "linux" or not _can_mount_tmpfs(),
    reason="needs a user namespace to mount a small tmpfs (unshare -Urm)",
)


def _on_small_disk(
    folder: Path, size: str, command: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run the shell ``command`` with a tmpfs of ``size`` mounted on ``folder``."""
    folder.mkdir()
    script = f"mount -t tmpfs -o size={size} tmpfs {folder} && {command}"
    return subprocess.run(
        ["unshare", "-Urm", "sh", "-c", script],
        capture_output=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


@needs_tmpfs
def test_a_full_disk_under_the_workspace_is_a_clear_message(
    tmp_path: Path, files: tuple[Path, Path]
) -> None:
    big = tmp_path / "big.trec"
    big.write_text("".join(f"q{i % 50} Q0 doc{i} {i} {1.0 / (i + 1)!r} t\n" for i in range(20_000)))
    disk = tmp_path / "disk"
    ws = disk / "w.sqlite"
    me = f"{sys.executable} -m judgepool"
    done = _on_small_disk(disk, "400k", f"{me} init {ws} && {me} import {ws} run {big}")
    message = assert_clear(done)
    assert f"the disk holding {ws} is full" in message and "was not written" in message


@needs_tmpfs
@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_output_to_a_full_disk_is_a_clear_message(
    tmp_path: Path, files: tuple[Path, Path], unbuffered: str
) -> None:
    # PYTHONUNBUFFERED once lost the rest of a short write without an error
    _, qrels = files
    big = tmp_path / "big.trec"
    big.write_text("".join(f"q{i} Q0 A 1 1.0 t\n" for i in range(2000)))
    disk = tmp_path / "disk"
    command = (
        f"{sys.executable} -m judgepool score {big} --qrels {qrels} --unjudged zero "
        f"--format json --per-query > {disk}/out.json"
    )
    env = {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
    if not unbuffered:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = _on_small_disk(disk, "8k", command, env)
    assert "no space left on the device while writing the output" in assert_clear(done)


def test_output_to_dev_full_is_a_clear_message(files: tuple[Path, Path]) -> None:
    run, qrels = files
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "judgepool", "score", str(run), "--qrels", str(qrels)],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    message = assert_clear(done)
    assert message.count("judgepool:") == 1  # said once, not again at exit


# ------------------------------------------------------------------ what is imported


def test_score_with_qrels_never_loads_sqlite_even_when_it_fails(
    tmp_path: Path, files: tuple[Path, Path]
) -> None:
    run, qrels = files
    bad = tmp_path / "bad.qrels"
    bad.write_text("q 0 A 9\n")
    program = (
        "import sys\n"
        "from judgepool.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as exit:\n"
        "    print(exit.code, 'sqlite3' in sys.modules, file=sys.stderr)\n"
    )
    for qrels_file, code in ((qrels, "0"), (bad, "2")):
        done = subprocess.run(
            [sys.executable, "-c", program, "score", str(run), "--qrels", str(qrels_file)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.stderr.strip().splitlines()[-1] == f"{code} False"


def test_help_imports_every_command_and_no_workspace() -> None:
    """``judgepool --help`` imports every command's module, and none of them
    loads SQLite, sqlite-utils or the workspace's services before its command
    runs: each imports them inside the command."""
    program = (
        "import sys\n"
        "from judgepool.cli import COMMAND_MODULES, main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "late = ('sqlite3', 'sqlite_utils', 'judgepool.services.workspace',\n"
        "        'judgepool.store.workspace')\n"
        "print(all(f'judgepool.cli.{m}' in sys.modules for m in COMMAND_MODULES.values()), "
        "[m for m in late if m in sys.modules], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.stderr.strip().splitlines()[-1] == "True []"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_running_out_of_memory_is_a_clear_message(files: tuple[Path, Path]) -> None:
    import resource

    _, qrels = files

    def one_gigabyte() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "judgepool", "score", "/dev/zero", "--qrels", str(qrels)],
        capture_output=True,
        timeout=120,
        preexec_fn=one_gigabyte,
    )
    assert "out of memory" in assert_clear(done)


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path, unbuffered: str) -> None:
    # like `judgepool export WS qrels | head -2`, with and without PYTHONUNBUFFERED
    qrels = Path(__file__).resolve().parents[1] / "data" / "dl20-passage"
    ws = tmp_path / "w.sqlite"
    assert judgepool("init", ws).returncode == 0
    assert judgepool("import", ws, "qrels", qrels / "qrels.dl20-passage.txt.gz").returncode == 0
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    process = subprocess.Popen(
        [sys.executable, "-m", "judgepool", "export", str(ws), "qrels"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    errors = process.stderr.read()
    assert process.wait(timeout=60) == 0
    assert errors == b""
