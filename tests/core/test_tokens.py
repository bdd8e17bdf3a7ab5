"""The one grammar of IDs, names and numbers (`judgepool.core.terms.tokens`)."""

from __future__ import annotations

import pytest

from judgepool.core.terms.tokens import (
    id_problem,
    name_problem,
    parse_decimal,
    parse_int,
    reserved_name,
)


@pytest.mark.parametrize(
    "text",
    [
        "d1",
        "1030303",
        "msmarco_passage_00_123",
        "http://x.org/a?b=c#frag",
        "文書",
        "doc12#3",
        "é" * 300,
    ],
)
def test_ids_that_are_tokens_are_accepted(text: str) -> None:
    assert id_problem(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a b",
        "zzz 3\n1030303 0 fake1",
        "a\tb",
        "a\rb",
        "#1",
        "x\x1b[2J",
        "x\x7f",
        "x\x85",
        "x\u00a0y",
        "x\u3000y",
        "x\u202ey",
        "x\u2066y",
        "x\u200by",
        "\ufeffq1",
        "x\udc80",
    ],
)
def test_ids_that_formats_or_terminals_cannot_carry_are_refused(text: str) -> None:
    assert id_problem(text) is not None


def test_names_allow_inner_spaces_but_no_controls() -> None:
    assert name_problem("Alice Smith") is None
    for bad in ["", " alice", "alice ", "a\x1b]0;pwned\x07", "a\u202eb", "a\tb", "a\nb", "a\x9bb"]:
        assert name_problem(bad) is not None, bad


def test_provenance_prefixes_are_reserved() -> None:
    assert reserved_name("import:qrels.txt") and reserved_name("model:gpt")
    assert not reserved_name("alice") and not reserved_name("importer")


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0), ("-1", -1), ("+4", 4), ("007", 7), ("99999999999999999999", 10**20 - 1)],
)
def test_integers_in_ascii(text: str, value: int) -> None:
    assert parse_int(text) == value


@pytest.mark.parametrize("text", ["", "+", "1.0", "１", "٣", "1_0", "0x10", " 1", "1 ", "١٢"])
def test_integers_in_other_scripts_or_shapes_are_refused(text: str) -> None:
    assert parse_int(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.5", 1.5), (".5", 0.5), ("5.", 5.0), ("-2e-3", -0.002), ("+.5e+2", 50.0), ("3", 3.0)],
)
def test_decimals_in_ascii(text: str, value: float) -> None:
    assert parse_decimal(text) == value


@pytest.mark.parametrize(
    "text", ["", ".", "e5", "inf", "-inf", "nan", "NaN", "1e999", "１.５", "1_0.5", "0x1p3", "1,5"]
)
def test_non_finite_and_non_ascii_decimals_are_refused(text: str) -> None:
    assert parse_decimal(text) is None
