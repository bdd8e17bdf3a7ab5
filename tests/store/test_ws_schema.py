"""The workspace file: creation, recognition, refusing other files untouched,
upgrading older schemas without losing rows, and the append-only ledger."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.errors import InputError
from judgepool.services.judging import judge
from judgepool.store.runs import run_entries
from judgepool.store.schema import APPLICATION_ID, SCHEMA_VERSION, apply_migrations
from judgepool.store.workspace import TREC_DL_LABELS, create_workspace, open_workspace


def _siblings(path: Path) -> set[str]:
    return {p.name for p in path.parent.iterdir()}


def test_new_workspace_has_current_schema_wal_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with create_workspace(path) as ws:
        assert ws.schema_version() == SCHEMA_VERSION
        assert ws.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert ws.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
        assert ws.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert ws.scale == Scale(0, 3)
        assert ws.labels() == TREC_DL_LABELS
        assert ws.default_contract() == Contract(scale=Scale(0, 3))
    # the header (read without SQLite) carries the application ID
    assert int.from_bytes(path.read_bytes()[68:72], "big") == APPLICATION_ID


def test_scale_and_labels_are_recorded(tmp_path: Path) -> None:
    with create_workspace(tmp_path / "w.sqlite", Scale(-1, 4), {4: "Key"}) as ws:
        assert ws.scale == Scale(-1, 4)
        assert ws.labels()[4] == "Key"
        assert ws.labels()[-1] == "-1"
        assert ws.default_contract().scale == Scale(-1, 4)


def test_init_refuses_an_existing_file_untouched(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    path.write_text("precious\n")
    with pytest.raises(InputError, match="already exists"):
        create_workspace(path)
    assert path.read_text() == "precious\n"
    assert _siblings(path) == {"w.sqlite"}


def _other_sqlite(path: Path, wal: bool) -> None:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    ("maker", "message"),
    [
        (lambda p: p.write_text("q1 0 d1 1\n"), "not an SQLite database"),
        (lambda p: p.write_bytes(b""), "not an SQLite database"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00"), "not an SQLite database"),
        (lambda p: _other_sqlite(p, wal=False), "not a judgepool workspace"),
        (lambda p: _other_sqlite(p, wal=True), "not a judgepool workspace"),
    ],
    ids=["text", "empty", "truncated-header", "sqlite", "sqlite-wal"],
)
def test_a_file_that_is_not_a_workspace_is_refused_untouched(
    tmp_path: Path, maker: object, message: str
) -> None:
    path = tmp_path / "other.db"
    maker(path)  # type: ignore[operator]
    before = path.read_bytes()
    names = _siblings(path)
    stat = path.stat()
    with pytest.raises(InputError, match=message) as caught:
        open_workspace(path)
    assert caught.value.path == str(path)
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert _siblings(path) == names  # no -wal, -shm or -journal created


def test_missing_file_and_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such workspace"):
        open_workspace(tmp_path / "absent.sqlite")
    assert not (tmp_path / "absent.sqlite").exists()
    with pytest.raises(InputError, match="directory"):
        open_workspace(tmp_path)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    create_workspace(path).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
    )
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="newer judgepool"):
        open_workspace(path)


def _make_version_1(path: Path) -> None:
    """A workspace as the first schema version left it, with rows in every table."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("BEGIN IMMEDIATE")
    apply_migrations(conn, 0, until=1)
    conn.executemany(
        "INSERT INTO settings (key, value) VALUES (?, ?)",
        [("scale", '"0..3"'), ("grade_labels", '{"0": "Irrelevant"}')],
    )
    conn.execute("INSERT INTO queries VALUES ('q1', 'what is a pool', 'a narrative')")
    conn.execute("INSERT INTO documents VALUES ('d1', 'a pool is ...', 'Pools')")
    conn.execute(
        "INSERT INTO runs (name, source, digest, imported_at, lines, first_row, last_row) "
        "VALUES ('bm25', 'bm25.run', 'abc', '2024-01-01T00:00:00Z', 2, 1, 2)"
    )
    conn.executemany(
        "INSERT INTO run_lines VALUES (1, ?, 'q1', ?, ?, ?, 'tag')",
        [(1, "d1", 1, 2.5), (2, "d1", 2, 1.5)],  # a duplicate kept as imported
    )
    for annotator, grade, previous in (("alice", 2, None), ("alice", 3, 2), ("bob", 1, None)):
        conn.execute(
            "INSERT INTO judgment_events (query_id, doc_id, grade, unsure, annotator, created_at, "
            "previous_grade, source) VALUES ('q1', 'd1', ?, 0, ?, '2024-01-01T00:00:00Z', ?, "
            "'human')",
            (grade, annotator, previous),
        )
    conn.execute("INSERT INTO pools VALUES ('default', '2024-01-01T00:00:00Z')")
    conn.execute("INSERT INTO pool_members VALUES ('default', 'q1', 'd1', '2024-01-01T00:00:00Z')")
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()


def _dump(path: Path, tables: list[str]) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in tables}
    finally:
        conn.close()


V1_TABLES = [
    "settings", "queries", "documents", "runs", "run_lines", "judgment_events",
    "current_judgments", "pools", "pool_members",
]  # fmt: skip


def test_opening_a_version_1_workspace_upgrades_it_keeping_every_row(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _make_version_1(path)
    before = _dump(path, V1_TABLES)
    assert len(before["judgment_events"]) == 3
    with open_workspace(path) as ws:
        assert ws.schema_version() == SCHEMA_VERSION
        assert ws.scale == Scale(0, 3)
        annotators = ws.conn.execute("SELECT name, role FROM annotators ORDER BY name")
        assert annotators.fetchall() == [("alice", None), ("bob", None)]
        # new columns arrive empty, and the file is usable at once
        assert (
            ws.conn.execute(
                "SELECT COUNT(*) FROM judgment_events WHERE seconds IS NULL"
            ).fetchone()[0]
            == 3
        )
        judge(ws, "q1", "d1", 0, annotator="bob", allow_new=True)
        # a run imported before column snapshots existed is read from its rows
        entries = run_entries(ws, "bm25")
        assert [(e.doc_id, e.rank, e.line) for e in entries] == [("d1", 1, 1), ("d1", 2, 2)]
    after = _dump(path, V1_TABLES)
    for table in V1_TABLES:
        if table in ("judgment_events", "current_judgments"):
            continue
        assert after[table] == before[table], table
    # the old events are all still there, first and unchanged (new columns appended)
    assert [row[:11] for row in after["judgment_events"][:3]] == before["judgment_events"]
    assert len(after["judgment_events"]) == 4


def test_a_failed_upgrade_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _make_version_1(path)
    # Someone added a table the next migration needs to create.
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE evaluations (x)")
    conn.commit()
    conn.close()
    before = _dump(path, [*V1_TABLES, "meta"])
    with pytest.raises(InputError, match=r"cannot upgrade .* the file is unchanged"):
        open_workspace(path)
    assert _dump(path, [*V1_TABLES, "meta"]) == before
    conn = sqlite3.connect(path)
    columns = [row[1] for row in conn.execute("PRAGMA table_info(judgment_events)")]
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert "seconds" not in columns
    assert "annotators" not in tables


def test_the_ledger_refuses_update_and_delete(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with create_workspace(path) as ws:
        judge(ws, "q1", "d1", 2, annotator="alice", allow_new=True)
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE judgment_events SET grade = 3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM judgment_events")
    conn.rollback()
    assert conn.execute("SELECT grade FROM judgment_events").fetchall() == [(2,)]
    conn.close()
