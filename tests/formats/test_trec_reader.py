"""The reference TREC reader: what it accepts, and errors that name file and line."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgepool.core.terms.contract import Scale
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.limits import INT64_MAX, INT64_MIN, bounded_int
from judgepool.core.terms.tokens import parse_decimal
from judgepool.formats.trec import (
    parse_rank,
    parse_score,
    qrels_digest,
    read_qrels,
    read_run,
)


def test_whitespace_crlf_comments_extra_columns_and_gzip(tmp_path: Path) -> None:
    text = (
        "# a comment\r\nq\tQ0  A\t1 \t 2.5 tag extra columns\r\n\r\n"
        "   # indented comment\nq Q0 B 2 1e0 t\n"
    )
    plain = tmp_path / "run.txt"
    plain.write_bytes(text.encode())
    packed = tmp_path / "run.anything"
    packed.write_bytes(gzip.compress(text.encode()))
    for path in (plain, packed):
        run = read_run(path)
        assert [(e.query_id, e.doc_id, e.rank, e.score, e.line) for e in run.entries] == [
            ("q", "A", 1, 2.5, 2),
            ("q", "B", 2, 1.0, 5),
        ]
    assert read_run(plain).digest == read_run(packed).digest  # digest of the content


def test_collect_errors_reads_past_every_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_bytes(b"q Q0 A 1 3 t\n\xff Q0 B 2 2 t\nq Q0 C x 1 t\nq Q0 D 4 1 t\nq Q0 E 5 nan t")
    run = read_run(path, collect_errors=True)
    assert [e.doc_id for e in run.entries] == ["A", "D"]
    assert [b.line for b in run.bad_lines] == [2, 3, 5]
    assert "UTF-8" in run.bad_lines[0].message
    with pytest.raises(InputError, match=r":2: not valid UTF-8"):
        read_run(path)


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("q 0 A 1\nq 0 B 7\n", 2, "outside the scale 0..3; widen it with --scale 0..7"),
        ("q 0 A 1\nq 0 B 1.5\n", 2, "not an integer"),
        ("q 0 A 1\nq 0 A 2\n", 2, "judged twice (first at line 1)"),
        ("q 0 A\n", 1, "expected 4 columns"),
        ("q 0 A 1\nq 0 B -1", 2, "widen it with --scale -1..3"),
        # one number grammar: ASCII digits only, and bounded
        ("q 0 A １\n", 1, "grade '１' is not an integer"),
        ("q 0 A ٣\n", 1, "is not an integer"),
        ("q 0 A 1_0\n", 1, "is not an integer"),
        ("q 0 A 5000\n", 1, "outside what any scale can hold (-1000..1000)"),
        ("q 0 A " + "9" * 5000 + "\n", 1, "… (5,000 characters) is outside the scale"),
        # IDs the TREC formats cannot carry
        ("q 0 A 1\nq 0 #B 1\n", 2, "document ID '#B' cannot be used: it starts with '#'"),
        ("q\x1b 0 A 1\n", 1, "query ID 'q\\x1b' cannot be used"),
        ("q 0 A\u00a0B 1\n", 1, "document ID 'A\\xa0B' cannot be used"),
        ("q 0 A\u200b 1\n", 1, "U+200B"),
        # line ends: CR only is refused, never read as one line
        ("q 0 A 1\rq 0 B 2\r", 1, "a carriage return (CR) inside the line"),
        ("q 0 A 1\r\nq 0 B 2\rq 0 C 1\n", 2, "carriage return"),
    ],
)
def test_qrels_errors(tmp_path: Path, content: str, line: int, message: str) -> None:
    path = tmp_path / "qrels"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        read_qrels(path, Scale(0, 3))
    assert caught.value.line == line and caught.value.path == str(path)
    assert message in str(caught.value)


def test_qrels_digest_depends_on_the_set_not_the_order(tmp_path: Path) -> None:
    a = tmp_path / "a"
    a.write_text("q 0 A 1\nq 0 B 2\nr 0 A 0\n")
    b = tmp_path / "b"
    b.write_text("r 0 A 0\nq 0 B 2\nq 0 A 1\n")
    assert read_qrels(a, Scale()).digest == read_qrels(b, Scale()).digest
    assert qrels_digest({"q": {"A": 1}}) != qrels_digest({"q": {"A": 2}})


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_run(tmp_path / "missing")
    with pytest.raises(InputError, match="directory"):
        read_run(tmp_path)
    broken = tmp_path / "broken.gz"
    broken.write_bytes(gzip.compress(b"q Q0 A 1 1 t\n" * 100)[:40])
    with pytest.raises(InputError, match="cut short"):
        read_run(broken)


def test_qrels_with_a_bom_and_any_accepted_line_end_read_alike(tmp_path: Path) -> None:
    lines = ["q 0 A 1", "q 0 B 2", "r 0 A 0"]
    expected = read_qrels(_write(tmp_path / "plain", "\n".join(lines) + "\n"), Scale())
    for bom in ("", "\ufeff"):
        for end in ("\n", "\r\n"):
            for last in (end, ""):
                text = bom + end.join(lines) + last
                got = read_qrels(_write(tmp_path / "other", text), Scale())
                assert (got.judgments, got.digest) == (expected.judgments, expected.digest)


@pytest.mark.parametrize(
    ("content", "what"),
    [("", "is empty"), ("\n\n", "is empty"), ("# later\n  # more\n", "holds only comments")],
)
def test_a_qrels_file_without_a_judgment_is_refused(
    tmp_path: Path, content: str, what: str
) -> None:
    path = _write(tmp_path / "qrels", content)
    with pytest.raises(InputError, match=f"has no judgments: it {what}") as caught:
        read_qrels(path, Scale())
    assert caught.value.path == str(path) and caught.value.line is None


def test_run_numbers_follow_the_one_grammar(tmp_path: Path) -> None:
    for rank, score in (("１", "1"), ("1", "１.５"), ("1_0", "1"), ("1", "1_0"), ("٣", "1")):
        path = _write(tmp_path / "run", f"q Q0 d {rank} {score} t\n")
        with pytest.raises(InputError, match=r"is not (an integer|a finite number)"):
            read_run(path)


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


_NUMBER_TEXT = st.text(
    st.sampled_from([*"0123456789+-.eE_ xXnaifINF", "\x0c", "\x1f", "١", "１", "\u00a0"]),
    max_size=12,
)


@settings(max_examples=3000, deadline=None)
@given(text=_NUMBER_TEXT)
def test_the_readers_number_shortcuts_are_the_one_grammar(text: str) -> None:
    assert parse_score(text) == parse_decimal(text)
    try:
        expected: int | None = bounded_int(text, INT64_MIN, INT64_MAX)
    except ValueError:
        expected = None
    try:
        got: int | None = parse_rank(text)
    except ValueError:
        got = None
    assert got == expected


def test_rank_shortcut_edges() -> None:
    assert parse_rank("9" * 18) == int("9" * 18)
    assert parse_rank("9223372036854775807") == 2**63 - 1
    assert parse_rank("-9223372036854775808") == -(2**63)
    for text in ("9223372036854775808", "9" * 5000, "１", ""):
        with pytest.raises(ValueError, match="rank"):
            parse_rank(text)
