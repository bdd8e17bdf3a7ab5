"""The migrations' layout holds (`judgepool.store.migrations`): every module
of the package but its ``__init__`` is one migration, ``vNN_what.py`` holding
the one function ``vN_what``; each is in `MIGRATIONS` exactly once, in the
order of the file names, which is the order of the versions; and there are as
many as the schema version `judgepool.store.schema` says is current."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import judgepool.store.migrations
from judgepool.store.migrations import MIGRATIONS
from judgepool.store.schema import SCHEMA_VERSION

PACKAGE = Path(judgepool.store.migrations.__file__).resolve().parent
NAME = judgepool.store.migrations.__name__
FILE = re.compile(r"v(?P<version>\d{2})_(?P<what>[a-z][a-z0-9_]*)\.py")


def migration_files() -> list[Path]:
    """The package's modules but its ``__init__``, by file name."""
    return sorted(path for path in PACKAGE.glob("*.py") if path.name != "__init__.py")


def test_the_package_holds_modules_only() -> None:
    entries = {path.name for path in PACKAGE.iterdir() if path.name != "__pycache__"}
    assert all(name.endswith(".py") for name in entries), sorted(entries)


def test_every_module_is_named_for_its_version() -> None:
    for path in migration_files():
        assert FILE.fullmatch(path.name), f"{path.name}: not vNN_what_it_adds.py"


def test_every_module_is_in_migrations_once_in_file_order() -> None:
    modules = [f"{NAME}.{path.stem}" for path in migration_files()]
    listed = [migration.apply.__module__ for migration in MIGRATIONS]
    assert listed == modules


def test_each_module_holds_only_its_migration() -> None:
    for path, migration in zip(migration_files(), MIGRATIONS, strict=True):
        match = FILE.fullmatch(path.name)
        assert match is not None
        version, what = int(match["version"]), match["what"]
        assert migration.version == version, path.name
        assert migration.name == f"{version:04d}_{what}", path.name
        assert migration.apply.__name__ == f"v{version}_{what}", path.name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path.name} says nothing of what it adds"
        defined = [
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
        assert defined == [migration.apply.__name__], path.name


def test_there_is_one_migration_per_schema_version() -> None:
    assert len(MIGRATIONS) == SCHEMA_VERSION
    assert [migration.version for migration in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))
    assert len({migration.name for migration in MIGRATIONS}) == len(MIGRATIONS)
