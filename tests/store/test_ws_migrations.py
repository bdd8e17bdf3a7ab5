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

from judgepool.services.consensus import workspace_judgments
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


def test_a_new_workspace_adds_to_the_recorded_schema_only_what_later_versions_add(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new.sqlite"
    create_workspace(path).close()
    conn = sqlite3.connect(path)
    rows = without_log(schema(conn))
    conn.close()
    v3 = {name: row for row in recorded(3) for name in [row[1]]}
    now = {name: row for row in rows for name in [row[1]]}
    assert set(now) - set(v3) == {
        "documents_fts", "documents_fts_data", "documents_fts_idx", "documents_fts_docsize",
        "documents_fts_config", "documents_ai", "documents_ad", "documents_au",
        "assignments", "assigned_items", "judgment_events_model", "judgment_events_timed",
        "current_judgments_annotator", "pool_finds",
        "sign_in_tokens", "sign_in_failures", "sign_in_failures_at",
        "current_adjudications", "judgment_events_set_adjudication",
        "judgment_events_withdraw_adjudication", "model_replies", "model_replies_rater",
        "model_claims", "model_claims_run",
    }  # fmt: skip
    assert set(v3) <= set(now)
    # version 8 changed these (roles, adjudications, undos dated): nothing else
    changed = {name for name in v3 if now[name] != v3[name]}
    assert changed == {
        "annotators", "judgment_events", "current_judgments",
        "judgment_events_set_current", "judgment_events_withdraw_current",
    }  # fmt: skip


def test_version_8_keeps_every_judged_universe_and_dates_undos_from_their_grade(
    tmp_path: Path,
) -> None:
    """A version-7 workspace with an adjudicator and an undo: after the upgrade
    the adjudicated and median universes are as before, the adjudicator's
    grades still settle, and latest dates an undone-to grade from when it was
    given (a's 2 given before b's 3 no longer wins after a's undo)."""
    path = tmp_path / "v7.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("BEGIN IMMEDIATE")
    apply_migrations(conn, 0, until=7)
    conn.execute("INSERT INTO settings (key, value) VALUES ('scale', '\"0..3\"')")
    events = [  # (id, query, doc, grade, annotator, previous_event, undoes)
        (1, "q1", "d1", 2, "a", None, None),
        (2, "q1", "d1", 1, "a", 1, None),
        (3, "q1", "d1", 3, "b", None, None),
        (4, "q1", "d1", 2, "a", 2, 2),  # a's undo of 1: back to 2, given before b's 3
        (5, "q1", "d2", 0, "a", None, None),
        (6, "q1", "d2", 3, "judy", None, None),
    ]
    for id_, query_id, doc_id, grade, who, previous, undoes in events:
        conn.execute(
            "INSERT INTO judgment_events (id, query_id, doc_id, grade, unsure, annotator, "
            "created_at, previous_event, source, undoes) VALUES (?, ?, ?, ?, 0, ?, 't', ?, "
            "'human', ?)",
            (id_, query_id, doc_id, grade, who, previous, undoes),
        )
    for who in ("a", "b", "judy"):
        conn.execute("INSERT INTO annotators (name, adjudicator, added_at) VALUES (?, ?, 't')",
                     (who, int(who == "judy")))  # fmt: skip
    conn.execute("COMMIT")
    conn.close()
    with open_workspace(path) as ws:
        assert ws.schema_version() == SCHEMA_VERSION
        assert workspace_judgments(ws, "adjudicated")[0] == {"q1": {"d2": 3}}  # d1 unresolved
        assert workspace_judgments(ws, "median")[0] == {"q1": {"d1": 2, "d2": 0}}
        assert workspace_judgments(ws, "latest")[0] == {"q1": {"d1": 3, "d2": 3}}
        roles = ws.conn.execute("SELECT name, role FROM annotators ORDER BY name").fetchall()
        assert roles == [("a", None), ("b", None), ("judy", "adjudicator")]


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
