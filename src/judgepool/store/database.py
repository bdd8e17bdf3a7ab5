"""sqlite-utils' `Database` and `Migrations`, for the store's modules: the one
place that imports sqlite-utils, so that it is imported with pandas hidden.

sqlite-utils imports pandas, where it is installed, only to store a pandas
Timestamp as TEXT, which judgepool never stores: with pandas installed (many an
IR engineer has it), 0.13 s of CPU at the start of every command that opens a
workspace (`judgepool init`: 0.55 s, 0.42 s without). It is hidden while
sqlite-utils is first imported, and only then: pandas stays importable for
anyone after, and where it was imported before, nothing changes. This lives in
its own module, not the package's `__init__`, so that the store's modules that
never open a database (`open_files`, imported by scoring a qrels file) do not
load SQLite either.
"""

import sys

if "sqlite_utils" not in sys.modules and "pandas" not in sys.modules:
    sys.modules["pandas"] = None  # type: ignore[assignment]  # import pandas: ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        del sys.modules["pandas"]

from sqlite_utils import Database, Migrations

__all__ = ["Database", "Migrations"]
