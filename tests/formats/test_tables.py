"""Reading queries and documents from TSV and JSONL files."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.formats.tables import TableRow, read_table


def test_tsv_with_crlf_bom_blank_lines_and_optional_third_column(tmp_path: Path) -> None:
    path = tmp_path / "topics.txt"
    path.write_bytes(
        b"\xef\xbb\xbf1037798\twho is robert gray\r\n\r\n264014\thow long\tlong narrative\n"
    )
    assert read_table(path, "queries") == [
        TableRow("1037798", "who is robert gray", None, 1),
        TableRow("264014", "how long", "long narrative", 3),
    ]


def test_text_keeps_spaces_markup_and_escapes_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "docs.tsv"
    path.write_text("d1\t  [bold]x[/bold] \x1b[2J  \n", encoding="utf-8")
    assert read_table(path, "documents")[0].text == "  [bold]x[/bold] \x1b[2J  "


def test_jsonl_is_recognised_by_name_or_content(tmp_path: Path) -> None:
    lines = b'{"_id": 7, "title": "T", "text": "body", "metadata": {}}\n{"id": "x", "text": ""}\n'
    for name in ("corpus.jsonl", "corpus.data"):
        path = tmp_path / name
        path.write_bytes(lines)
        assert read_table(path, "documents") == [
            TableRow("7", "body", "T", 1),
            TableRow("x", "", None, 2),
        ]
    gz = tmp_path / "corpus.jsonl.gz"
    gz.write_bytes(gzip.compress(lines))
    assert len(read_table(gz, "documents")) == 2


def test_the_third_field_depends_on_the_kind(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "q1", "text": "t", "narrative": "n", "title": "ignored"}\n')
    assert read_table(path, "queries")[0].extra == "n"
    assert read_table(path, "documents")[0].extra == "ignored"


@pytest.mark.parametrize(
    ("name", "content", "line", "message"),
    [
        ("a.tsv", b"q1\tone\nq2\tone\ttwo\tthree\n", 2, "found 4"),
        ("a.tsv", b"q1\tone\n\n\nq1\tagain", 4, "first at line 1"),
        ("a.jsonl", b'{"id": "q1", "text": 5.5}\n', 1, "'text' must be a string"),
        ("a.jsonl", b'{"id": true, "text": "x"}\n', 1, "'id' must be a string"),
        ("a.jsonl", b'{"id": "  ", "text": "x"}\n', 1, "no non-empty 'id'"),
        ("a.tsv", b"q1\tok\nq2\t\xc3\n", 2, "UTF-8"),
        ("a.tsv", b"q1\tone\rq2\ttwo\r", 1, "carriage return"),
        ("a.tsv", b"q1\tone\r\nq2\ttw\ro\r\n", 2, "carriage return"),
        ("a.tsv", b"q 1\tone\n", 1, "query ID 'q 1' cannot be used"),
        ("a.tsv", b"#q1\tone\n", 1, "starts with '#'"),
        ("a.tsv", "q\u202e1\tone\n".encode(), 1, "U+202E"),
        ("a.tsv", "\u00a0q1\tone\n".encode(), 1, "U+00A0"),
        ("a.tsv", b"q\x1b[2J\tone\n", 1, "query ID 'q\\x1b[2J'"),
        ("a.jsonl", b'{"id": "q1", "text": "x", "id": "q2"}\n', 1, "names the key 'id' twice"),
        ("a.jsonl", b'{"id": "q1", "text": {"a": 1, "a": 2}}\n', 1, "names the key 'a' twice"),
        (
            "a.jsonl",
            b'{"id": "q1", "text": "x", "n": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
            1,
            "nested too deeply",
        ),
        ("a.jsonl", b'{"id": "q1", "text": "\\udfff"}\n', 1, "lone surrogate (\\udfff)"),
        ("a.jsonl", b'{"id": "q1", "text": "x", "narrative": "\\ud800"}\n', 1, "'narrative' holds"),
        ("a.jsonl", b'{"id": "q\\u0000", "text": "x"}\n', 1, "U+0000"),
    ],
)
def test_errors_name_file_and_line(
    tmp_path: Path, name: str, content: bytes, line: int, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=re.escape(message)) as caught:
        read_table(path, "queries")
    assert (caught.value.path, caught.value.line) == (str(path), line)


def test_escaped_surrogate_pairs_and_long_integers_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    digits = "1" * 5000
    path.write_bytes(
        b'{"id": "q1", "text": "\\ud83d\\ude00 ok"}\n{"id": ' + digits.encode() + b', "text": 7}\n'
    )
    assert read_table(path, "queries") == [
        TableRow("q1", "\U0001f600 ok", None, 1),
        TableRow(digits, "7", None, 2),
    ]


def test_spaces_around_an_id_are_dropped_and_crlf_and_bom_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "q.tsv"
    path.write_bytes(b"\xef\xbb\xbf q1 \tone\r\nq2\ttwo")
    assert [row.id for row in read_table(path, "queries")] == ["q1", "q2"]
