"""Grading as a team on the command line: assign, progress, agreement (model
labels as their own annotator), on real workspace files, the key paths
through the real command in a subprocess."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import click
import numpy as np
import pytest
from click.testing import CliRunner, Result
from sklearn.metrics import cohen_kappa_score

from judgepool.cli import main
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from tests.cli.conftest import ranked, write_qrels, write_run

TEAM_COMMANDS = ("assign", "progress", "agreement", "undo", "settings", "disagreements")


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def judgepool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "judgepool", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """Exit 2 with one message and no traceback; the message."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "unexpected error" not in done.stderr
    assert done.stdout == ""
    return done.stderr


DOCS = {query: [f"{query}d{i:02d}" for i in range(12)] for query in ("q1", "q2", "q3")}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with three queries of twelve pooled documents each."""
    path = tmp_path / "team.sqlite"
    assert run("init", path).exit_code == 0
    rows = [row for query, docs in DOCS.items() for row in ranked(query, docs)]
    write_run(tmp_path / "bm25.run", rows)
    assert run("import", path, "run", tmp_path / "bm25.run").exit_code == 0
    assert run("pool", path, "--depth", "12").exit_code == 0
    return path


def assigned_rows(path: Path, assignment: int) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT annotator, query_id, doc_id FROM assigned_items WHERE assignment_id = ? "
            "ORDER BY 1, 2, 3",
            (assignment,),
        ).fetchall()
    finally:
        conn.close()


def grade(path: Path, who: str, grades: dict[str, int | None], **options: Any) -> None:
    """``who`` grades documents (None: unsure) as the app does, one transaction each."""
    with open_workspace(path) as workspace:
        for doc, value in grades.items():
            judge(workspace, doc[:2], doc, value, annotator=who, unsure=value is None, **options)


def test_every_team_command_and_option_has_help() -> None:
    for name in TEAM_COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert command is not None and command.help, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.name}"
        assert run(name, "--help").exit_code == 0


def test_assign_balances_and_progress_counts_against_it(ws: Path) -> None:
    done = judgepool("assign", ws, "--annotators", "alice,bob,carol", "--overlap", "2")
    assert done.returncode == 0, done.stderr
    assert "stored assignment #1" in done.stdout
    assert (
        "36 items with 2 annotators each; items per annotator: alice 24, bob 24, carol 24"
        in done.stdout
    )
    rows = assigned_rows(ws, 1)
    per_item = Counter((query, doc) for _, query, doc in rows)
    assert len(per_item) == 36 and set(per_item.values()) == {2}
    assert Counter(who for who, _, _ in rows) == {"alice": 24, "bob": 24, "carol": 24}

    alice = sorted((doc for who, _, doc in rows if who == "alice"))
    grade(ws, "alice", {alice[0]: 1, alice[1]: 2, alice[2]: 0}, seconds=10.0)
    grade(ws, "alice", {alice[3]: None}, seconds=6.0)
    grade(ws, "dan", {"q1d00": 3})  # graded from the command line: no time recorded
    progress = judgepool("progress", ws, "--format", "json")
    assert progress.returncode == 0, progress.stderr
    # three timed grades in 36 s: too few for a rate (services/test_own_review.py)
    assert json.loads(progress.stdout) == [
        {"annotator": "alice", "assigned": 24, "graded": 3, "unsure": 1, "remaining": 21,
         "graded_elsewhere": 0, "seconds": 36.0, "per_hour": None},
        {"annotator": "bob", "assigned": 24, "graded": 0, "unsure": 0, "remaining": 24,
         "graded_elsewhere": 0, "seconds": 0.0, "per_hour": None},
        {"annotator": "carol", "assigned": 24, "graded": 0, "unsure": 0, "remaining": 24,
         "graded_elsewhere": 0, "seconds": 0.0, "per_hour": None},
        {"annotator": "dan", "assigned": 0, "graded": 0, "unsure": 0, "remaining": 0,
         "graded_elsewhere": 1, "seconds": 0.0, "per_hour": None},
    ]  # fmt: skip
    table = judgepool("progress", ws).stdout.splitlines()
    assert table[0].startswith("against assignment #1 of ")
    assert table[1].split() == [
        "annotator", "assigned", "graded", "unsure", "remaining", "elsewhere", "time", "per",
        "hour",
    ]  # fmt: skip
    assert table[2].split() == ["alice", "24", "3", "1", "21", "0", "0:00:36", "-"]


def test_reassigning_by_query_says_what_it_replaces_and_the_seed_decides(ws: Path) -> None:
    first = run("assign", ws, "--annotators", "alice,bob,carol", "--overlap", "2", "--seed", "5")
    assert first.exit_code == 0
    again = run("assign", ws, "--annotators", "alice,bob,carol", "--overlap", "2", "--seed", "5")
    assert (
        again.stdout.startswith("replaces assignment #1 of ")
        and "36 items to 'alice', 'bob', 'carol' (overlap 2, by item, seed 5)" in again.stdout
    )
    other = run("assign", ws, "--annotators", "alice,bob,carol", "--overlap", "2", "--seed", "6")
    assert assigned_rows(ws, 1) == assigned_rows(ws, 2) != assigned_rows(ws, 3)
    assert "replaces assignment #2" in other.stdout

    by_query = run(
        "assign", ws, "--annotators", "alice,bob,carol", "--overlap", "1", "--by", "query"
    )
    assert by_query.exit_code == 0, by_query.output
    assert (
        "3 queries with 1 annotator each; queries per annotator: alice 1, bob 1, carol 1"
        in by_query.stdout
    )
    rows = assigned_rows(ws, 4)
    owners = {query: {who for who, q, _ in rows if q == query} for query in DOCS}
    assert all(len(who) == 1 for who in owners.values())  # a query goes whole to one
    assert len({next(iter(who)) for who in owners.values()}) == 3
    assert Counter(who for who, _, _ in rows) == {"alice": 12, "bob": 12, "carol": 12}


def test_assign_queries_file_and_per_annotator(ws: Path, tmp_path: Path) -> None:
    listed = tmp_path / "mine.tsv"
    listed.write_text("# the queries of week 1\nq2\tsecond query\n\nq3\n")
    done = run(
        "assign", ws, "--annotators", "a,b", "--overlap", "1", "--queries", listed,
        "--per-annotator", "5",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "10 items with 1 annotator each; items per annotator: a 5, b 5" in done.stdout
    assert "14 items left unassigned (--per-annotator 5)" in done.stdout
    assert {query for _, query, _ in assigned_rows(ws, 1)} <= {"q2", "q3"}


def test_assign_refusals_exit_2_with_a_clear_message(ws: Path, tmp_path: Path) -> None:
    message = refused(judgepool("assign", ws, "--annotators", "a,b,c", "--overlap", "4"))
    assert "an overlap of 4 needs 4 annotators or more; 3 given (a, b, c)" in message
    queries = tmp_path / "queries.txt"
    queries.write_text("q1\nq9\n")
    message = refused(
        judgepool("assign", ws, "--annotators", "a,b", "--overlap", "1", "--queries", queries)
    )
    assert f"{queries}:2: query 'q9' is not a query of the workspace" in message
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tpooled\nq7\tnot pooled\n")
    assert run("import", ws, "queries", topics).exit_code == 0
    queries.write_text("q7\n")
    message = refused(
        judgepool("assign", ws, "--annotators", "a,b", "--overlap", "1", "--queries", queries)
    )
    assert f"{queries}:1: query 'q7' has no pooled documents" in message
    empty = tmp_path / "empty.sqlite"
    assert run("init", empty).exit_code == 0
    message = refused(judgepool("assign", empty, "--annotators", "a,b", "--overlap", "1"))
    assert "no pooled documents to assign; pool runs first" in message
    message = refused(judgepool("assign", ws, "--annotators", "a,,b", "--overlap", "1"))
    assert "an empty name" in message
    message = refused(judgepool("assign", ws, "--annotators", "a,model:x", "--overlap", "1"))
    assert "reserved" in message
    with open_workspace(ws) as workspace:
        assert workspace.conn.execute("SELECT COUNT(*) FROM assignments").fetchone() == (0,)


ALICE = [0, 1, 2, 3, 3, 2, 1, 0, 2, 2, 1, 3]
BOB = [0, 1, 2, 2, 3, 2, 0, 0, 2, 3, 1, 3]
MODEL = [1, 1, 2, 3, 2, 2, 1, 0, 3, 2, 0, 3]


def test_agreement_equals_scikit_learn_and_a_model_is_its_own_annotator(
    ws: Path, tmp_path: Path
) -> None:
    grade(ws, "alice", dict(zip(DOCS["q1"], ALICE, strict=True)))
    grade(ws, "bob", dict(zip(DOCS["q1"], BOB, strict=True)))
    grade(ws, "bob", {"q2d00": 1, "q2d01": 2, "q2d02": None})  # unsure is not a grade
    grade(ws, "alice", {"q2d00": 1, "q2d01": 1, "q2d02": 3})
    model = write_qrels(tmp_path / "gpt.qrels", {"q1": dict(zip(DOCS["q1"], MODEL, strict=True))})
    imported = run("import", ws, "qrels", model, "--source", "model:gpt")
    assert imported.exit_code == 0, imported.output
    assert "as annotator 'model:gpt'" in imported.stdout
    # a model's grade recorded under a person's name is still the model's
    grade(ws, "bob", {"q2d05": 2}, source="model:gpt")
    grade(ws, "alice", {"q2d05": 2})

    done = judgepool(
        "agreement", ws, "--annotators", "alice,bob,model:gpt", "--format", "json", "--by", "query"
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["overall"]["annotators"] == ["alice", "bob", "model:gpt"]
    pairs = {(p["a"], p["b"]): p for p in report["pairs"]}
    alice_q = [*ALICE, 1, 1]
    bob_q = [*BOB, 1, 2]
    ab = pairs["alice", "bob"]
    assert ab["items"] == 14
    for key, weights in (("cohen_kappa", None), ("kappa_linear", "linear"),
                         ("kappa_quadratic", "quadratic")):  # fmt: skip
        expected = cohen_kappa_score(alice_q, bob_q, weights=weights, labels=[0, 1, 2, 3])
        assert ab[key] == pytest.approx(expected, abs=1e-12)
    assert ab["raw_agreement"] == pytest.approx(np.mean(np.array(alice_q) == np.array(bob_q)))
    am = pairs["alice", "model:gpt"]
    assert am["items"] == 13  # q1's twelve and q2d05
    assert am["cohen_kappa"] == pytest.approx(
        cohen_kappa_score([*ALICE, 2], [*MODEL, 2], labels=[0, 1, 2, 3])
    )
    assert pairs["bob", "model:gpt"]["items"] == 12  # bob's q2d05 grade is the model's
    assert report["overall"]["fleiss_items"] == 12
    per_query = {q["query_id"]: q for q in report["per_query"]}
    assert per_query["q1"]["pairs"][0]["cohen_kappa"] == pytest.approx(
        cohen_kappa_score(ALICE, BOB, labels=[0, 1, 2, 3])
    )
    small = per_query["q2"]["pairs"][0]
    assert small["items"] == 2 and small["cohen_kappa"] is None
    assert "fewer than 10" in small["reasons"]["cohen_kappa"]
    assert report["min_items_per_query"] == 10

    only = run("agreement", ws, "--annotators", "alice,model:gpt", "--format", "json")
    assert [(p["a"], p["b"]) for p in json.loads(only.stdout)["pairs"]] == [("alice", "model:gpt")]
    table = run("agreement", ws, "--annotators", "alice,bob,model:gpt").stdout
    assert "alice – model:gpt  13" in table
    assert "all 3: Fleiss' κ" in table
    everyone = ("--annotators", "alice,bob,model:gpt")
    per_query_table = run("agreement", ws, "--by", "query", *everyone).stdout.splitlines()
    assert "query  pair" in "\n".join(per_query_table)
    q2_rows = [line.split() for line in per_query_table if line.startswith("q2 ")]
    assert q2_rows[0][:5] == ["q2", "alice", "–", "bob", "2"] and set(q2_rows[0][5:]) == {"-"}
    # reasons for lack of items are counted, not listed one by one
    counted = [line for line in per_query_table if line.startswith("  per query, ")]
    assert len(counted) == 1 and counted[0].endswith(
        "fewer than 10 items shared (--format json gives each reason)"
    )
    assert "  query q2, Fleiss' κ: no item graded by every annotator" in per_query_table


def test_agreement_refusals(ws: Path) -> None:
    assert "needs two annotators with grades or more" in refused(judgepool("agreement", ws))
    grade(ws, "alice", {"q1d00": 1})
    grade(ws, "bob", {"q1d00": 1})
    message = refused(judgepool("agreement", ws, "--annotators", "alice,bobb"))
    assert "no annotator 'bobb' has a current grade; closest: 'bob'" in message
    undefined = judgepool("agreement", ws)
    assert undefined.returncode == 0
    assert "alice – bob: only grade 1 was given" in undefined.stdout
    data = json.loads(judgepool("agreement", ws, "--format", "json").stdout)
    assert data["pairs"][0]["cohen_kappa"] is None and "NaN" not in json.dumps(data)
