"""The fast run reader reads exactly what the reference reader reads.

Every test writes real files and compares `read_run_columns` (and the in-memory
tiers of `parse_run_bytes`) with `formats.trec.read_run`: the same entries, line
numbers and digest, or the same `InputError` (message, file and line).
"""

from __future__ import annotations

import gzip
import itertools
import math
import random
import re
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgepool.core.terms.errors import InputError
from judgepool.formats.fast_run import ParsedRun, parse_run_bytes, read_run_columns
from judgepool.formats.fast_run import blocks as run_blocks
from judgepool.formats.fast_run import stream as run_stream
from judgepool.formats.trec import read_run

Outcome = tuple[str, Any]


def _rows(parsed: ParsedRun) -> list[tuple[str, str, int, float, int]]:
    lines = parsed.lines.tolist() if parsed.lines is not None else range(1, len(parsed.scores) + 1)
    return list(
        zip(
            parsed.query_ids.to_pylist(),
            parsed.doc_ids.to_pylist(),
            parsed.ranks.tolist(),
            parsed.scores.tolist(),
            lines,
            strict=True,
        )
    )


def _reference(path: Path) -> Outcome:
    try:
        run = read_run(path)
    except InputError as exc:
        return ("error", (str(exc), exc.path, exc.line))
    return ("ok", ([tuple(e) for e in run.entries], run.digest))


def _fast(path: Path) -> Outcome:
    try:
        columns = read_run_columns(path)
    except InputError as exc:
        return ("error", (str(exc), exc.path, exc.line))
    assert columns.lines is None or columns.lines.dtype == np.int64
    assert columns.scores.dtype == np.float64 and columns.ranks.dtype == np.int64
    assert len(columns) == len(columns.line_numbers())
    return ("ok", (_rows(columns), columns.digest))  # type: ignore[arg-type]


def _in_memory(
    data: bytes, path: Path, *, fast: bool, block_bytes: int | None = None, smallest: int = 0
) -> Outcome:
    saved = run_blocks.BLOCK_BYTES, run_blocks.SMALLEST_SPAN
    if block_bytes is not None:
        run_blocks.BLOCK_BYTES = block_bytes  # type: ignore[misc]
        run_blocks.SMALLEST_SPAN = smallest  # type: ignore[misc]
    try:
        parsed = parse_run_bytes(data, str(path), fast=fast)
    except InputError as exc:
        return ("error", (str(exc), exc.path, exc.line))
    finally:
        run_blocks.BLOCK_BYTES, run_blocks.SMALLEST_SPAN = saved  # type: ignore[misc]
    return ("ok", _rows(parsed))


def check_all_readers_agree(
    tmp_path: Path, data: bytes, name: str = "run", *, tiny_blocks: bool = True
) -> Outcome:
    """Assert every reader (and every tier) agrees with the reference on ``data``."""
    path = tmp_path / name
    path.write_bytes(data)
    expected = _reference(path)
    assert _fast(path) == expected
    without_digest = expected if expected[0] == "error" else ("ok", expected[1][0])
    assert _in_memory(data, path, fast=True) == without_digest
    assert _in_memory(data, path, fast=False) == without_digest
    if tiny_blocks:
        # blocks of a few lines: tiers 2 and 3 side by side, line numbers carried over
        assert _in_memory(data, path, fast=True, block_bytes=17, smallest=10**9) == without_digest
        # blocks split, and split again, down to single lines where the parser fails
        assert _in_memory(data, path, fast=True, block_bytes=100, smallest=1) == without_digest
    return expected


GOOD = b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d1 1 0.5 tag\n"


@pytest.mark.parametrize(
    "data",
    [
        GOOD,
        GOOD.rstrip(b"\n"),  # no newline at the end
        GOOD.replace(b"\n", b"\r\n"),
        b"",
        b"\n",
        b"\n\n\n",
        b"# only a comment\n",
        b"# comment\n" + GOOD,
        GOOD + b"# trailing comment\n",
        GOOD.replace(b"q2", b"#q2"),  # a comment line among data
        b"   # indented comment\n" + GOOD,
        GOOD.replace(b" ", b"\t"),
        GOOD.replace(b" Q0 ", b" \t Q0  "),
        b" " + GOOD,
        GOOD.replace(b"tag\n", b"tag \n"),
        GOOD.replace(b"tag\n", b"tag \t\r\n"),
        GOOD.replace(b"tag\n", b"tag extra columns here\n"),
        GOOD + b"\n  \t \r\n" + GOOD,  # blank lines
        b"\xef\xbb\xbf" + GOOD,  # a byte order mark is not part of the first query ID
        b"\xef\xbb\xbf" + GOOD.replace(b" ", b"\t"),
        b"\xef\xbb\xbf# comment\n" + GOOD,
        b"\xef\xbb\xbf\xef\xbb\xbf" + GOOD,  # a second one is: refused
        b"\xef\xbb\xbf",
        GOOD + b"\xef\xbb\xbfq3 Q0 d 1 2 t\n",  # inside the file: refused
        GOOD.replace(b"tag\nq1", b"tag\rq1"),  # a lone CR: refused
        GOOD.replace(b"\n", b"\r"),  # CR-only line ends
        GOOD.replace(b"\n", b"\r").rstrip(b"\r"),
        GOOD.replace(b"\n", b"\r\n", 1).replace(b"\n", b"\r", 2),  # mixed
        GOOD + b"q3 Q0 d3 1 2 tag\r",  # CR at the very end
        GOOD + b"q3 Q0 d3 1 2 tag\n\r",
        GOOD.replace(b"tag\n", b"tag\r\r\n", 1),
        b"\xef\xbb\xbfq1 Q0 d1 0 0.0 tag\r \n",  # blanks between CR and LF: refused
        b"q1 Q0 d1 0 0.0 tag\r\t\n",
        GOOD.replace(b"tag\n", b"tag\r  \n", 1),
        b"q Q0 d\r 1 2 t\n",
        GOOD.replace(b" Q0 ", b" 0 "),  # Q0 column spelled like a number
        b"q 0 d 0 0 0\nq 0 e 1 0 0\n",  # every column the same value
        b"q Q0 d 1 Q0 Q0\n",  # score spelled like the Q0 column: not a number
        b"q Q0 d 1 2 T\nq Q0 e 2 1 U\nq Q0 f 3 0 T\n",  # tags differ between lines
        b"q Q0 d 1 2 t\nq Q0 e 2 1 \n",  # empty tag: five columns
        b"q Q0 d 1 2 t\nq  e 2 1 t\n",  # empty Q0: five columns
        b"q Q0 d 0x10 1 t\n",  # hexadecimal rank
        b"q Q0 d 0X1f 1 t\n",
        b"q Q0 d#0x 1 1 t\nq Q0 x0x 2 1 0x\n",  # x and 0x elsewhere are fine
        b"q Q0 d +5 1 t\n",  # a plus sign: an integer for the reference
        b"q Q0 d -0 -0 t\nq Q0 e 007 -0.0 t\n",
        b"q Q0 d 1 nan t\n",
        b"q Q0 d 1 inf t\n",
        b"q Q0 d 1 -Infinity t\n",
        b"q Q0 d 1 1e999 t\n",
        b"q Q0 d 1 1e-999 t\n",
        b"q Q0 d 1 1_0 t\n",
        b"q Q0 d 1 0x10 t\n",
        b"q Q0 d 1.0 1 t\n",
        b"q Q0 d 1e3 1 t\n",
        b"q Q0 d 1 .5 t\nq Q0 e 2 5. t\nq Q0 f 3 +.5e-3 t\nq Q0 g 4 1E+5 t\n",
        b"q Q0 d 1 2\n",  # five columns
        b"q Q0 d\n",
        GOOD + b"bad line\n" + GOOD,
        GOOD + b"q Q0 d x 1 t\n\xff\n",  # the first error wins, not a later one
        GOOD + b"\xff\n" + b"q Q0 d x 1 t\n",
        b"q\xff Q0 d 1 2 t\n",
        b"q Q0 d 1 2 t\xff\n",  # invalid UTF-8 in a column pyarrow does not convert
        b"q Q\xff0 d 1 2 t\n",
        b"q\x0bQ0 d 1 2 t\n",  # vertical tab: not a separator
        b"q Q0 d 1 \x0c2 t\n",  # float() strips it; pyarrow does not parse it
        "q Q0 dé 1 2 t\nq Q0 d\u00a0x 2 1 t\n".encode(),  # non-ASCII, no-break space
        "q Q0 d 1 ١٢ t\n".encode(),  # Arabic-Indic digits: float() accepts them, not we
        "q Q0 d ١ 2 t\n".encode(),
        "q Q0 d 1 １.５ t\n".encode(),  # full-width digits
        "q Q0 d １ 1 t\n".encode(),
        b"q Q0 d 1_0 1 t\n",
        b"q Q0 d 9223372036854775807 1 t\nq Q0 e -9223372036854775808 1 t\n",  # int64 bounds
        b"q Q0 d 9223372036854775808 1 t\n",  # beyond: refused
        b"q Q0 d -9223372036854775809 1 t\n",
        b"q Q0 d 000000000000000000000000001 1 t\n",  # leading zeros: small
        b"q Q0 d " + b"9" * 5000 + b" 1 t\n",  # beyond what int() converts
        b"q Q0 d 1 " + b"9" * 5000 + b" t\n",  # a score of 5000 digits: beyond a double
        # IDs the TREC formats cannot carry, and some they can
        b"q Q0 #d 1 2 t\n",  # a document ID starting with '#'
        b"q Q0 d#1 1 2 t\nq# Q0 d 1 2 t\n",  # '#' inside is fine
        b"q Q0 d\x01 1 2 t\n",
        b"q\x1b[2J Q0 d 1 2 t\n",
        b"q Q0 d\x7f 1 2 t\n",
        b"q Q0 d\x1f 1 2 t\n",
        "q Q0 d\u0085 1 2 t\n".encode(),  # C1
        "q Q0 d\u00a0x 1 2 t\n".encode(),  # no-break space
        "q Q0 d\u3000x 1 2 t\n".encode(),
        "q\u202e Q0 d 1 2 t\n".encode(),  # bidi override
        "q Q0 d\u200b 1 2 t\n".encode(),  # zero-width space
        "q Q0 d\u2028 1 2 t\n".encode(),
        "q Q0 d\ufeff 1 2 t\n".encode(),
        "q Q0 d\U000e0041 1 2 t\n".encode(),  # a tag character
        "q Q0 d 1 2 t\u202e\n".encode(),  # in the tag column: not an ID, fine
        "q Q0 d–x 1 2 t\nq Q0 文書 2 1 t\nq Q0 é 3 0 t\n".encode(),  # allowed non-ASCII
        b'"q" Q0 "d 1 2 t\n',  # quotes are ordinary characters
    ],
)
def test_edge_cases_match_the_reference(tmp_path: Path, data: bytes) -> None:
    check_all_readers_agree(tmp_path, data)


def test_gzip_is_read_and_digested_uncompressed(tmp_path: Path) -> None:
    plain = tmp_path / "run.txt"
    plain.write_bytes(GOOD)
    packed = tmp_path / "run.anything"
    packed.write_bytes(gzip.compress(GOOD))
    assert _fast(packed) == _reference(packed) == _fast(plain)
    broken = tmp_path / "broken.gz"
    broken.write_bytes(gzip.compress(GOOD)[:-6])
    assert _fast(broken) == _reference(broken)
    assert _fast(broken)[0] == "error"


def test_missing_file_and_directory_are_input_errors(tmp_path: Path) -> None:
    for path in (tmp_path / "absent", tmp_path):
        expected = _reference(path)
        assert expected[0] == "error"
        assert _fast(path) == expected


def test_a_large_file_streams_in_many_blocks_and_finds_a_late_error(tmp_path: Path) -> None:
    # about 1.7 MB: several of pyarrow's read blocks and (with 256 kB blocks) of tier 2
    rng = random.Random(7)
    lines = [
        f"q{i // 1000} Q0 doc-{rng.randrange(10**9)} {i % 1000 + 1} {rng.random() * 20:.4f} run\n"
        for i in range(36_000)
    ]
    data = "".join(lines).encode()
    saved = run_blocks.BLOCK_BYTES, run_blocks.SMALLEST_SPAN
    run_blocks.BLOCK_BYTES, run_blocks.SMALLEST_SPAN = 1 << 18, 1 << 12  # type: ignore[misc]
    try:
        good = check_all_readers_agree(tmp_path, data, tiny_blocks=False)
        assert good[0] == "ok" and len(good[1][0]) == 36_000
        crlf = check_all_readers_agree(tmp_path, data.replace(b"\n", b"\r\n"), tiny_blocks=False)
        assert crlf[0] == "ok"
        lines[30_321] = lines[30_321].replace(" run\n", " run\r\n")
        lines[30_322] = "# a comment\n"
        lines[31_555] = lines[31_555].replace(" Q0 ", " Q0 \t ")
        lines[34_000] = "q Q0 doc 0x7 1.0 run\n"
        late = check_all_readers_agree(tmp_path, "".join(lines).encode(), tiny_blocks=False)
        assert late[0] == "error" and late[1][2] == 34_001
    finally:
        run_blocks.BLOCK_BYTES, run_blocks.SMALLEST_SPAN = saved  # type: ignore[misc]


def test_the_fast_tier_is_what_reads_a_regular_file(tmp_path: Path) -> None:
    # guards the speed of the common case: no fallback for a plain run file
    path = tmp_path / "run"
    path.write_bytes(GOOD * 100)
    assert run_stream.read_streaming(path) is not None
    assert run_stream.parse_regular(GOOD * 100) is not None
    path.write_bytes(GOOD.replace(b" ", b"\t"))  # tab-separated: read as spaces
    assert run_stream.read_streaming(path) is not None
    path.write_bytes(GOOD.replace(b" Q0", b"\t Q0"))  # a tab and a space: irregular
    assert run_stream.read_streaming(path) is None


# ----------------------------------------------------------------------- properties

_TOKENS = st.sampled_from(
    [
        "q1",
        "q2",
        "é",
        "d1",
        "doc-with-a-long-prefix-1",
        "0",
        "1",
        "-3",
        "+4",
        "007",
        "2.5",
        "-0",
        "1e3",
        "nan",
        "inf",
        "1_0",
        "0x1F",
        "x",
        "#",
        "#c",
        "Q0",
        "tag",
        "\u00a0",
        "٣",
        "１",
        "d\x01",
        "d\x7f",
        "d\x85",
        "d\u202e",
        "\u200bd",
        "d\ufeff",
        "d\u3000",
        "9223372036854775808",
    ]
)
_SEPARATORS = st.sampled_from([" ", " ", " ", " ", "  ", "\t", " \t"])


@st.composite
def run_lines(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 9))
        if kind <= 5:  # a plain line
            columns = [
                draw(st.sampled_from(["q1", "q2", "é"])),
                "Q0",
                draw(st.sampled_from(["d1", "d2", "doc-with-a-long-prefix-1"])),
                str(draw(st.integers(-3, 20))),
                repr(draw(st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 2)))),
                "tag",
            ]
        elif kind == 6:  # random tokens
            columns = draw(st.lists(_TOKENS, min_size=0, max_size=8))
        elif kind == 7:
            columns = ["#", "a", "comment"]
        else:
            columns = [draw(_TOKENS) for _ in range(6)]
        text = ""
        for i, column in enumerate(columns):
            text += (draw(_SEPARATORS) if i else draw(st.sampled_from(["", "", "", " "]))) + column
        text += draw(st.sampled_from(["", "", "", " ", "\t"]))
        raw = text.encode()
        if draw(st.integers(0, 30)) == 0:
            raw += b"\xff"
        # blanks after a CR: the reference refuses the CR, a regularising parser
        # that drops the blanks would read a CR LF line end (found by hypothesis)
        ends = [b"\n", b"\n", b"\n", b"\r\n", b"\r", b"\r \n", b"\r\t\n", b"\r  \n", b" \r\n"]
        lines.append(raw + draw(st.sampled_from(ends)))
    data = b"".join(lines)
    if draw(st.booleans()):
        data = data.rstrip(b"\n")
    if draw(st.integers(0, 4)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


_EXAMPLES = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings(_EXAMPLES, max_examples=300)
@given(data=run_lines())
def test_random_files_read_as_the_reference_reads_them(tmp_path: Path, data: bytes) -> None:
    check_all_readers_agree(tmp_path, data)


@settings(_EXAMPLES, max_examples=300)
@given(
    lines=st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2", "q3"]),
            st.sampled_from(["Q0", "0"]),
            st.text("abcdé#", min_size=1, max_size=12).map(lambda d: "d" + d),
            st.integers(-(2**63), 2**63 - 1),
            st.floats(allow_nan=False, allow_infinity=False),
            st.sampled_from(["run", "0", "x"]),
        ),
        max_size=20,
    ),
    crlf=st.booleans(),
)
@pytest.mark.slow
def test_well_formed_runs_take_the_fast_tier(
    tmp_path: Path, lines: list[tuple[str, str, str, int, float, str]], crlf: bool
) -> None:
    end = "\r\n" if crlf else "\n"
    text = "".join(f"{q} {z} {d} {r} {s!r} {t}{end}" for q, z, d, r, s, t in lines)
    expected = check_all_readers_agree(tmp_path, text.encode())
    assert expected[0] == "ok"
    if lines:
        assert run_stream.read_streaming(tmp_path / "run") is not None


def _hard_decimal(value: float, where: int, digits: int) -> str:
    """A decimal near ``value``: the exact midpoint between it and the next
    double (``where`` 0), or that midpoint moved by one unit in its
    ``digits``-th significant digit (``where`` ±1): the texts a parser that
    does not round correctly reads one double off. `ranking.compared_score`
    narrows the double to a float as trec_eval 9 does, so every reader must
    give the double ``float()`` gives."""
    with localcontext() as context:
        context.prec = 1000  # every digit of a double's expansion: sums are exact
        exact = (Decimal(value) + Decimal(math.nextafter(value, math.inf))) / 2
        if where:
            exponent = exact.adjusted() - digits + 1
            exact += where * Decimal(10) ** exponent
        return format(exact, "e")


@settings(_EXAMPLES, max_examples=200)
@given(
    scores=st.lists(
        st.tuples(
            st.floats(-1e6, 1e6, allow_nan=False).filter(lambda x: x != 0),
            st.integers(-1, 1),
            st.integers(17, 40),
        ).map(lambda drawn: _hard_decimal(*drawn))
        | st.integers(10**20, 10**25).map(lambda n: f"68.{n}"),  # many decimals
        min_size=1,
        max_size=12,
    )
)
def test_long_decimals_are_read_as_the_double_they_denote(
    tmp_path: Path, scores: list[str]
) -> None:
    text = "".join(f"q Q0 d{i} {i + 1} {score} t\n" for i, score in enumerate(scores))
    expected = check_all_readers_agree(tmp_path, text.encode(), tiny_blocks=False)
    assert expected[0] == "ok"
    assert [entry[3] for entry in expected[1][0]] == [float(score) for score in scores]


_SPECIAL = b" \r\n0x\tX#\xef\xbb\xbf"


def _scan_reference(data: bytes) -> tuple[bool, bool, bool]:
    lone_cr = any(data[i] == 13 and data[i + 1] != 10 for i in range(len(data) - 1))
    irregular = (
        data.startswith(b"\xef\xbb\xbf")
        or b"\t" in data
        or re.search(rb" 0[xX]", data) is not None
        or lone_cr
    )
    return irregular, b"#" in data, data.isascii()


@settings(max_examples=500, deadline=None)
@given(
    data=st.binary(max_size=40).map(
        lambda b: bytes(c if c % 5 else _SPECIAL[c % len(_SPECIAL)] for c in b)
    ),
    cuts=st.lists(st.integers(0, 40), max_size=6),
)
def test_the_scanner_sees_the_same_across_chunk_boundaries(data: bytes, cuts: list[int]) -> None:
    scanner = run_stream.Scanner()
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    for lo, hi in itertools.pairwise(points):
        scanner.feed(data[lo:hi])
    assert (scanner.irregular, scanner.comment_mark, scanner.ascii) == _scan_reference(data)
