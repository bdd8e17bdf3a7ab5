"""The chunked run reader reads exactly what the reference reader reads.

`RunBlocks` and `RunChunks` (formats.fast_run.chunks) are held to
`formats.trec.read_run` on the reader's edge cases and on random files, read
with tiny chunks that force a cut inside lines, at line ends and between
queries: the same rows with the file's own line numbers, the same digest, or
the same `InputError` (message, file and global line). `RunChunks` must also
cut only between queries.
"""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgepool.core.terms.errors import InputError
from judgepool.formats.fast_run.chunks import RunBlocks, RunChunk, RunChunks
from tests.formats.test_fast_run import GOOD, _reference, run_lines

CHUNK_SIZES = [1, 2, 3, 7, 17, 40, 100, 1 << 20]
_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _rows(chunks: list[RunChunk]) -> list[tuple[str, str, int, float]]:
    return [
        row
        for chunk in chunks
        for row in zip(
            chunk.query_ids.to_pylist(),
            chunk.doc_ids.to_pylist(),
            chunk.ranks.tolist(),
            chunk.scores.tolist(),
            strict=True,
        )
    ]


def _keeps_queries_together(query_ids: list[str]) -> bool:
    seen: set[str] = set()
    previous = None
    for query_id in query_ids:
        if query_id != previous:
            if query_id in seen:
                return False
            seen.add(query_id)
            previous = query_id
    return True


def _chunked(path: Path, chunk_bytes: int, *, by_query: bool) -> tuple[str, Any]:
    reader = RunChunks(path, chunk_bytes) if by_query else RunBlocks(path, chunk_bytes)
    try:
        chunks = list(reader)
    except InputError as exc:
        return ("error", (str(exc), exc.path, exc.line))
    if by_query:
        # every query of a file that keeps its queries together is in one chunk
        queries = [chunk.query_ids.to_pylist() for chunk in chunks]
        if _keeps_queries_together([q for chunk in queries for q in chunk]):
            for earlier, later in itertools.pairwise(queries):
                assert not set(earlier) & set(later), (earlier, later)
    lines = [line for chunk in chunks for line in chunk.lines.tolist()]
    entries = [(*row, line) for row, line in zip(_rows(chunks), lines, strict=True)]
    return ("ok", (entries, reader.digest))


def check_chunked_as_reference(path: Path, chunk_bytes: int) -> None:
    expected = _reference(path)
    if expected[0] == "ok":
        # the reference's entries carry (query, doc, rank, score, line)
        expected = ("ok", ([tuple(e) for e in expected[1][0]], expected[1][1]))
    for by_query in (False, True):
        assert _chunked(path, chunk_bytes, by_query=by_query) == expected, (chunk_bytes, by_query)


@pytest.mark.parametrize("chunk_bytes", CHUNK_SIZES)
@pytest.mark.parametrize(
    "data",
    [
        GOOD,
        GOOD.rstrip(b"\n"),
        GOOD.replace(b"\n", b"\r\n"),
        b"",
        b"\n\n",
        b"# comment\n" + GOOD + b"\n# another\n" + GOOD,
        b"\xef\xbb\xbf" + GOOD,
        b"\xef\xbb\xbf",
        b"\xef\xbb",  # the start of a byte order mark only
        GOOD + b"\xef\xbb\xbfq3 Q0 d 1 2 t\n",  # inside the file: refused
        GOOD.replace(b"tag\nq1", b"tag\rq1"),  # a lone CR: refused, with its line
        GOOD + b"q3 Q0 d3 1 2 tag\r",  # CR at the very end
        GOOD * 3 + b"q Q0 d x 1 t\n\xff\n",  # the first error wins, not a later one
        GOOD * 3 + b"\xff\n" + GOOD,
        GOOD.replace(b" ", b"\t") * 2,
        b"q Q0 d 0x10 1 t\n",
    ],
)
def test_edge_cases_read_in_chunks_as_the_reference(
    tmp_path: Path, data: bytes, chunk_bytes: int
) -> None:
    path = tmp_path / "run"
    path.write_bytes(data)
    check_chunked_as_reference(path, chunk_bytes)


@settings(_SETTINGS, max_examples=300)
@given(data=run_lines(), chunk_bytes=st.sampled_from(CHUNK_SIZES), gzipped=st.booleans())
def test_random_files_read_in_chunks_as_the_reference(
    tmp_path: Path, data: bytes, chunk_bytes: int, gzipped: bool
) -> None:
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(data) if gzipped else data)
    check_chunked_as_reference(path, chunk_bytes)


def test_a_bad_line_far_into_a_file_names_its_line_in_the_file(tmp_path: Path) -> None:
    lines = [f"q{n // 50} Q0 d{n} {n % 50 + 1} {1000 - n % 50} tag\n" for n in range(5000)]
    lines[3210] = "q64 Q0 d3210 eleven 1.5 tag\n"
    path = tmp_path / "run"
    path.write_text("".join(lines), "ascii")
    with pytest.raises(InputError) as caught:
        list(RunChunks(path, 1000))
    assert caught.value.line == 3211
    assert (str(caught.value), caught.value.line) == _reference(path)[1][::2]


def test_chunks_are_cut_between_queries_and_carry_a_long_query(tmp_path: Path) -> None:
    # one query of 400 lines spans many reads; the others are short
    lines = [f"a Q0 d{n} {n + 1} 1 t\n" for n in range(3)]
    lines += [f"long Q0 d{n} {n + 1} 1 t\n" for n in range(400)]
    lines += [f"z{n // 2} Q0 d{n} 1 1 t\n" for n in range(10)]
    path = tmp_path / "run"
    path.write_text("".join(lines), "ascii")
    reader = RunChunks(path, 256)
    chunks = list(reader)
    queries = [chunk.query_ids.to_pylist() for chunk in chunks]
    assert sum(len(chunk) for chunk in chunks) == reader.rows == 413
    # 256-byte reads: "long" spans 30 of them, yet is whole in one chunk
    assert [chunk.count("long") for chunk in queries if "long" in chunk] == [400]
    # every cut is between two queries
    assert len(chunks) >= 3
    for earlier, later in itertools.pairwise(queries):
        assert earlier[-1] != later[0]


def test_a_gzip_file_damaged_after_a_bad_line_is_reported_as_damaged(tmp_path: Path) -> None:
    # the whole-file reader reads every byte before parsing: the damage wins
    data = GOOD + b"q Q0 d x 1 t\n" + GOOD * 2000
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(data)[:-200])
    expected = _reference(path)
    assert expected[0] == "error" and "gzip" in expected[1][0]
    for by_query in (False, True):
        assert _chunked(path, 64, by_query=by_query) == expected
