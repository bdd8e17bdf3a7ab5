"""Three annotators in three terminals at once (issue 10, done-when): alice and
bob grade their assigned, overlapping queues blind while carol, the
adjudicator, watches her queue of disagreements fill and settles every one in
the app; then ``judgepool agreement`` and ``score --consensus adjudicated``
reflect exactly those grades, and every grade an app acknowledged on screen is
in the workspace.

Each app is the real command in its own tmux server; every check of the
workspace goes through the real command line in a subprocess or the services.
Skipped only when tmux is not installed (as test_terminal_e2e.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score

from judgepool.services.adjudication import settled_items
from judgepool.services.workspace import open_workspace
from tests.tui.conftest import build_workspace, set_folder
from tests.tui.terminal_support import open_terminal, wait_for_exit
from tests.tui.test_terminal_e2e import Terminal, app_command, judged, pytestmark, session_count

__all__ = ["pytestmark"]

# What each grader presses, one grade per document of their queue, in the
# order the app shows them: the two differ on some documents, not on others.
ALICE = (2, 1, 3, 0, 2, 1)
BOB = (2, 3, 3, 1, 0, 1)
SAVED = re.compile(r"saved (\d) \S+(?: relevant)? for (\S+) · (\d+) judged this session")


def judgepool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judgepool", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def acknowledged(terminal: Terminal, count: int) -> tuple[str, int]:
    """Wait until the app says it saved grade number ``count``; the document
    and grade it names (what the annotator was told is kept)."""
    shown = terminal.wait_for(session_count(count), timeout=20.0)
    found = SAVED.search(shown)
    assert found is not None and int(found.group(3)) == count, shown
    return found.group(2), int(found.group(1))


def blind(shown: str, other: str) -> None:
    """Nothing on a grader's screen names the other grader or their grade."""
    assert other not in shown and "also graded" not in shown, shown


def scores(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    assert done.returncode == 0, done.stderr
    return {row["run_digest"]: row for row in map(json.loads, done.stdout.splitlines())}


@pytest.mark.slow
def test_three_annotators_grade_blind_and_carol_adjudicates(tmp_path: Path) -> None:
    workspace = build_workspace(tmp_path / "team.sqlite", ["hostile", "teaching"])
    done = judgepool("assign", workspace, "--annotators", "alice,bob", "--overlap", "2")
    assert done.returncode == 0 and "items per annotator: alice 6, bob 6" in done.stdout
    done = judgepool("annotators", workspace, "add", "carol", "--role", "adjudicator")
    assert done.returncode == 0, done.stderr

    with (
        open_terminal(tmp_path) as alice,
        open_terminal(tmp_path) as bob,
        open_terminal(tmp_path) as carol,
    ):
        for name, terminal in (("alice", alice), ("bob", bob), ("carol", carol)):
            terminal.start(*app_command(workspace, name))
        for name, terminal in (("alice", alice), ("bob", bob), ("carol", carol)):
            terminal.wait_for(lambda s, n=name: f"annotator {n}" in s, timeout=30.0)
        # an annotator's audit, scores, agreement and adjudication keys open nothing
        for key in ("a", "s", "K", "D"):
            alice.keys(key)
        alice.keys("?")
        shown = alice.wait_for(lambda s: "List every key" in s)
        # her help lists no key of a screen she cannot open
        assert "Show the audit screen" not in shown and "nDCG" not in shown, shown
        alice.keys("Escape")
        alice.wait_for(lambda s: "List every key" not in s and "annotator alice" in s)
        # carol opens her queue before anyone has graded: it starts empty
        carol.keys("D")
        carol.wait_for(lambda s: "Adjudicate · 0 unresolved of 0" in s)

        told: dict[str, dict[str, int]] = {"alice": {}, "bob": {}}
        for count, (a, b) in enumerate(zip(ALICE, BOB, strict=True), start=1):
            alice.keys(str(a))  # both at once: each app commits while the other does
            bob.keys(str(b))
            for name, terminal, other in (("alice", alice, "bob"), ("bob", bob, "alice")):
                doc, grade = acknowledged(terminal, count)
                told[name][doc] = grade
                blind(terminal.screen(), other)
        assert "of 6 judged" in alice.screen() and "6 of 6 judged" in bob.screen()

        # what the workspace holds is what each app acknowledged: no grade lost
        stored = {name: judged(workspace, name) for name in ("alice", "bob")}
        for name in ("alice", "bob"):
            by_doc = {doc: grade for (_, doc), grade in stored[name].items()}
            assert by_doc == told[name]
        items = sorted(stored["alice"])
        assert sorted(stored["bob"]) == items  # overlap 2 of 2: the same six items
        differ = [item for item in items if stored["alice"][item] != stored["bob"][item]]
        assert differ, "the graders were meant to disagree somewhere"

        # before carol settles anything, the adjudicated consensus refuses, and says why
        refused = judgepool("score", "--workspace", workspace, "--consensus", "adjudicated")
        assert refused.returncode != 0 and "an unresolved disagreement" in refused.stderr

        # carol's queue filled while she watched; she sees every grade with its name
        n = len(differ)
        shown = carol.wait_for(lambda s: f"{n} unresolved of {n}" in s, timeout=10.0)
        assert "alice" in shown and "bob" in shown
        for settled in range(1, n + 1):
            carol.keys("3" if settled % 2 else "1")
            carol.wait_for(lambda s, left=n - settled: f"{left} unresolved of {n}" in s)
        with open_workspace(workspace) as ws:
            carol_grades = settled_items(ws, "carol")
        assert sorted(carol_grades) == differ
        # her settling grades are adjudications, not annotations of hers
        assert not any(grade is not None for grade in judged(workspace, "carol").values())

        for terminal in (alice, bob, carol):
            terminal.keys("q")
            wait_for_exit(terminal)

    # agreement: alice and bob share six items, with the raw agreement and κ of their grades
    done = judgepool("agreement", workspace, "--annotators", "alice,bob", "--format", "json")
    assert done.returncode == 0, done.stderr
    (pair,) = json.loads(done.stdout)["pairs"]
    a = [stored["alice"][item] for item in items]
    b = [stored["bob"][item] for item in items]
    assert (pair["a"], pair["b"], pair["items"]) == ("alice", "bob", 6)
    assert pair["raw_agreement"] == sum(x == y for x, y in zip(a, b, strict=True)) / 6
    assert abs(pair["cohen_kappa"] - cohen_kappa_score(a, b, labels=[0, 1, 2, 3])) < 1e-12

    # score --consensus adjudicated: the agreed grades, carol's where they differ
    consensus = {item: stored["alice"][item] for item in items}
    consensus.update(carol_grades)
    qrels = tmp_path / "expected.qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in sorted(consensus.items())))
    from_workspace = scores(
        judgepool(
            "score", "--workspace", workspace, "--consensus", "adjudicated", "--format", "json"
        )
    )
    runs = [
        run for name in ("hostile", "teaching") for run in sorted(set_folder(name).glob("*.trec"))
    ]
    from_file = scores(judgepool("score", *runs, "--qrels", qrels, "--format", "json"))
    assert from_workspace.keys() == from_file.keys() and len(from_file) == len(runs)
    for digest, row in from_workspace.items():
        assert row["qrels_digest"] == from_file[digest]["qrels_digest"]
        assert row["summary"] == from_file[digest]["summary"]
