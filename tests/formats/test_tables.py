"""Reading queries and documents from TSV and JSONL files."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from judgepool.core.errors import InputError
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
    ],
)
def test_errors_name_file_and_line(
    tmp_path: Path, name: str, content: bytes, line: int, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as caught:
        read_table(path, "queries")
    assert (caught.value.path, caught.value.line) == (str(path), line)
