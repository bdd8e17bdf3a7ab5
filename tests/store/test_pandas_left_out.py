"""Opening a workspace does not import pandas (sqlite-utils would, where it is
installed, at 0.13 s of CPU a command), and pandas stays importable after it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

CHECK = """
import sys
from judgepool.services.workspace import init_workspace
with init_workspace(sys.argv[1], scale="0..3"):
    pass
assert "pandas" not in sys.modules, "opening a workspace imported pandas"
import sqlite_utils.db
assert sqlite_utils.db.pd is None
import pandas
print(pandas.__name__)
"""


def test_a_workspace_opens_without_pandas_and_pandas_still_imports(tmp_path: Path) -> None:
    pytest.importorskip("pandas")  # with the test dependencies (statsmodels), it is installed
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(tmp_path / "w.sqlite")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pandas"


def test_only_the_database_module_imports_sqlite_utils() -> None:
    # Another module importing sqlite-utils first would bring pandas back.
    store = Path(__file__).parents[2] / "src" / "judgepool"
    importers = sorted(
        str(path.relative_to(store))
        for path in store.rglob("*.py")
        if re.search(r"^\s*(from|import) sqlite_utils\b", path.read_text(), re.MULTILINE)
    )
    assert importers == ["store/database.py"]
