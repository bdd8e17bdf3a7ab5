"""The demo workspace (built from sample_data on first use, atomically) and the
``judgepool demo`` / ``judgepool tui`` commands' handling of bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judgepool.cli import main
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import InputError
from judgepool.formats.trec import read_qrels
from judgepool.services import app_queries
from judgepool.services.consensus import workspace_judgments
from judgepool.services.demo import ensure_demo_workspace, find_sample_data
from judgepool.services.workspace import open_workspace
from judgepool.store.runs import list_runs
from tests.tui.conftest import SAMPLE_DATA

DEMO = SAMPLE_DATA / "dl19"
DEMO_QUERIES = ["1106007", "168216", "207786", "359349", "405717", "962179"]


def test_demo_workspace_is_built_once_with_work_to_grade(tmp_path: Path) -> None:
    path = ensure_demo_workspace(tmp_path, sample_data=SAMPLE_DATA)
    assert path == tmp_path / "workspaces" / "demo.sqlite"
    assert sorted(p.name for p in path.parent.iterdir()) == ["demo.sqlite"]
    with open_workspace(path) as ws:
        runs = {run.name for run in list_runs(ws)}
        plan = app_queries.grading_plan(ws, "someone")
        judgments, _ = workspace_judgments(ws)
        contract = ws.default_contract()
    # one collection: the DL19 slice, two runs of the pooled era and two modern ones
    assert runs == {"bm25", "bm25-rm3", "splade-pp-ed", "repllama"}
    assert [q.id for q in plan.queries] == DEMO_QUERIES
    shown = read_qrels(DEMO / "qrels.txt", contract.scale).judgments
    hidden = read_qrels(DEMO / "hidden.qrels", contract.scale).judgments
    assert judgments == shown  # hidden.qrels is not imported
    # The modern runs have holes by design: they are scored (gain 0), not refused.
    assert contract == Contract(unjudged="zero")
    unjudged = [
        (q.id, d)
        for q in plan.queries
        for d in q.doc_ids
        if not plan.judgments.get((q.id, d), app_queries.NOT_JUDGED).judged
    ]
    assert len(unjudged) == 58  # the modern runs' holes, graded first
    assert all(d in hidden[q] for q, d in unjudged)  # each with a true grade kept aside
    stamp = path.stat().st_mtime_ns
    assert ensure_demo_workspace(tmp_path, sample_data=SAMPLE_DATA) == path
    assert path.stat().st_mtime_ns == stamp  # opened, not rebuilt


def test_a_failed_build_leaves_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "sample_data" / "dl19"
    broken.mkdir(parents=True)
    (broken / "queries.tsv").write_text("q1\tgreen tea\n")
    (broken / "docs.tsv").write_text("A\ttext\n")
    (broken / "qrels.txt").write_text("q1 0 A 9\n")  # outside 0..3
    with pytest.raises(InputError):
        ensure_demo_workspace(tmp_path, sample_data=broken.parent)
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
