"""``audit --engine`` and ``score --audit``: the fast audit (the default) prints
what the reference audit prints, and ``score --audit`` gives the scores and
the audit of one pass, from files and from a workspace."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli.conftest import write_qrels
from tests.cli.test_score_workspace import workspace  # noqa: F401  (a fixture)

JUDGED = {"q1": {"A": 3, "B": 0, "C": 1}, "q2": {"A": 0}, "absent": {"Z": 2}}
# duplicates, an unjudged document, ties across the cutoff, a rank column that
# disagrees, an unknown query, a short list, a zero-IDCG query and bad lines
RUN = (
    "q1 Q0 A 1 3.0 t\n"
    "q1 Q0 X 2 2.0 t\n"
    "q1 Q0 B 3 2.0 t\n"
    "q1 Q0 A 4 2.0 t\n"
    "q1 Q0 C 5 2.5 t\n"
    "# a comment\n"
    "q2 Q0 A 1 1.0 t\n"
    "q2 Q0 B x 1.0 t\n"
    "stray Q0 A 1 1.0 t\n"
    "q1 Q0 D 6 nan t"
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = write_qrels(tmp_path / "qrels", JUDGED)
    run = tmp_path / "run"
    run.write_text(RUN)
    return qrels, run


@pytest.mark.parametrize("output_format", ["json", "table"])
def test_the_fast_audit_prints_what_the_reference_audit_prints(
    cli: Callable[..., Result], files: tuple[Path, Path], output_format: str
) -> None:
    qrels, run = files
    args = ("audit", run, "--qrels", qrels, "-k", "3", "--format", output_format)
    fast = cli(*args)
    reference = cli(*args, "--engine", "reference")
    assert fast.exit_code == reference.exit_code == 0, fast.output
    assert fast.stdout == reference.stdout
    if output_format == "json":
        findings = json.loads(fast.stdout)["findings"]
        assert all(findings[kind] for kind in findings), findings
        assert [b["line"] for b in findings["bad_lines"]] == [8, 10]


def test_score_with_audit_prints_both_from_one_pass(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels = write_qrels(tmp_path / "qrels", JUDGED)
    run = tmp_path / "run"
    run.write_text("".join(line + "\n" for line in RUN.splitlines()[:7]))
    args = ("--qrels", qrels, "-k", "3", "--unjudged", "zero", "--duplicates", "first")
    args = (*args, "--format", "json")
    both = cli("score", run, *args, "--audit")
    assert both.exit_code == 0, both.output
    score_line, audit_line = both.stdout.splitlines()
    assert score_line == cli("score", run, *args).stdout.strip()
    assert audit_line == cli("audit", run, *args).stdout.strip()
    reference = cli("score", run, *args, "--audit", "--engine", "reference")
    assert reference.stdout == both.stdout


def test_score_with_audit_refuses_as_score_does(
    cli: Callable[..., Result], files: tuple[Path, Path]
) -> None:
    qrels, run = files
    # a bad line: refused, naming the first, as score refuses it
    result = cli("score", run, "--qrels", qrels, "--audit")
    assert result.exit_code == 2 and f"{run}:8:" in result.stderr
    # the contract's refusal stands too
    clean = run.with_name("clean")
    clean.write_text("q1 Q0 X 1 1.0 t\n")
    result = cli("score", clean, "--qrels", qrels, "--audit")
    assert result.exit_code == 1 and "unjudged" in result.stderr
    result = cli("score", clean, "--qrels", qrels, "--audit", "--format", "trec")
    assert result.exit_code == 2 and "--audit" in result.output


def test_a_stored_run_audited_and_scored_by_both_engines(
    cli: Callable[..., Result],
    workspace: Path,  # noqa: F811
) -> None:
    for name in ("splade", "bm25"):
        args = ("--workspace", workspace, "--format", "json", "--unjudged", "zero")
        fast = cli("audit", name, *args)
        assert fast.exit_code == 0, fast.output
        assert fast.stdout == cli("audit", name, *args, "--engine", "reference").stdout
        both = cli("score", name, *args, "--audit")
        assert both.exit_code == 0, both.output
        assert both.stdout.splitlines()[1] == fast.stdout.strip()
