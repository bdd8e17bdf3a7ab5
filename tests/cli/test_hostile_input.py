"""The command line on input that used to change numbers silently or end in
"unexpected error … this is a bug": every case is a clear message and an exit code.

Real files, real subprocesses where the operating system is part of the case
(a FIFO, a full disk, bytes in argv that are not UTF-8), the real CLI in
process elsewhere.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli.conftest import ranked, write_qrels, write_run

DL20 = Path(__file__).resolve().parents[1] / "data" / "dl20-passage"
BOM = b"\xef\xbb\xbf"


def judgepool(
    *args: str | bytes, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """The real command in a subprocess; arguments may be bytes (not UTF-8)."""
    return subprocess.run(
        [sys.executable, "-m", "judgepool", *args],
        capture_output=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def dl20_files(folder: Path) -> tuple[Path, Path]:
    """DL20's BM25 run and qrels, un-gzipped into ``folder``."""
    run, qrels = folder / "bm25.trec", folder / "dl20.qrels"
    run.write_bytes(gzip.decompress((DL20 / "runs" / "bm25.top100.trec.gz").read_bytes()))
    qrels.write_bytes(gzip.decompress((DL20 / "qrels.dl20-passage.txt.gz").read_bytes()))
    return run, qrels


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path]:
    qrels = write_qrels(tmp_path / "q.qrels", {"q": {"A": 3, "B": 1, "C": 0}})
    run = write_run(tmp_path / "r.trec", ranked("q", ["B", "A", "C"]))
    return run, qrels


def ndcg(cli: Callable[..., Result], *args: str | Path) -> float:
    result = cli("score", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return float(json.loads(result.stdout)["summary"]["ndcg"])


# ------------------------------------------------------------- point 6: silent changes


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_byte_order_mark_changes_no_number(
    cli: Callable[..., Result], tmp_path: Path, engine: str
) -> None:
    run, qrels = dl20_files(tmp_path)
    marked_run = tmp_path / "marked.trec"
    marked_run.write_bytes(BOM + run.read_bytes())
    marked_qrels = tmp_path / "marked.qrels"
    marked_qrels.write_bytes(BOM + qrels.read_bytes())
    common = ("--preset", "trec_eval", "--engine", engine)
    plain = ndcg(cli, run, "--qrels", qrels, *common)
    assert round(plain, 4) == 0.4796
    assert ndcg(cli, marked_run, "--qrels", marked_qrels, *common) == plain


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_cr_only_line_ends_are_refused_not_scored_zero(
    cli: Callable[..., Result], tmp_path: Path, which: str
) -> None:
    run, qrels = dl20_files(tmp_path)
    mac = tmp_path / which
    mac.write_bytes((run if which == "run" else qrels).read_bytes().replace(b"\n", b"\r"))
    args = (mac, "--qrels", qrels) if which == "run" else (run, "--qrels", mac)
    for engine in ("fast", "reference"):
        result = cli("score", *args, "--preset", "trec_eval", "--engine", engine)
        assert result.exit_code == 2, result.output
        assert f"{mac}:1: a carriage return (CR) inside the line" in result.stderr
        assert "tr '\\r' '\\n'" in result.stderr


def test_an_empty_or_comment_only_qrels_file_is_refused(
    cli: Callable[..., Result], tmp_path: Path, small: tuple[Path, Path]
) -> None:
    run, _ = small
    for content, what in ((b"", "it is empty"), (b"# judged later\n\n", "only comments")):
        qrels = tmp_path / "empty.qrels"
        qrels.write_bytes(content)
        result = cli("score", run, "--qrels", qrels)
        assert result.exit_code == 2
        assert "has no judgments" in result.stderr and what in result.stderr
    result = cli("score", run, "--qrels", os.devnull)
    assert result.exit_code == 2 and "/dev/null: has no judgments" in result.stderr


# ----------------------------------------------------- streams: FIFOs and /dev/null


def _feed_fifo(fifo: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(fifo, "wb") as handle:
            handle.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def _release(fifo: Path, writer: threading.Thread) -> None:
    if writer.is_alive():  # no reader came: let the writer go
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    writer.join(5)


def test_score_reads_a_fifo_and_refuses_dev_null_and_a_directory(
    tmp_path: Path, small: tuple[Path, Path]
) -> None:
    run, qrels = small
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    for engine in ("fast", "reference"):
        # a comment line: the fast reader cannot take its first tier, and must
        # not open the FIFO a second time for the next
        writer = _feed_fifo(fifo, b"# from a pipe\n" + run.read_bytes())
        try:
            done = judgepool("score", str(fifo), "--qrels", str(qrels), "--engine", engine)
        finally:
            _release(fifo, writer)
        assert done.returncode == 0, done.stderr
        assert b"0.7" in done.stdout  # the run's nDCG@10, 0.7xxx
    done = judgepool("score", os.devnull, "--qrels", str(qrels))
    assert done.returncode == 2
    assert b"/dev/null: has no run lines" in done.stderr
    done = judgepool("score", str(tmp_path), "--qrels", str(qrels))
    assert done.returncode == 2 and b"is a directory" in done.stderr


@pytest.mark.parametrize(
    ("kind", "content"),
    [
        ("run", b"# a comment\nq Q0 A 1 2.0 t\nq Q0 B 2 1.0 t\n"),
        ("qrels", b"q 0 A 1\nq 0 B 0\n"),
        ("queries", b"q\tsome query\n"),
    ],
)
def test_import_reads_a_fifo_without_blocking(tmp_path: Path, kind: str, content: bytes) -> None:
    ws = tmp_path / "w.sqlite"
    assert judgepool("init", str(ws)).returncode == 0
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    writer = _feed_fifo(fifo, content)
    try:
        done = judgepool("import", str(ws), kind, str(fifo), timeout=60)
    finally:
        _release(fifo, writer)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ numbers and bounds


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-k", "１０"), "'１０' is not an integer"),
        (("-k", "1_0"), "'1_0' is not an integer"),
        (("-k", "٣"), "is not an integer"),
        (("-k", "9223372036854775808"), "is outside 1..1000000"),
        (("-k", "0"), "is outside 1..1000000"),
        (("--relevant-from", "３"), "is not an integer"),
        (("--relevant-from", "1" * 5000), "is outside -1000..1000"),
        (("--scale", "０..３"), "scale must look like MIN..MAX"),
        (("--scale", "0..100000000"), "grades must lie within -1000..1000"),
        (("--scale", "0..1024", "--gain", "exponential"), "grades must lie within -1000..1000"),
        (("--gain", "0=0,1=1,2=１.５,3=3"), "must be a finite number"),
        (("--gain", "0=0,1=1,2=1_0,3=3"), "must be a finite number"),
        (("--gain", "0=0,1=1e308,2=1e309,3=1"), "got '1e309'"),
        (("--gain", "0=0,1=1e308,2=1e308,3=1e308"), "times k (10) is not a finite number"),
        (("--gain", "0=0,1=1,２=2,3=3"), "grade '２' in the gain map"),
    ],
)
def test_numbers_are_ascii_and_bounded_everywhere(
    cli: Callable[..., Result], small: tuple[Path, Path], args: tuple[str, ...], message: str
) -> None:
    run, qrels = small
    result = cli("score", run, "--qrels", qrels, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "unexpected error" not in result.stderr


def test_sums_that_overflow_are_refused_not_printed_as_nan(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # each query's DCG is 1e307, finite; their sum over 20 queries is not
    judged = {f"q{i}": {"A": 1} for i in range(20)}
    qrels = write_qrels(tmp_path / "q.qrels", judged)
    run = write_run(tmp_path / "r.trec", [row for q in judged for row in ranked(q, ["A"])])
    gain = ("--scale", "0..1", "--gain", "0=0,1=1e307")
    for engine in ("fast", "reference"):
        result = cli("score", run, "--qrels", qrels, *gain, "--engine", engine)
        assert result.exit_code == 2, result.output
        assert "overflows" in result.stderr
        assert "nan" not in result.stdout and "inf" not in result.stdout
    # one query alone is fine
    one = write_qrels(tmp_path / "one.qrels", {"q0": {"A": 1}})
    assert ndcg(cli, run, "--qrels", one, *gain, "--unjudged", "zero") == 1.0


def test_ranks_beyond_int64_are_refused_by_score_audit_and_import(
    cli: Callable[..., Result], tmp_path: Path, small: tuple[Path, Path]
) -> None:
    _, qrels = small
    run = tmp_path / "deep.trec"
    run.write_text("q Q0 A 1 3 t\nq Q0 B 99999999999999999999 2 t\n")
    message = f"{run}:2: rank '99999999999999999999' is outside the range of a 64-bit integer"
    for engine in ("fast", "reference"):
        result = cli("score", run, "--qrels", qrels, "--engine", engine)
        assert result.exit_code == 2 and message in result.stderr
    ws = tmp_path / "w.sqlite"
    assert cli("init", ws).exit_code == 0
    result = cli("import", ws, "run", run)
    assert result.exit_code == 2 and message in result.stderr
    audit = cli("audit", run, "--qrels", qrels, "--format", "json")
    assert audit.exit_code == 0
    bad = json.loads(audit.stdout)["findings"]["bad_lines"]
    assert [item["line"] for item in bad] == [2]


# -------------------------------------------------------- files that cannot be read


def test_a_damaged_gzip_is_a_clear_message(
    cli: Callable[..., Result], tmp_path: Path, small: tuple[Path, Path]
) -> None:
    run, qrels = small
    packed = gzip.compress(run.read_bytes())
    for name, data in (
        ("cut.gz", packed[: len(packed) // 2]),
        ("crc.gz", packed[:-8] + bytes([packed[-8] ^ 1]) + packed[-7:]),
        ("garbage.gz", packed[:10] + b"\xff" * 300),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        for args in ((path, "--qrels", qrels), (run, "--qrels", path)):
            result = cli("score", *args)
            assert result.exit_code == 2, result.output
            assert "gzip" in result.stderr and "unexpected" not in result.stderr


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"id": "q1", "text": "a", "text": "b"}', "names the key 'text' twice"),
        (b'{"id": "q1", "text": "x", "meta": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested"),
        (b'{"id": "q1", "text": "bad \\ud800 escape"}', "lone surrogate"),
        (b'{"id": "q\\ud800", "text": "x"}', "U+D800"),
        (b'{"id": "q 1", "text": "x"}', "query ID 'q 1' cannot be used"),
        (b'{"id": "#q1", "text": "x"}', "starts with '#'"),
    ],
    ids=["duplicate key", "deep nesting", "surrogate in text", "surrogate in id", "space", "hash"],
)
def test_jsonl_that_python_reads_oddly_is_refused_with_file_and_line(
    cli: Callable[..., Result], tmp_path: Path, line: bytes, message: str
) -> None:
    ws = tmp_path / "w.sqlite"
    assert cli("init", ws).exit_code == 0
    path = tmp_path / "queries.jsonl"
    path.write_bytes(b'{"id": "q0", "text": "fine"}\n' + line + b"\n")
    result = cli("import", ws, "queries", path)
    assert result.exit_code == 2, result.output
    assert f"{path}:2:" in result.stderr and message in result.stderr


def test_a_jsonl_integer_of_5000_digits_is_kept_as_written(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    ws = tmp_path / "w.sqlite"
    assert cli("init", ws).exit_code == 0
    path = tmp_path / "docs.jsonl"
    digits = "7" * 5000
    path.write_text(f'{{"id": {digits}, "text": "x", "n": {digits}}}\n')
    result = cli("import", ws, "docs", path)
    assert result.exit_code == 0, result.output
    import sqlite3

    conn = sqlite3.connect(ws)
    try:
        assert conn.execute("SELECT id FROM documents").fetchall() == [(digits,)]
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("depth", "message"),
    [("３", "is not an integer"), ("99999999999999999999", "is outside 1..1000000")],
)
def test_pool_depth_is_an_ascii_bounded_integer(
    cli: Callable[..., Result], tmp_path: Path, small: tuple[Path, Path], depth: str, message: str
) -> None:
    run, _ = small
    ws = tmp_path / "w.sqlite"
    assert cli("init", ws).exit_code == 0
    assert cli("import", ws, "run", run).exit_code == 0
    result = cli("pool", ws, "--depth", depth)
    assert result.exit_code == 2 and message in result.stderr
