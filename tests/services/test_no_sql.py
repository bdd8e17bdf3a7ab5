"""The services hold no SQL: every statement lives in `judgepool.store`, so the
use cases read as use cases and the schema has one place."""

from __future__ import annotations

import re
from pathlib import Path

import judgepool.services

SERVICES = Path(judgepool.services.__file__).parent
# A statement run on a connection, or SQL's own words in a string.
SQL = re.compile(
    r"\.execute(many|script)?\(|\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE TABLE)\b"
)


def sql_lines(folder: Path) -> list[str]:
    """``file:line: text`` of every line in ``folder``'s modules that looks like SQL."""
    found: list[str] = []
    for module in sorted(folder.glob("*.py")):
        for number, line in enumerate(module.read_text(encoding="utf-8").splitlines(), start=1):
            if SQL.search(line):
                found.append(f"{module.name}:{number}: {line.strip()}")
    return found


def test_no_service_module_runs_sql() -> None:
    assert sql_lines(SERVICES) == []


def test_the_check_sees_sql(tmp_path: Path) -> None:
    # Guards against a check that cannot fail.
    (tmp_path / "leaky.py").write_text(
        'rows = ws.conn.execute("SELECT 1")\nquery = "DELETE FROM runs"\n', encoding="utf-8"
    )
    assert [line.split(":")[1] for line in sql_lines(tmp_path)] == ["1", "2"]
