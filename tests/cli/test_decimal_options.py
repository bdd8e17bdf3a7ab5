"""Options that take a fraction or seconds read a finite ASCII decimal within
their bounds (`judgepool.cli.params.AsciiDecimal`): ``nan`` compares false
with every bound, so a range check alone lets it through (``compare
--confidence nan`` was accepted), and ``inf``, ``1_0`` and ``１`` are no
numbers to a file reader either."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import Result

from judgepool.cli.params import AsciiDecimal
from tests.cli.conftest import ranked, write_qrels, write_run


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nan", "'nan' is not a finite number in ASCII digits"),
        ("NaN", "'NaN' is not a finite number"),
        ("-nan", "'-nan' is not a finite number"),
        ("inf", "'inf' is not a finite number"),
        ("1e999", "'1e999' is not a finite number"),
        ("0_9", "'0_9' is not a finite number"),
        ("０.９", "is not a finite number"),
        ("0.5", "'0.5' is not a number more than 0.5 and at most 1"),
        ("1.01", "'1.01' is not a number more than 0.5 and at most 1"),
        ("", "'' is not a finite number"),
    ],
)
def test_compare_refuses_a_confidence_that_is_no_share(
    cli: Callable[..., Result], tmp_path: Path, value: str, message: str
) -> None:
    qrels = write_qrels(tmp_path / "q.qrels", {"q1": {"a": 1, "b": 0}})
    one = write_run(tmp_path / "one.trec", ranked("q1", ["a", "b"]), tag="one")
    two = write_run(tmp_path / "two.trec", ranked("q1", ["b", "a"]), tag="two")
    result = cli("compare", one, two, "--qrels", qrels, "--confidence", value)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--confidence'" in result.stderr
    assert message in result.stderr and "Traceback" not in result.output


def test_compare_takes_a_confidence_within_its_bounds(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels = write_qrels(tmp_path / "q.qrels", {"q1": {"a": 1, "b": 0}})
    one = write_run(tmp_path / "one.trec", ranked("q1", ["a", "b"]), tag="one")
    two = write_run(tmp_path / "two.trec", ranked("q1", ["b", "a"]), tag="two")
    for value in ("1", "0.9", " .75", "9e-1"):
        result = cli("compare", one, two, "--qrels", qrels, "--confidence", value)
        assert result.exit_code == 0, result.output


def test_the_bounds_and_their_ends() -> None:
    closed = AsciiDecimal(0, 10)
    assert closed.convert("0", None, None) == 0.0 and closed.convert("10", None, None) == 10.0
    assert closed.convert(2.5, None, None) == 2.5  # a default given as a number
    opened = AsciiDecimal(0, 10, low_open=True, high_open=True)
    for value, says in (("0", "more than 0 and less than 10"), ("10", "less than 10")):
        with pytest.raises(click.BadParameter, match=says):
            opened.convert(value, None, None)
    with pytest.raises(click.BadParameter, match="nan is not a finite number"):
        closed.convert(float("nan"), None, None)
