"""Each package's docstring is its map: it names every module and subpackage in
it, so a newcomer who opens `__init__.py` finds every file the package holds.
A module added without a line there fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "judgepool"


def unnamed_members(package: Path) -> list[str]:
    """The modules and subpackages of ``package`` its docstring does not name
    (as `name`, in backticks, the way the docstrings cite a module)."""
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8"))) or ""
    named = set(re.findall(r"`+([A-Za-z_][A-Za-z0-9_.]*)`+", docstring))
    # A dotted citation (`runs.scoring`) names its first part too.
    named |= {part for name in named for part in name.split(".")}
    members = sorted(
        path.stem if path.is_file() else path.name
        for path in package.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py")
        or (path.is_dir() and (path / "__init__.py").exists())
    )
    return [member for member in members if member not in named]


PACKAGES = sorted(init.parent for init in SOURCE.rglob("__init__.py"))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(SOURCE.parent)))
def test_each_package_docstring_names_each_of_its_modules(package: Path) -> None:
    missing = unnamed_members(package)
    assert not missing, (
        f"{package.relative_to(SOURCE.parent)}/__init__.py's docstring does not name: "
        + ", ".join(missing)
    )


def test_the_check_fails_on_a_module_left_out(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "inner").mkdir(parents=True)
    (package / "inner" / "__init__.py").write_text('"""Inner."""\n')
    (package / "__init__.py").write_text('"""The package: `named` does one thing."""\n')
    (package / "named.py").write_text("")
    (package / "forgotten.py").write_text("")
    (package / "notes.txt").write_text("not a module")
    assert unnamed_members(package) == ["forgotten", "inner"]
