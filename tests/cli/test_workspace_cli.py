"""The workspace commands: init, import, judge, pool, export, evaluations,
annotators and disagreements; their errors and exit codes; an import killed
mid-way."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from judgepool.cli import main
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.terms.contract import Scale, preset
from judgepool.formats.trec import read_qrels
from judgepool.services.consensus import workspace_judgments
from judgepool.services.evaluations import save_evaluation
from judgepool.services.workspace import open_workspace
from judgepool.store.runs import get_run, run_entries

WORKSPACE_COMMANDS = (
    "init", "import", "judge", "pool", "export", "evaluations", "annotators", "disagreements",
)  # fmt: skip


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "w.sqlite"
    result = run("init", str(path))
    assert result.exit_code == 0, result.output
    return path


def test_every_workspace_command_and_option_has_help() -> None:
    for name in WORKSPACE_COMMANDS:
        # get_command imports the command's module (commands load on first use)
        command = main.get_command(click.Context(main), name)
        assert command is not None, name
        assert command.help, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.name}"
        assert run(name, "--help").exit_code == 0


def test_init_with_a_bare_name_and_a_scale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("init", "demo", "--scale", "-1..4", "--labels", "-1=Spam,4=Key")
    assert result.exit_code == 0, result.output
    assert "workspaces/demo.sqlite" in result.stdout
    assert "-1 Spam" in result.stdout and "4 Key" in result.stdout
    with open_workspace(tmp_path / "workspaces" / "demo.sqlite") as ws:
        assert ws.scale == Scale(-1, 4)
    again = run("init", "demo")
    assert again.exit_code == 2
    assert "already exists" in again.stderr
    bad = run("init", "other", "--scale", "3..0")
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert not (tmp_path / "workspaces" / "other.sqlite").exists()


def test_import_judge_pool_export_round_trip(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "topics.tsv").write_text("q1\tpools\nq2\tdepth\n")
    (tmp_path / "docs.jsonl").write_text(
        '{"id": "d1", "text": "one"}\n{"id": "d2", "text": "two"}\n'
    )
    (tmp_path / "nist.qrels").write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n")
    (tmp_path / "bm25.run").write_text(
        "q1 Q0 d1 1 3.0 bm25\nq1 Q0 d4 2 2.0 bm25\nq2 Q0 d3 1 1.0 bm25\nq2 Q0 d5 2 0.5 bm25\n"
    )
    for kind, name in (("queries", "topics.tsv"), ("docs", "docs.jsonl"), ("qrels", "nist.qrels")):
        result = run("import", str(ws), kind, str(tmp_path / name))
        assert result.exit_code == 0, result.output
    result = run("import", str(ws), "run", str(tmp_path / "bm25.run"), "--name", "BM25")
    assert result.exit_code == 0, result.output
    assert "'BM25': 4 lines" in result.stdout
    assert result.stderr == ""  # no progress bar when standard error is not a terminal

    result = run("judge", str(ws), "q1", "d4", "3", "--annotator", "alice", "--note", "clearly")
    assert result.exit_code == 0, result.output
    result = run("judge", str(ws), "q1", "d1", "unsure", "--annotator", "alice")
    assert "-> unsure" in result.stdout
    result = run("judge", str(ws), "q1", "d1", "1", "--annotator", "alice")
    assert "(was unsure)" in result.stdout

    result = run("pool", str(ws), "--runs", "BM25", "--depth", "1")
    assert result.exit_code == 0, result.output
    assert "2 new documents" in result.stdout

    stdout = run("export", str(ws), "qrels")
    assert stdout.exit_code == 0
    # latest: alice's 1 on d1 overrides the import's 2
    assert stdout.stdout == "q1 0 d1 1\nq1 0 d2 0\nq1 0 d4 3\nq2 0 d3 1\n"
    assert run("export", str(ws), "qrels", "-o", "-").stdout == stdout.stdout
    target = tmp_path / "out.qrels"
    result = run("export", str(ws), "qrels", "-o", str(target), "--consensus", "median")
    assert result.exit_code == 0, result.output
    with open_workspace(ws) as workspace:
        judgments, digest = workspace_judgments(workspace, "median")
    read = read_qrels(target, Scale(0, 3))
    assert (read.judgments, read.digest) == (judgments, digest)
    assert digest in result.stdout
    alice = run("export", str(ws), "qrels", "--annotator", "alice")
    assert alice.stdout == "q1 0 d1 1\nq1 0 d4 3\n"

    listed = run("annotators", str(ws), "--adjudicator", "alice")
    assert "alice\tadjudicator\t3 events\t2 graded" in listed.stdout
    # alice alone graded d1 by hand: the people who graded do not disagree
    alone = run("disagreements", str(ws), "--format", "json").stdout.splitlines()
    assert [json.loads(line)["disagreements"] for line in alone] == [0]
    named = ("--annotators", "alice,import:nist.qrels")
    items = run("disagreements", str(ws), *named, "--format", "json")
    *listed_items, _ = [json.loads(line) for line in items.stdout.splitlines()]
    details = [listed_items[0].pop("details")]
    assert listed_items == [
        {
            "query_id": "q1",
            "doc_id": "d1",
            "grades": {"import:nist.qrels": 2, "alice": 1},
            "compared": {"import:nist.qrels": 2, "alice": 1},
            # alice's grade is an annotation, which stands over the import's;
            # but no adjudicator settled it
            "adjudicators": [],
            "latest": 1,
            "median": 1,
            "adjudicated": 1,
            "resolved": False,
            "gap": 1,
        }
    ]
    # each grade with its annotator, time and note (alice's note was on d4, not d1)
    assert [[(d["annotator"], d["grade"], d["note"]) for d in found] for found in details] == [
        [("import:nist.qrels", 2, None), ("alice", 1, None)]
    ]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", d["time"]) for d in details[0])


def test_negative_grades_on_a_wide_scale(tmp_path: Path) -> None:
    path = tmp_path / "wide.sqlite"
    assert run("init", str(path), "--scale", "-1..4").exit_code == 0
    result = run("judge", str(path), "q1", "d1", "-1", "--annotator", "a", "--allow-new")
    assert result.exit_code == 0, result.output
    assert run("export", str(path), "qrels").stdout == "q1 0 d1 -1\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("judge", "{ws}", "q1", "d1", "4", "--annotator", "a"), "outside the workspace's scale"),
        (("judge", "{ws}", "q1", "d1", "good", "--annotator", "a"), "grade must be an integer"),
        (("judge", "{ws}", "q1", "d1", "1"), "Missing option '--annotator'"),
        (("import", "{ws}", "qrels", "{bad_qrels}"), "bad.qrels:3: grade 9 is outside"),
        (("import", "{ws}", "run", "{bad_run}"), "bad.run:2: expected 6 columns"),
        (("import", "{ws}", "queries", "{bad_run}", "--name", "x"), "--name applies to runs only"),
        (("pool", "{ws}", "--depth", "0"), "0"),
        (("pool", "{ws}", "--depth", "5"), "no runs to pool"),
        (("export", "{ws}", "qrels", "--annotator", "nobody"), "has no annotator 'nobody'"),
        (("export", "{ws}", "qrels", "--consensus", "vote"), "vote"),
        (("export", "{ws}", "qrels", "-o", "{ws}"), "is the workspace's own file"),
        (("evaluations", "{text}"), "not a judgepool workspace"),
        (("import", "{text}", "run", "{bad_run}"), "not a judgepool workspace"),
        (("judge", "{missing}", "q", "d", "1", "--annotator", "a"), "no such workspace"),
    ],
)
def test_errors_exit_2_with_a_message_and_change_nothing(
    ws: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    (tmp_path / "bad.qrels").write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 9\n")
    (tmp_path / "bad.run").write_text("q1 Q0 d1 1 1.0 x\nq1 Q0 d2 2\n")
    text = tmp_path / "notes.txt"
    text.write_text("not a workspace\n")
    names = {
        "ws": str(ws),
        "bad_qrels": str(tmp_path / "bad.qrels"),
        "bad_run": str(tmp_path / "bad.run"),
        "text": str(text),
        "missing": str(tmp_path / "missing.sqlite"),
    }
    before = dump(ws)
    result = run(*(arg.format(**names) for arg in args))
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert result.stdout == ""
    assert dump(ws) == before
    assert text.read_text() == "not a workspace\n"
    assert not (tmp_path / "missing.sqlite").exists()


def test_evaluations_show_contract_and_whether_the_digest_is_current(
    ws: Path, tmp_path: Path
) -> None:
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    (tmp_path / "j.qrels").write_text("q1 0 d1 1\nq1 0 d2 3\n")
    assert run("import", str(ws), "run", str(tmp_path / "r.run")).exit_code == 0
    assert run("import", str(ws), "qrels", str(tmp_path / "j.qrels")).exit_code == 0
    assert "no stored evaluations" in run("evaluations", str(ws)).stdout
    contract = preset("trec_eval", k=2)
    with open_workspace(ws) as workspace:
        judgments, digest = workspace_judgments(workspace, "latest")
        entries, stored = run_entries(workspace, "r"), get_run(workspace, "r")
        evaluation = evaluate(group_by_query(entries), judgments, contract)
        save_evaluation(
            workspace,
            evaluation,
            qrels_digest=digest,
            run_digest=stored.digest,
            consensus="latest",
            run_name="r",
        )
    listed = [
        json.loads(line)
        for line in run("evaluations", str(ws), "--format", "json").stdout.splitlines()
    ]
    assert len(listed) == 1
    assert listed[0]["current"] is True
    assert listed[0]["contract"] == contract.to_dict()
    assert listed[0]["consensus"] == "latest"
    assert listed[0]["fingerprint"] == contract.fingerprint(digest, stored.digest)
    table = run("evaluations", str(ws)).stdout
    assert "(current)" in table and "k=2" in table and "consensus latest" in table

    assert run("judge", str(ws), "q1", "d2", "0", "--annotator", "bob").exit_code == 0
    listed = [
        json.loads(line)
        for line in run("evaluations", str(ws), "--format", "json").stdout.splitlines()
    ]
    assert listed[0]["current"] is False
    assert "stale" in run("evaluations", str(ws)).stdout


def test_data_text_is_printed_literally(ws: Path) -> None:
    # an ID with an escape sequence is refused, and named without acting
    result = run("judge", str(ws), "q\x1b[31m", "d[bold]1", "1", "--annotator", "eve")
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr
    assert "'q\\x1b[31m'" in result.stderr
    # markup is no control character: a valid ID, printed as it is
    result = run("judge", str(ws), "q1", "d[bold]1", "1", "--annotator", "eve", "--allow-new")
    assert result.exit_code == 0, result.output
    assert "d[bold]1" in result.stdout


# -- an import killed mid-way -----------------------------------------------------------


def _write_big_run(path: Path, lines: int) -> None:
    with open(path, "w") as out:
        for start in range(0, lines, 1000):
            query = f"q{start // 1000}"
            out.writelines(
                f"{query} Q0 doc{start + i} {i + 1} {1000 - i}.5 big\n" for i in range(1000)
            )


def test_an_import_killed_mid_way_leaves_no_trace_and_the_next_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    assert run("init", str(path)).exit_code == 0
    (tmp_path / "small.run").write_text("q1 Q0 d1 1 1.0 s\n")
    assert run("import", str(path), "run", str(tmp_path / "small.run")).exit_code == 0
    before = dump(path)
    big = tmp_path / "big.run"
    _write_big_run(big, 600_000)

    # Standard error on a pseudo-terminal, so the import shows its progress bar;
    # it is killed once the bar shows lines written but not all of them.
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "judgepool", "import", str(path), "run", str(big), "--name", "big"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        env={**os.environ, "COLUMNS": "100"},
    )
    os.close(terminal)
    shown = b""
    percent = 0
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and process.poll() is None:
            ready, _, _ = select.select([controller], [], [], 0.05)
            if ready:
                try:
                    shown += os.read(controller, 4096)
                except OSError:
                    break
            found = re.findall(rb"writing .*?(\d+)%", shown)
            percent = int(found[-1]) if found else 0
            if 0 < percent < 100:
                process.send_signal(signal.SIGKILL)
                break
    finally:
        process.wait(timeout=30)
        os.close(controller)
    assert process.returncode == -signal.SIGKILL, shown.decode(errors="replace")
    assert 0 < percent < 100

    assert dump(path) == before  # no trace of the killed import
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    (tmp_path / "next.run").write_text("q2 Q0 d2 1 1.0 n\nq2 Q0 d3 2 0.5 n\n")
    result = run("import", str(path), "run", str(tmp_path / "next.run"), "--name", "big")
    assert result.exit_code == 0, result.output
    with open_workspace(path) as workspace:
        entries = run_entries(workspace, "big")
        assert [e.doc_id for e in entries] == ["d2", "d3"]
