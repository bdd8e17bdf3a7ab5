"""Commands on a workspace that is truly read-only (issue 7, point 9): a
read-only file, a read-only folder, or both.

Reading commands work (export, evaluations, audit, annotators,
disagreements, and score, which says it did not store its evaluation);
writing commands say the workspace is read-only, exit 2 and change nothing.
Every command runs in a subprocess that file permissions bind, also as
root (see tests/read_only.py).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.services.evaluations import list_evaluations
from judgepool.services.workspace import open_workspace
from judgepool.store.schema import SCHEMA_VERSION
from tests.read_only import (
    Outcome,
    read_only_file,
    read_only_folder,
    require_truly_read_only,
    run_judgepool,
    run_many,
    snapshot,
)
from tests.tui.review_support import build_review_workspace

Kind = str  # "file", "folder" or "both"
KINDS = ["file", "folder", "both"]
REASONS = {
    "file": "you may not write the file",
    "folder": "you may not write its folder, where SQLite keeps its -wal and -shm files",
    "both": "you may not write the file",
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The review workspace (queries, documents, qrels, runs alpha and beta)
    with one stored evaluation, closed; its input files beside its folder."""
    base = tmp_path_factory.mktemp("read-only")
    path = build_review_workspace(base)
    stored = run_judgepool("score", "beta", "--workspace", path)
    assert stored.returncode == 0, stored.stderr
    return path


@pytest.fixture
def workspace(template: Path, tmp_path: Path) -> Path:
    """A copy of the template, alone in a folder of its own."""
    folder = tmp_path / "shared"
    folder.mkdir()
    require_truly_read_only(folder)
    return Path(shutil.copyfile(template, folder / template.name))


def inputs(workspace: Path, name: str) -> Path:
    return workspace.parent.parent / name


@contextlib.contextmanager
def read_only(path: Path, kind: Kind) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        if kind in ("file", "both"):
            stack.enter_context(read_only_file(path))
        if kind in ("folder", "both"):
            stack.enter_context(read_only_folder(path.parent))
        yield


def stored_evaluations(path: Path) -> int:
    with open_workspace(path) as ws:
        return len(list_evaluations(ws))


def clean(outcome: Outcome) -> bool:
    """No traceback, no exception escaped, no "unexpected error … bug"."""
    text = outcome.stderr + outcome.stdout
    return outcome.exception is None and "unexpected" not in text and "Traceback" not in text


@pytest.mark.parametrize("kind", KINDS)
def test_reading_commands_work_on_a_read_only_workspace(workspace: Path, kind: Kind) -> None:
    (expected,) = run_many(["export", workspace, "qrels"])
    before = snapshot(workspace.parent)
    with read_only(workspace, kind):
        export, evaluations, audit, annotators, disagreements, score = run_many(
            ["export", workspace, "qrels"],
            ["evaluations", workspace],
            ["audit", "--workspace", workspace],
            ["annotators", workspace],
            ["disagreements", workspace],
            ["score", "--workspace", workspace, "--unjudged", "zero"],
        )
    for done in (export, evaluations, audit, annotators, disagreements, score):
        assert done.exit_code == 0 and clean(done), done
    assert export.stdout == expected.stdout
    assert "q1 0 A 3" in export.stdout
    assert evaluations.stdout.startswith("#1 ")
    assert "alpha" in audit.stdout and "beta" in audit.stdout
    assert "import:qrels.txt" in annotators.stdout
    assert "no disagreements" in disagreements.stdout
    assert "alpha" in score.stdout and "beta" in score.stdout and "nDCG@10" in score.stdout
    assert score.stderr == (
        f"judgepool: the evaluations were not stored in {workspace}: the workspace is "
        f"read-only ({REASONS[kind]})\n"
    )
    assert stored_evaluations(workspace) == 1
    after = snapshot(workspace.parent)
    if kind == "file":
        # SQLite adds (empty) -wal and -shm files beside a read-only file in a
        # writable folder; the workspace itself is unchanged
        assert after[workspace.name] == before[workspace.name]
    else:
        assert after == before  # not a byte written, no file created


@pytest.mark.parametrize("kind", KINDS)
def test_writing_commands_say_the_workspace_is_read_only(workspace: Path, kind: Kind) -> None:
    before = snapshot(workspace.parent)
    with read_only(workspace, kind):
        outcomes = run_many(
            ["judge", workspace, "q1", "A", "2", "--annotator", "bob"],
            ["import", workspace, "run", inputs(workspace, "alpha.trec"), "--name", "gamma"],
            ["import", workspace, "qrels", inputs(workspace, "qrels.txt"), "--annotator", "c"],
            ["import", workspace, "docs", inputs(workspace, "docs.tsv")],
            ["pool", workspace, "--depth", "3"],
            ["annotators", workspace, "--adjudicator", "import:qrels.txt"],
        )
    for done in outcomes:
        assert done.exit_code == 2 and clean(done), done
        assert done.stderr == (
            f"judgepool: {workspace}: the workspace is read-only ({REASONS[kind]}); nothing "
            "was changed. To change it, make it writable, or copy it (with its -wal file, if "
            "any) to a folder you can write to\n"
        ), done
        assert done.stdout == ""
    assert snapshot(workspace.parent)[workspace.name] == before[workspace.name]


def test_the_real_command_line_on_a_read_only_folder(workspace: Path) -> None:
    """The same through `judgepool` itself: its exit codes and output streams."""
    with read_only(workspace, "folder"):
        export = run_judgepool("export", workspace, "qrels")
        judge = run_judgepool("judge", workspace, "q1", "A", "2", "--annotator", "bob")
    assert export.returncode == 0, export.stderr
    assert export.stdout.startswith("q1 0 A 3\n")
    assert judge.returncode == 2
    assert judge.stdout == ""
    assert "the workspace is read-only" in judge.stderr


def test_score_of_one_run_says_its_evaluation_was_not_stored(workspace: Path) -> None:
    with read_only(workspace, "both"):
        (done,) = run_many(["score", "alpha", "--workspace", workspace, "--unjudged", "zero"])
    assert done.exit_code == 0 and clean(done), done
    assert "alpha" in done.stdout
    assert done.stderr.startswith(f"judgepool: the evaluation was not stored in {workspace}: ")


def test_export_to_a_file_from_a_read_only_folder(workspace: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "qrels.txt"
    target.parent.mkdir()
    with read_only(workspace, "folder"):
        (done,) = run_many(["export", workspace, "qrels", "-o", target])
    assert done.exit_code == 0 and clean(done), done
    assert target.read_text().startswith("q1 0 A 3\n")


def test_init_in_a_read_only_folder_is_refused_clearly(workspace: Path) -> None:
    target = workspace.parent / "new.sqlite"
    with read_only_folder(workspace.parent):
        (done,) = run_many(["init", target])
    assert done.exit_code == 2 and clean(done), done
    assert done.stderr == (
        f"judgepool: {target}: cannot create a workspace here: you may not write its folder\n"
    )
    assert not target.exists()


@pytest.mark.parametrize("made", [False, True], ids=["no-workspaces-folder", "read-only-one"])
def test_demo_in_a_read_only_folder_is_refused_clearly(workspace: Path, made: bool) -> None:
    here = workspace.parent
    if made:
        (here / "workspaces").mkdir()
    with read_only_folder(here / "workspaces" if made else here):
        (done,) = run_many(["demo"], cwd=here)
    assert done.exit_code == 2 and clean(done), done
    assert done.stderr.startswith(
        f"judgepool: {here / 'workspaces' / 'demo.sqlite'}: cannot build the demo workspace here ("
    )
    assert "run judgepool from a folder you can write to" in done.stderr
    assert not (here / "workspaces" / "demo.sqlite").exists()


def _older_schema(path: Path) -> None:
    """Make the workspace a schema version 2 one, as judgepool made it then: what
    migrations 3 and 4 add taken out, and no migration log."""
    conn = sqlite3.connect(path)
    for trigger in ("documents_ai", "documents_ad", "documents_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE documents_fts")
    conn.execute("DROP TABLE _sqlite_migrations")
    conn.execute("DROP INDEX pool_members_item")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_an_older_workspace_that_needs_an_upgrade_is_refused_clearly(
    workspace: Path, kind: Kind
) -> None:
    _older_schema(workspace)
    before = snapshot(workspace.parent)
    with read_only(workspace, kind):
        (done,) = run_many(["export", workspace, "qrels"])
    assert done.exit_code == 2 and clean(done), done
    assert f"the workspace is read-only ({REASONS[kind]}); it was made by an older" in done.stderr
    assert f"(schema version 2) and must be upgraded to version {SCHEMA_VERSION}" in done.stderr
    assert snapshot(workspace.parent)[workspace.name] == before[workspace.name]
