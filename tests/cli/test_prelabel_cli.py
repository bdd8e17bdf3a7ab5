"""``judgepool prelabel`` on the command line against the real local server
(`tests.openai_judge`): the summary, the refusals of bad input, and, as a
real subprocess, a kill -9 in the middle of a batch and Ctrl-C, each
followed by a rerun that leaves exactly one label per item."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.openai_judge import JudgeConfig, judge_server
from tests.prelabel_support import holed_workspace
from tests.sigint import ctrl_c_as_on_a_terminal

RATER = "model:judge"


def labels(path: Path) -> tuple[int, int, int]:
    """(events of the model, items it holds a current grade of, events
    without their reply): the last must be 0, the first two equal."""
    conn = sqlite3.connect(path)
    try:
        events = conn.execute(
            "SELECT COUNT(*) FROM judgment_events WHERE annotator = ?", (RATER,)
        ).fetchone()[0]
        items = conn.execute(
            "SELECT COUNT(*) FROM current_judgments WHERE annotator = ? AND grade IS NOT NULL",
            (RATER,),
        ).fetchone()[0]
        bare = conn.execute(
            "SELECT COUNT(*) FROM judgment_events e LEFT JOIN model_replies r "
            "ON r.event_id = e.id WHERE e.annotator = ? AND r.event_id IS NULL",
            (RATER,),
        ).fetchone()[0]
    finally:
        conn.close()
    return int(events), int(items), int(bare)


def test_prelabel_prints_a_summary(tmp_path: Path, cli: Callable[..., Result]) -> None:
    holed = holed_workspace(tmp_path)
    with judge_server(JudgeConfig(grades=holed.grades)) as server:
        result = cli("prelabel", holed.path, "--model", "judge", "--endpoint", server.url)
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert lines[0].startswith(
            "model:judge: labelled 10, skipped 0 (labelled before with the same prompt), "
            "failed 0, of 10 items in "
        )
        assert lines[-1].startswith("tokens: ") and "60 completion" in lines[-1]
        again = cli("prelabel", holed.path, "--model", "judge", "--endpoint", server.url, "--json")
    summary = json.loads(again.stdout)
    assert (summary["labelled"], summary["skipped"], summary["failed"]) == (0, 10, 0)
    assert summary["rater"] == RATER


def test_failures_are_listed_with_their_reasons(tmp_path: Path, cli: Callable[..., Result]) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=2)
    with judge_server(JudgeConfig(grades=holed.grades, always="garbage")) as server:
        result = cli("prelabel", holed.path, "--model", "judge", "--endpoint", server.url)
    assert result.exit_code == 0, result.output
    assert "  failed 2: unreadable reply: the reply is not JSON" in result.stdout.splitlines()


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--endpoint", "localhost:8000/v1"], {}, "is not an http(s) URL"),
        (["--endpoint", "ftp://host/v1"], {}, "is not an http(s) URL"),
        (["--endpoint", "http://h:99999/v1"], {}, "has a bad port"),
        (
            ["--endpoint", "http://127.0.0.1:1/v1", "--api-key-env", "JP_NO_SUCH_KEY"],
            {},
            "--api-key-env JP_NO_SUCH_KEY: the environment variable is not set",
        ),
        (
            ["--endpoint", "http://127.0.0.1:1/v1", "--timeout", "0"],
            {},
            "'0' is not a number more than 0",
        ),
        (
            ["--endpoint", "http://127.0.0.1:1/v1", "--timeout", "nan"],
            {},
            "'nan' is not a finite number",
        ),
        (
            ["--endpoint", "http://127.0.0.1:1/v1", "--timeout", "inf"],
            {},
            "'inf' is not a finite number",
        ),
        (["--endpoint", "http://127.0.0.1:1/v1", "--timeout", "1e9"], {}, "at most 3600"),
        (["--endpoint", "http://127.0.0.1:1/v1", "--timeout", "１"], {}, "is not a finite number"),
        (["--endpoint", "http://127.0.0.1:1/v1", "--items", "nofile.txt"], {}, "no such file"),
    ],
)
def test_bad_input_is_refused_clearly(
    tmp_path: Path,
    cli: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    message: str,
) -> None:
    holed = holed_workspace(tmp_path, queries=1, depth=1)
    monkeypatch.delenv("JP_NO_SUCH_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    result = cli("prelabel", holed.path, "--model", "judge", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_an_unknown_workspace_and_a_bad_item_line(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    missing = cli("prelabel", tmp_path / "nope.sqlite", "--model", "m", "--endpoint", "http://h/v1")
    assert missing.exit_code == 2 and "nope.sqlite" in missing.stderr
    holed = holed_workspace(tmp_path, queries=1, depth=1)
    listing = tmp_path / "items.txt"
    listing.write_text("q0 d0-1\nq0 d0-1 extra\n", encoding="utf-8")
    bad = cli(
        "prelabel", holed.path, "--model", "m", "--endpoint", "http://h/v1",
        "--items", listing,
    )  # fmt: skip
    assert bad.exit_code == 2
    assert f"{listing}:2: an item line is 'QUERY DOC'" in bad.stderr


def _start(path: Path, url: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "judgepool", "prelabel", str(path), "--model", "judge",
         "--endpoint", url, "--concurrency", "4", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=ctrl_c_as_on_a_terminal,  # Ctrl-C is pressed on one of them
    )  # fmt: skip


def test_kill_9_mid_batch_then_a_rerun_gives_one_label_per_item(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=6, depth=10)
    total = len(holed.items)
    with judge_server(JudgeConfig(grades=holed.grades, latency=0.05)) as server:
        process = _start(holed.path, server.url)
        try:
            assert server.wait_for_requests(total // 3), "the batch never got going"
        finally:
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=30)
        assert process.returncode == -signal.SIGKILL
        events, items, bare = labels(holed.path)
        assert 0 < items < total and events == items and bare == 0
        rerun = _start(holed.path, server.url, "--json")
        out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    summary = json.loads(out)
    assert summary["skipped"] == items and summary["labelled"] == total - items
    assert labels(holed.path) == (total, total, 0)


def test_ctrl_c_stops_cleanly_and_keeps_what_was_done(tmp_path: Path) -> None:
    holed = holed_workspace(tmp_path, queries=6, depth=10)
    total = len(holed.items)
    with judge_server(JudgeConfig(grades=holed.grades, latency=0.05)) as server:
        process = _start(holed.path, server.url)
        assert server.wait_for_requests(total // 3), "the batch never got going"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert process.returncode == 130, err
        assert "Traceback" not in err
        assert "stopped: interrupted (Ctrl-C); every grade recorded is kept" in out
        events, items, bare = labels(holed.path)
        assert 0 < items < total and events == items and bare == 0
        rerun = _start(holed.path, server.url, "--json")
        out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    assert labels(holed.path) == (total, total, 0)


def test_the_progress_bar_shows_rate_and_time_left() -> None:
    import io

    from judgepool.cli.progress import CountProgress

    stream = io.StringIO()
    bar = CountProgress(10, "prelabel m", True, stream)
    bar.update(4, "failed 1", force=True)
    line = stream.getvalue()
    assert "prelabel m" in line and "4/10" in line and "/s" in line and "failed 1" in line
    assert "left" in line
    bar.close()
    quiet = io.StringIO()
    CountProgress(10, "x", False, quiet).update(3, force=True)
    assert quiet.getvalue() == ""
