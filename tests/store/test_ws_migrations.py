"""The schema's history holds: the first three migrations make exactly the
schema judgepool made before sqlite-utils ran them (recorded in
``tests/store/schema/vN.json`` from that code's ``sqlite_master``), and a
workspace made by an older judgepool, once upgraded, has the schema of a new
one, down to the SQL text SQLite keeps."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from judgepool.store.migrations import MIGRATIONS
from judgepool.store.schema import APPLICATION_ID, SCHEMA_VERSION, apply_migrations
from judgepool.store.workspace import create_workspace, open_workspace

RECORDED = Path(__file__).parent / "schema"
LOG = "_sqlite_migrations"

SchemaRow = tuple[str, str, str, str]


def recorded(version: int) -> list[SchemaRow]:
    """The schema of a version-``version`` workspace as the code before sqlite-utils made it."""
    rows = json.loads((RECORDED / f"v{version}.json").read_text(encoding="utf-8"))
    return [(kind, name, table, sql) for kind, name, table, sql in rows]


def schema(conn: sqlite3.Connection) -> list[SchemaRow]:
    """Every object with SQL of its own, in the order it was created."""
    return conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    ).fetchall()


def without_log(rows: list[SchemaRow]) -> list[SchemaRow]:
    return [row for row in rows if row[2] != LOG]


def file_schema(path: Path) -> list[SchemaRow]:
    conn = sqlite3.connect(path)
    try:
        return sorted(schema(conn))
    finally:
        conn.close()


@pytest.mark.parametrize("version", [1, 2, 3])
def test_history_makes_the_recorded_schema(version: int) -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    apply_migrations(conn, 0, until=version)
    conn.execute("COMMIT")
    assert without_log(schema(conn)) == recorded(version)
    logged = [row[0] for row in conn.execute(f"SELECT name FROM {LOG} ORDER BY rowid")]
    assert logged == [m.name for m in MIGRATIONS[:version]]


def test_a_new_workspace_adds_only_search_assignments_pool_finds_and_sign_in_to_the_recorded_schema(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new.sqlite"
    create_workspace(path).close()
    conn = sqlite3.connect(path)
    rows = without_log(schema(conn))
    conn.close()
    v3 = recorded(3)
    assert rows[: len(v3)] == v3
    added = rows[len(v3) :]
    assert {name for _, name, _, _ in added} == {
        "documents_fts", "documents_fts_data", "documents_fts_idx", "documents_fts_docsize",
        "documents_fts_config", "documents_ai", "documents_ad", "documents_au",
        "assignments", "assigned_items", "judgment_events_model", "judgment_events_timed",
        "current_judgments_annotator", "pool_finds",
        "sign_in_tokens", "sign_in_failures", "sign_in_failures_at",
    }  # fmt: skip


def make_legacy(path: Path, version: int) -> None:
    """A workspace file as a judgepool of schema ``version`` (before the
    migration log) left it: the recorded schema, its version and a scale."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("BEGIN IMMEDIATE")
    for _, name, _, sql in recorded(version):
        if name != "sqlite_sequence":  # made by SQLite itself with the first AUTOINCREMENT table
            conn.execute(sql)
    conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(version),))
    conn.execute("INSERT INTO settings (key, value) VALUES ('scale', '\"0..3\"')")
    conn.execute("INSERT INTO documents (id, text, title) VALUES ('d1', 'an old pool', 'Old')")
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()


@pytest.mark.parametrize("version", [1, 2, 3])
def test_an_upgraded_workspace_has_the_schema_of_a_new_one(tmp_path: Path, version: int) -> None:
    new = tmp_path / "new.sqlite"
    create_workspace(new).close()
    old = tmp_path / f"v{version}.sqlite"
    make_legacy(old, version)
    with open_workspace(old) as ws:
        assert ws.schema_version() == SCHEMA_VERSION
        log = ws.conn.execute(f"SELECT name, applied_at FROM {LOG} ORDER BY rowid").fetchall()
        # the document imported before search existed is found
        found = ws.conn.execute(
            "SELECT rowid FROM documents_fts WHERE documents_fts MATCH 'pool'"
        ).fetchall()
    assert file_schema(old) == file_schema(new)
    assert [name for name, _ in log] == [m.name for m in MIGRATIONS]
    assert [when for _, when in log[:version]] == ["before the workspace kept this log"] * version
    assert found == [(1,)]
