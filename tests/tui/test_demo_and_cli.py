"""The demo workspace (built from sample_data on first use, atomically) and the
``judgepool demo`` / ``judgepool tui`` commands' handling of bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judgepool.cli import main
from judgepool.core.contract import Contract
from judgepool.core.errors import InputError
from judgepool.services import app_queries
from judgepool.services.consensus import workspace_judgments
from judgepool.services.demo import ensure_demo_workspace, find_sample_data
from judgepool.services.workspace import open_workspace
from judgepool.store.runs import list_runs
from tests.tui.conftest import SAMPLE_DATA


def test_demo_workspace_is_built_once_with_work_to_grade(tmp_path: Path) -> None:
    path = ensure_demo_workspace(tmp_path, sample_data=SAMPLE_DATA)
    assert path == tmp_path / "workspaces" / "demo.sqlite"
    assert sorted(p.name for p in path.parent.iterdir()) == ["demo.sqlite"]
    with open_workspace(path) as ws:
        runs = {run.name for run in list_runs(ws)}
        plan = app_queries.grading_plan(ws, "someone")
        judgments, _ = workspace_judgments(ws)
        contract = ws.default_contract()
    assert {"dl19/bm25", "dl19/splade-pp-ed", "dl19/repllama", "noveleval/google-order"} <= runs
    assert {"teaching/perfect-ab", "teaching/candidates-bc", "hostile/hostile"} <= runs
    assert {"teach", "hostile", "0", "156493"} <= {q.id for q in plan.queries}
    assert judgments["teach"] == {"A": 3, "B": 2, "C": 1, "D": 0}
    # Four collections share the workspace: a run is not scored on the others' queries.
    assert contract == Contract(missing="skip")
    unjudged = [
        (q.id, d)
        for q in plan.queries
        for d in q.doc_ids
        if not plan.judgments.get((q.id, d), app_queries.NOT_JUDGED).judged
    ]
    assert unjudged and all(q.isdigit() for q, _ in unjudged)  # the DL19 holes
    stamp = path.stat().st_mtime_ns
    assert ensure_demo_workspace(tmp_path, sample_data=SAMPLE_DATA) == path
    assert path.stat().st_mtime_ns == stamp  # opened, not rebuilt


def test_a_failed_build_leaves_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "sample_data"
    for name in ("teaching", "noveleval", "dl19", "hostile"):
        (broken / name).mkdir(parents=True)
    (broken / "teaching" / "queries.tsv").write_text("teach\tgreen tea\n")
    (broken / "teaching" / "docs.tsv").write_text("A\ttext\n")
    (broken / "teaching" / "qrels.txt").write_text("teach 0 A 9\n")  # outside 0..3
    with pytest.raises(InputError):
        ensure_demo_workspace(tmp_path, sample_data=broken)
    assert list((tmp_path / "workspaces").iterdir()) == []


def test_sample_data_is_found_from_the_checkout(tmp_path: Path) -> None:
    assert find_sample_data(tmp_path) == SAMPLE_DATA


def test_tui_refuses_a_missing_workspace(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["tui", str(tmp_path / "nope.sqlite")])
    assert result.exit_code == 2
    assert "no such workspace" in result.output


def test_tui_refuses_a_file_that_is_not_a_workspace(tmp_path: Path) -> None:
    stray = tmp_path / "run.trec"
    stray.write_text("q Q0 d 1 1.0 r\n")
    result = CliRunner().invoke(main, ["tui", str(stray), "--annotator", "alice"])
    assert result.exit_code == 2
    assert "not a judgepool workspace" in result.output
    assert stray.read_text() == "q Q0 d 1 1.0 r\n"


def test_help_lists_the_app_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "demo" in result.output and "tui" in result.output
    result = CliRunner().invoke(main, ["tui", "--help"])
    assert "--annotator" in result.output
