"""A run scored in chunks gives the whole-file numbers, bit for bit.

`services.runs.streaming.score_in_chunks` is held to the whole-file fast path
(`evaluate_columns(read_run_columns(path))`, itself held to the reference) on
random runs over the fast engine's ID domain (`tests/core/test_fast_vs_reference`),
read in tiny chunks that force a cut inside queries, at query boundaries and
inside lines; with CRLF line ends, a byte order mark, gzip, comments and blank
lines (lines numbered past them); runs that split a query (grouped through
temporary files, with a note); and bad lines near the cuts (the same
`InputError`, global line). Every per-query value and the summary must be
exactly equal, as must the refusals' entries and messages, the digest and the
top k lists.
"""

from __future__ import annotations

import gzip
import os
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judgepool.services.runs.streaming as streaming
from judgepool.core.fast.engine import evaluate_columns_with_tops
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import DuplicatesRejected, InputError, UnjudgedRejected
from judgepool.formats.fast_run import read_run_columns
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.scoring import score_run, score_run_with_tops
from judgepool.services.runs.sources import file_source
from tests.compare import assert_same_evaluation
from tests.core.fast_run_domain import Judged, Row, cases

_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
CHUNK_SIZES = [1, 5, 30, 64, 200, 1000, 1 << 20]


def _outcome(compute: Any) -> tuple[str, Any]:
    try:
        return ("ok", compute())
    except (DuplicatesRejected, UnjudgedRejected) as exc:
        return (type(exc).__name__, (exc.entries, str(exc)))
    except InputError as exc:
        return ("InputError", (str(exc), exc.path, exc.line))


def _whole(path: Path, judgments: Judged, contract: Contract) -> tuple[str, Any]:
    def compute() -> Any:
        columns = read_run_columns(path)
        evaluation, tops = evaluate_columns_with_tops(columns, judgments, contract, "run")
        return evaluation, tops, columns.digest

    return _outcome(compute)


def _streamed(
    path: Path, judgments: Judged, contract: Contract, chunk_bytes: int, notes: list[str]
) -> tuple[str, Any]:
    def compute() -> Any:
        merged, digest = streaming.score_in_chunks(
            path, "run", judgments, contract, with_tops=True, chunk_bytes=chunk_bytes,
            on_note=notes.append,
        )  # fmt: skip
        return merged.evaluation("run"), merged.tops, digest

    return _outcome(compute)


def check_streamed_as_whole(
    path: Path, judgments: Judged, contract: Contract, chunk_bytes: int
) -> tuple[str, Any]:
    """Assert chunked scoring equals the whole-file path on ``path``, exactly."""
    expected = _whole(path, judgments, contract)
    notes: list[str] = []
    got = _streamed(path, judgments, contract, chunk_bytes, notes)
    assert got[0] == expected[0], (expected, got)
    if expected[0] == "ok":
        want, want_tops, want_digest = expected[1]
        have, have_tops, have_digest = got[1]
        assert_same_evaluation(want, have, tolerance=0.0)  # bit for bit
        assert have == want
        assert have_tops == want_tops
        assert have_digest == want_digest
    else:
        assert got[1] == expected[1]
    for note in notes:
        assert "does not keep each query's lines together" in note
    return got


def _text(rows: list[Row], crlf: bool, extras: random.Random | None) -> bytes:
    lines = [f"{q} Q0 {d} {r} {s!r} tag" for q, d, r, s in rows]
    if extras is not None:  # comments and blank lines: the lines are numbered past them
        for _ in range(extras.randint(1, 4)):
            lines.insert(extras.randint(0, len(lines)), extras.choice(["# comment", "", "  "]))
    end = "\r\n" if crlf else "\n"
    return "".join(line + end for line in lines).encode("utf-8")


@settings(_SETTINGS, max_examples=400)
@given(
    case=cases(),
    chunk_bytes=st.sampled_from(CHUNK_SIZES),
    crlf=st.booleans(),
    bom=st.integers(0, 4),
    gzipped=st.integers(0, 3),
    extras=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
)
@pytest.mark.slow
def test_streamed_scores_equal_the_whole_file_on_random_runs(
    tmp_path: Path,
    case: tuple[list[Row], Judged, Contract],
    chunk_bytes: int,
    crlf: bool,
    bom: int,
    gzipped: int,
    extras: int | None,
) -> None:
    rows, judgments, contract = case
    data = _text(rows, crlf, None if extras is None else random.Random(extras))
    if bom == 0:
        data = b"\xef\xbb\xbf" + data
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(data) if gzipped == 0 else data)
    check_streamed_as_whole(path, judgments, contract, chunk_bytes)


@settings(_SETTINGS, max_examples=200)
@given(case=cases(max_docs=4, max_rows=10), chunk_bytes=st.sampled_from(CHUNK_SIZES))
def test_refusals_list_the_same_entries_in_chunks(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract], chunk_bytes: int
) -> None:
    rows, judgments, contract = case
    strict = contract.with_changes(duplicates="reject", unjudged="reject")
    path = tmp_path / "run"
    path.write_bytes(_text(rows, False, None))
    check_streamed_as_whole(path, judgments, strict, chunk_bytes)


@settings(_SETTINGS, max_examples=200)
@given(
    case=cases(),
    chunk_bytes=st.sampled_from(CHUNK_SIZES[:-1]),
    at=st.integers(0, 10**6),
    bad=st.sampled_from(
        [b"q1 Q0 d1 one 1.0 tag", b"q1 Q0 d1 1 1.0", b"q1 Q0 d\xff 1 2 t", b"q1 Q0 d1 1 2\r t"]
    ),
)
def test_a_bad_line_near_a_cut_is_reported_with_its_line_in_the_file(
    tmp_path: Path,
    case: tuple[list[Row], Judged, Contract],
    chunk_bytes: int,
    at: int,
    bad: bytes,
) -> None:
    rows, judgments, contract = case
    lines = _text(rows, False, None).splitlines(keepends=True)
    lines.insert(at % (len(lines) + 1), bad + b"\n")
    path = tmp_path / "run"
    path.write_bytes(b"".join(lines))
    got = check_streamed_as_whole(path, judgments, contract, chunk_bytes)
    assert got[0] == "InputError"
    assert got[1][2] == at % (len(lines)) + 1


def _split_run(path: Path) -> Judged:
    """A run whose query 'a' comes back after 'b', 'c' and 'd': 1,000-line reads
    see it twice. Returns its judgments."""
    lines = [f"a Q0 d{n} {n + 1} {100 - n} t\n" for n in range(40)]
    for query in "bcd":
        lines += [f"{query} Q0 d{n} {n + 1} {100 - n} t\n" for n in range(40)]
    lines += [f"a Q0 e{n} {n + 41} {50 - n} t\n" for n in range(40)]
    path.write_text("".join(lines), "ascii")
    return {q: {"d1": 2, "e3": 1, "d7": 1} for q in "abcx"}


def test_a_run_that_splits_a_query_is_grouped_and_says_what_it_costs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    path = tmp_path / "split.run"
    judgments = _split_run(path)
    contract = Contract(k=10, unjudged="zero")
    notes: list[str] = []
    got = _streamed(path, judgments, contract, 1000, notes)
    assert got[0] == "ok"
    # one partition per 1,000 bytes of the file (a plain file's size is known)
    count = -(-path.stat().st_size // 1000)
    assert count == 4
    assert notes == [
        "run does not keep each query's lines together (query 'a' comes back after other "
        f"queries): reading it again, grouped by query through {count} temporary files in "
        f"{spill} (about the run's size on disk, for as long as it "
        "is scored): about twice the time"
    ]
    check_streamed_as_whole(path, judgments, contract, 1000)
    # query 'a' scored from all 80 of its lines, as the whole file scores it
    result = {r.query_id: r for r in got[1][0].per_query}["a"]
    assert result.returned == 80
    # the temporary files are gone
    assert not list(spill.iterdir())


def test_score_run_streams_a_file_above_the_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "split.run"
    judgments = _split_run(path)
    contract = Contract(k=10, unjudged="zero")
    whole = score_run_with_tops(file_source(path), JudgmentsSource(judgments, "qrels"), contract)
    stages: list[str] = []
    monkeypatch.setattr(streaming, "STREAM_FROM_BYTES", 1)
    monkeypatch.setattr(streaming, "stderr_note", lambda text: stages.append("note"))
    streamed = score_run_with_tops(
        file_source(path), JudgmentsSource(judgments, "qrels"), contract, on_progress=stages.append
    )
    assert any(stage.startswith("reading and scoring") for stage in stages)
    assert streamed == whole


def test_an_empty_file_is_refused_when_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "empty.run"
    path.write_bytes(b"# nothing but a comment\n")
    monkeypatch.setattr(streaming, "STREAM_FROM_BYTES", 1)
    with pytest.raises(InputError, match="has no run lines"):
        score_run(file_source(path), JudgmentsSource({"q": {"d": 1}}, "qrels"), Contract())


def test_only_large_regular_files_stream(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_bytes(b"q Q0 d 1 2 t\n" * 100)
    assert not streaming.streams(path)
    assert streaming.streams(path, threshold=1300)
    assert not streaming.streams(path, threshold=1301)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    # a gzip file is taken for GZIP_RATIO times its size
    assert streaming.streams(packed, threshold=packed.stat().st_size * streaming.GZIP_RATIO)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert not streaming.streams(fifo, threshold=0)  # read once: whole, as before
    assert not streaming.streams(tmp_path / "missing", threshold=0)
