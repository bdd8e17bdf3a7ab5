"""formats.source.listed_lines: the one reading of the small list files
(``assign --queries FILE``, ``prelabel --items FILE``)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.formats.id_list import read_id_list
from judgepool.formats.item_list import read_item_list
from judgepool.formats.source import listed_lines


def test_bom_line_ends_blank_lines_and_comments(tmp_path: Path) -> None:
    path = tmp_path / "list"
    path.write_bytes("\ufeffq1\r\n\r\n# a comment\n   \nq2 d2\nq3 — ü".encode())
    assert list(listed_lines(path)) == [(1, "q1"), (5, "q2 d2"), (6, "q3 — ü")]
    gzipped = tmp_path / "list.gz"
    gzipped.write_bytes(gzip.compress(path.read_bytes()))
    assert list(listed_lines(gzipped)) == list(listed_lines(path))


def test_a_line_not_utf8_is_refused_with_its_number(tmp_path: Path) -> None:
    path = tmp_path / "list"
    path.write_bytes(b"q1\td1\nq2\td\xff2\n")
    with pytest.raises(InputError) as raised:
        list(listed_lines(path))
    assert raised.value.line == 2 and "not UTF-8" in str(raised.value)
    for reader in (read_id_list, read_item_list):
        with pytest.raises(InputError) as raised:
            reader(path)
        assert raised.value.line == 2


def test_both_readers_take_the_same_lines(tmp_path: Path) -> None:
    path = tmp_path / "list"
    path.write_bytes(b"\xef\xbb\xbf# items\r\nq1\td1\r\n\r\nq2\t0\td2\t1\r\n")
    assert read_id_list(path) == [(2, "q1"), (4, "q2")]
    assert read_item_list(path) == [("q1", "d1"), ("q2", "d2")]
