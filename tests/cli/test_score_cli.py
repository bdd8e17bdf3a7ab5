"""The score and audit commands: formats, exit codes, and messages for people."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli.conftest import ranked, write_qrels, write_run

TEACHING = {"q": {"A": 3, "B": 2, "C": 1, "D": 0}}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = write_qrels(tmp_path / "teaching.qrels", TEACHING)
    run = write_run(tmp_path / "bc.trec", ranked("q", ["B", "C"]) + ranked("stray", ["B"]))
    return qrels, run


def test_table_shows_contract_counts_and_candidate_only_label(
    cli: Callable[..., Result], files: tuple[Path, Path]
) -> None:
    qrels, run = files
    result = cli("score", run, "--qrels", qrels, "-k", "2")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "universe=judged" in out and "unjudged=reject" in out and "ties=trec_eval" in out
    assert "0.6173" in out and "1.0000" in out
    assert "CANDIDATE-ONLY" in out
    assert "unknown queries (not scored): stray" in out
    assert "qrels digest" in out and "fingerprint" in out


def test_trec_format_matches_trec_eval_layout(
    cli: Callable[..., Result], files: tuple[Path, Path]
) -> None:
    qrels, run = files
    result = cli("score", run, "--qrels", qrels, "-k", "2", "--format", "trec", "--per-query")
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert ["ndcg_cut_2".ljust(22), "q", "0.6173"] in rows
    assert ["ndcg_cut_2".ljust(22), "all", "0.6173"] in rows
    assert ["num_q".ljust(22), "all", "1"] in rows


def test_json_carries_contract_and_digests(
    cli: Callable[..., Result], files: tuple[Path, Path]
) -> None:
    qrels, run = files
    result = cli("score", run, "--qrels", qrels, "-k", "2", "--format", "json")
    data = json.loads(result.stdout)
    assert data["contract"]["k"] == 2 and data["contract"]["scale"] == "0..3"
    assert len(data["qrels_digest"]) == len(data["run_digest"]) == len(data["fingerprint"]) == 64
    assert data["summary"]["unknown"] == 1 and data["unknown_queries"] == ["stray"]
    assert data["summary"]["queries"] == 2 and data["summary"]["scored"] == 1
    assert "per_query" not in data


def test_preset_is_overridden_by_explicit_options(
    cli: Callable[..., Result], files: tuple[Path, Path]
) -> None:
    qrels, run = files
    result = cli("score", run, "--qrels", qrels, "--preset", "trec_eval", "--unjudged", "condense",
                 "--format", "json")  # fmt: skip
    contract = json.loads(result.stdout)["contract"]
    assert contract["unjudged"] == "condense" and contract["missing"] == "zero"


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_presets_read_scores_as_each_trec_eval_version(
    cli: Callable[..., Result], tmp_path: Path, engine: str
) -> None:
    """68.41769638061524 and 68.41769618988037 are one 32-bit float: a tie for
    trec_eval 9 (pytrec_eval, ir_measures), broken by document ID descending
    (B first, nDCG@1 1.0); two scores for trec_eval 10 (A's is higher: 0)."""
    qrels = write_qrels(tmp_path / "q", {"q": {"A": 0, "B": 1}})
    run = tmp_path / "run"
    run.write_text("q Q0 A 1 68.41769638061524 t\nq Q0 B 2 68.41769618988037 t\n")
    ndcg = {}
    for name in ("trec_eval", "trec_eval9", "trec_eval10"):
        result = cli("score", run, "--qrels", qrels, "-k", "1", "--preset", name,
                     "--engine", engine, "--format", "json")  # fmt: skip
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        ndcg[name] = (data["contract"]["score_precision"], data["summary"]["ndcg"])
    assert ndcg == {
        "trec_eval": ("single", 1.0),
        "trec_eval9": ("single", 1.0),
        "trec_eval10": ("double", 0.0),
    }
    table = cli("score", run, "--qrels", qrels, "--preset", "trec_eval9", "--engine", engine)
    assert "ties=trec_eval" in table.stdout and "score_precision=single" in table.stdout
    audit = cli("audit", run, "--qrels", qrels, "-k", "1", "--score-precision", "single",
                "--format", "json")  # fmt: skip
    assert [tie["doc_ids"] for tie in json.loads(audit.stdout)["findings"]["ties"]] == [["B", "A"]]


def test_several_runs_give_one_json_line_each(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels = write_qrels(tmp_path / "q", TEACHING)
    a = write_run(tmp_path / "a", ranked("q", ["A", "B"]))
    b = write_run(tmp_path / "b", ranked("q", ["C", "B"]))
    result = cli("score", a, b, "--qrels", qrels, "-k", "2", "--format", "json")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [round(x["summary"]["ndcg"], 6) for x in lines] == [1.0, 0.530721]
    assert lines[0]["qrels_digest"] == lines[1]["qrels_digest"]
    assert lines[0]["run_digest"] != lines[1]["run_digest"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("q Q0 A 1 nan t\n", "not a finite number"),
        ("q Q0 A 1 inf t\n", "not a finite number"),
        ("q Q0 A 1.5 3 t\n", "not an integer"),
        ("q Q0 A 1\n", "expected 6 columns"),
        ("q Q0 A 1 3 t\nq Q0 B 2 2 t\nq Q0 C x 1 t\n", "not an integer"),
    ],
)
def test_bad_run_lines_exit_2_with_file_and_line(
    cli: Callable[..., Result], tmp_path: Path, content: str, message: str
) -> None:
    qrels = write_qrels(tmp_path / "q", TEACHING)
    run = tmp_path / "bad.trec"
    run.write_text(content)
    result = cli("score", run, "--qrels", qrels)
    assert result.exit_code == 2
    line = content.count("\n")
    assert f"{run}:{line}:" in result.stderr and message in result.stderr
    assert "Traceback" not in result.output


def test_missing_file_and_missing_qrels(cli: Callable[..., Result], tmp_path: Path) -> None:
    result = cli("score", tmp_path / "nope.trec", "--qrels", tmp_path / "nope.qrels")
    assert result.exit_code == 2 and "no such file" in result.stderr
    run = write_run(tmp_path / "r", ranked("q", ["A"]))
    result = cli("score", run)
    assert result.exit_code == 2 and "--qrels" in result.output


def test_bad_contract_value_exits_2(cli: Callable[..., Result], files: tuple[Path, Path]) -> None:
    qrels, run = files
    result = cli("score", run, "--qrels", qrels, "--gain", "0=0,1=1")
    assert result.exit_code == 2 and "no gain for grade" in result.stderr


def test_audit_json_and_fail_on(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels = write_qrels(tmp_path / "q", TEACHING)
    run = write_run(tmp_path / "r", [("q", "B", 2.0), ("q", "X", 1.0), ("q", "B", 0.5)])
    result = cli("audit", run, "--qrels", qrels, "-k", "2", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["findings"]["duplicates"] == [{"query_id": "q", "doc_id": "B", "lines": [1, 3]}]
    assert report["findings"]["unjudged"] == [{"query_id": "q", "doc_id": "X", "rank": 2}]
    result = cli("audit", run, "--qrels", qrels, "-k", "2", "--fail-on", "duplicates")
    assert result.exit_code == 1 and "duplicates" in result.stderr
    result = cli("audit", run, "--qrels", qrels, "-k", "2", "--fail-on", "unknown_queries")
    assert result.exit_code == 0
    result = cli("audit", run, "--qrels", qrels, "--fail-on", "nonsense")
    assert result.exit_code == 2 and "unknown finding kind" in result.output


def test_audit_lists_every_bad_line_instead_of_stopping(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels = write_qrels(tmp_path / "q", TEACHING)
    run = tmp_path / "r"
    run.write_text("q Q0 A 1 3 t\nq Q0 B x 2 t\nq Q0 C 3 1 t\nq Q0 D 4 nan t")
    result = cli("audit", run, "--qrels", qrels, "--format", "json", "--fail-on", "bad_lines")
    assert result.exit_code == 1
    bad = json.loads(result.stdout)["findings"]["bad_lines"]
    assert [b["line"] for b in bad] == [2, 4]


def test_data_text_reaches_the_terminal_literally(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels = write_qrels(tmp_path / "q", {"q": {"A": 1}})
    run = tmp_path / "r"
    run.write_text("q Q0 A 1 3 t\n\x1b[31mevil Q0 A 1 3 t\n")
    result = cli("score", run, "--qrels", qrels)
    # an ID with a control character is refused where it enters, shown literally
    assert result.exit_code == 2
    assert "\x1b" not in result.stdout and "\x1b" not in result.stderr
    assert f"{run}:2: query ID '\\x1b[31mevil' cannot be used" in result.stderr


def test_every_command_is_in_the_lazy_command_map() -> None:
    """Every command the modules define (a group's subcommands aside) is named
    in the map, with its own module, and `main` finds it there."""
    import importlib

    import click

    from judgepool.cli import COMMAND_MODULES, main

    defined: dict[str, str] = {}
    for module_name in sorted(set(COMMAND_MODULES.values())):
        module = importlib.import_module(f"judgepool.cli.{module_name}")
        commands = [value for value in vars(module).values() if isinstance(value, click.Command)]
        subcommands = [
            sub
            for group in commands
            if isinstance(group, click.Group)
            for sub in group.commands.values()
        ]
        for command in commands:
            if command not in subcommands:
                assert command.name is not None and command.name not in defined
                defined[command.name] = module_name
    assert defined == COMMAND_MODULES
    ctx = click.Context(main)
    for name, module_name in COMMAND_MODULES.items():
        command = main.get_command(ctx, name)
        assert command is not None and command.callback is not None
        assert command.callback.__module__ == f"judgepool.cli.{module_name}"


def test_help_lists_every_command(cli: Callable[..., Result]) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    for name in ("score", "audit", "init", "import", "judge", "pool", "export", "tui", "demo"):
        assert f"  {name} " in result.stdout
