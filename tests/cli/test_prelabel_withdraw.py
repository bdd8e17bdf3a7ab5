"""``judgepool prelabel`` on the command line against the real local server
(`tests.openai_judge`): taking a model's labels back (``--withdraw``) and
what a rerun then does, the rules a model's name follows, and two runs of
one model started at once as real processes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from tests.openai_judge import JudgeConfig, judge_server
from tests.prelabel_support import HoledWorkspace, holed_workspace

RATER = "model:judge"


def counts(path: Path, rater: str = RATER) -> tuple[int, int]:
    """(events of the rater, items it holds a current grade of)."""
    conn = sqlite3.connect(path)
    try:
        events = conn.execute(
            "SELECT COUNT(*) FROM judgment_events WHERE annotator = ?", (rater,)
        ).fetchone()[0]
        items = conn.execute(
            "SELECT COUNT(*) FROM current_judgments WHERE annotator = ? AND grade IS NOT NULL",
            (rater,),
        ).fetchone()[0]
    finally:
        conn.close()
    return int(events), int(items)


@pytest.fixture
def labelled(tmp_path: Path, cli: Callable[..., Result]) -> HoledWorkspace:
    """10 holes, each labelled by model:judge; alice graded the first 6 too."""
    holed = holed_workspace(tmp_path)
    with open_workspace(holed.path) as ws:
        for query_id, doc_id in holed.items[:6]:
            judge(ws, query_id, doc_id, holed.truth[(query_id, doc_id)], annotator="alice")
    listing = tmp_path / "all.txt"
    listing.write_text("".join(f"{q} {d}\n" for q, d in holed.items), encoding="utf-8")
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        done = cli("prelabel", holed.path, "--model", "judge", "--endpoint", server.url,
                   "--items", listing)  # fmt: skip
    assert done.exit_code == 0, done.output
    assert counts(holed.path) == (10, 10)
    return holed


def test_withdraw_takes_every_label_back_and_deletes_nothing(
    labelled: HoledWorkspace, cli: Callable[..., Result]
) -> None:
    before = cli("agreement", labelled.path, "--confusion", RATER)
    assert before.exit_code == 0 and "6 items graded by both" in before.stdout
    result = cli("prelabel", labelled.path, "--withdraw", "judge")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "model:judge: withdrew 10 labels (an event each, appended to the ledger: nothing "
        "deleted); no number counts them now, and prelabel asks about these items again "
        "only with --relabel-withdrawn"
    )
    assert counts(labelled.path) == (20, 0)
    # the numbers that read the model's labels find none
    after = cli("agreement", labelled.path, "--confusion", RATER)
    assert after.exit_code == 2 and "holds no grade of 'model:judge'" in after.stderr
    again = cli("prelabel", labelled.path, "--withdraw", "judge", "--json")
    assert json.loads(again.stdout) == {"rater": RATER, "withdrawn": 0}
    assert counts(labelled.path) == (20, 0)


def test_a_rerun_leaves_withdrawn_items_out_unless_asked(
    labelled: HoledWorkspace, cli: Callable[..., Result]
) -> None:
    assert cli("prelabel", labelled.path, "--withdraw", "judge").exit_code == 0
    listing = labelled.path.parent / "all.txt"
    with judge_server(JudgeConfig(grades=labelled.grades)) as server:
        rerun = cli("prelabel", labelled.path, "--model", "judge", "--endpoint", server.url,
                    "--items", listing)  # fmt: skip
        assert rerun.exit_code == 0, rerun.output
        assert server.bodies == []
        lines = rerun.stdout.splitlines()
        assert "labelled 0, skipped 0" in lines[0] and "of 10 items" in lines[0]
        assert lines[1] == (
            "withdrawn, not asked again: 10 (the model's labels of them were withdrawn; "
            "--relabel-withdrawn asks about them)"
        )
        asked = cli("prelabel", labelled.path, "--model", "judge", "--endpoint", server.url,
                    "--items", listing, "--relabel-withdrawn", "--json")  # fmt: skip
        assert len(server.bodies) == 10
    summary = json.loads(asked.stdout)
    assert (summary["labelled"], summary["withdrawn_not_asked"]) == (10, 0)
    assert counts(labelled.path) == (30, 10)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--withdraw", "judge", "--model", "judge"], "--withdraw labels nothing, so it goes "
         "without --model (with --json alone)"),
        (["--withdraw", "judge", "--endpoint", "http://h/v1", "--timeout", "60"],
         "goes without --endpoint, --timeout"),
        (["--withdraw", "judge", "--relabel-withdrawn"], "goes without --relabel-withdrawn"),
        (["--endpoint", "http://h/v1"], "prelabel needs --model NAME (or --withdraw NAME"),
        (["--model", "judge"], "prelabel needs --endpoint URL"),
        (["--withdraw", "judgee"], "--withdraw 'judgee': the workspace has no rater "
         "'model:judgee' (closest: 'model:judge'); give NAME as --model gave it"),
        (["--withdraw", "other"], "no rater 'model:other' (models it holds: 'model:judge')"),
    ],
)  # fmt: skip
def test_withdraw_refusals(
    labelled: HoledWorkspace, cli: Callable[..., Result], args: list[str], message: str
) -> None:
    result = cli("prelabel", labelled.path, *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.output
    assert counts(labelled.path) == (10, 10)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("x" * 20_000, "model name '" + "x" * 64 + "'… cannot be used: it is 20,000 characters "
         "long, and a model's name, like an annotator's, is at most 64"),
        ("judgе", "model name 'judgе' cannot be used: it looks like the rater 'model:judge' "
         "the workspace already has (it holds U+0435"),
        ("jud\x1bge", "model name 'jud\\x1bge' cannot be used: it holds the character U+001B"),
        (" judge", "model name ' judge' cannot be used: it has spaces around it"),
        ("", "model name '' cannot be used: it is empty"),
    ],
)  # fmt: skip
def test_a_model_name_follows_the_rules_of_an_annotators(
    labelled: HoledWorkspace, cli: Callable[..., Result], model: str, message: str
) -> None:
    with judge_server(JudgeConfig(grades=labelled.grades)) as server:
        result = cli("prelabel", labelled.path, "--model", model, "--endpoint", server.url)
        assert server.bodies == []
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert len(result.stderr) < 1000  # a long name is not printed whole


def test_a_model_name_in_another_normal_form_is_the_same_rater(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=2)
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        first = cli("prelabel", holed.path, "--model", "caf\u00e9", "--endpoint", server.url)
        second = cli("prelabel", holed.path, "--model", "cafe\u0301", "--endpoint", server.url,
                     "--json")  # fmt: skip
        assert [body["model"] for body in server.bodies] == ["caf\u00e9"] * 2
    assert first.exit_code == 0, first.output
    summary = json.loads(second.stdout)
    assert summary["rater"] == "model:caf\u00e9" and summary["skipped"] == 2


def _start(path: Path, url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "judgepool", "prelabel", str(path), "--model", "judge",
         "--endpoint", url, "--concurrency", "3", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip


def test_two_runs_started_at_once_ask_about_each_item_once(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=6, depth=10)
    total = len(holed.items)
    with judge_server(JudgeConfig(grades=holed.grades, latency=0.05)) as server:
        processes = [_start(holed.path, server.url) for _ in range(2)]
        outputs = [process.communicate(timeout=180) for process in processes]
        asked = len(server.bodies)
    for process, (_, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
    summaries = [json.loads(out) for out, _ in outputs]
    assert asked == total
    assert sum(summary["labelled"] for summary in summaries) == total
    assert counts(holed.path) == (total, total)
    for mine, other in (summaries, summaries[::-1]):
        assert mine["skipped"] + mine["left_to_another_run"] == other["labelled"]
        assert mine["failed"] == 0
