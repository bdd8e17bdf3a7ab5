"""No two modules of judgepool import each other, however indirectly, and
however deep in a function the import is.

An import inside a function keeps start-up fast (numpy and pyarrow are loaded
when a run is read, not for ``judgepool --help``), but it must not hide a
cycle: two modules that need each other are one module in two files, and
following a use case through them goes back and forth between them. This
test reads every module with `ast` (no module is imported), takes every
import wherever it is written (at module level, in a function, under
``if TYPE_CHECKING:``), and fails on any cycle, naming the modules around it.

What an import is an edge to:

- ``import a.b.c`` and ``from a.b.c import name``: to ``a.b.c``; and
  ``from a.b import c`` where ``a/b/c.py`` (or ``a/b/c/``) exists: to ``a.b.c``,
  the submodule (``name`` is then a module, not something of ``a.b``'s);
- ``from a.b import name`` where ``name`` is no submodule: to ``a.b``, the
  package's ``__init__``, which is where ``name`` is read from;
- relative imports (``from . import x``, ``from ..y import z``) resolved
  against the importing module's package, then as above;
- a registry of modules imported by name (`REGISTRIES`): from the module
  that holds it to each module it names. The command line's
  ``COMMAND_MODULES`` is one: ``judgepool.cli`` imports the module a command
  names when the command runs, so it depends on every one of them.

An import is not an edge to the packages above the module it names: Python
runs ``a/__init__.py`` and ``a/b/__init__.py`` before ``a.b.c``, but ``a.b.c``
depends on neither, and a package's ``__init__`` importing its submodules is
no cycle with them. It is one when a submodule imports from its package's
``__init__`` (``from a.b import name`` in ``a/b/c.py``) what that ``__init__``
gets from a submodule (itself, or one that imports it): the submodule must then
import the module that defines ``name``.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# Modules imported by name from data: the module holding the registry, the
# module-level dict whose values name the modules, and the dotted name a value
# stands for. `judgepool.cli.JudgepoolGroup.get_command` imports
# ``judgepool.cli.<value>`` of ``COMMAND_MODULES`` when a command runs.
Registries = Mapping[str, tuple[str, str]]
REGISTRIES: Registries = {"judgepool.cli": ("COMMAND_MODULES", "judgepool.cli.{}")}


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package ``package`` under ``root``, by dotted name
    (a package by its own name, for its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _imported(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: Mapping[str, Path]
) -> Iterator[str]:
    """The modules of ``known`` that ``node`` (in ``module``) imports."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in known:
                yield alias.name
        return
    if node.level:
        # the package a relative import starts from: the module's own for a
        # package's __init__, its parent's for any other module
        package = module.split(".") if is_package else module.split(".")[:-1]
        drop = node.level - 1
        base_parts = package[: len(package) - drop] if drop else package
        base = ".".join(base_parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        if submodule in known:
            yield submodule
        elif base in known:
            yield base


def _registered(tree: ast.Module, module: str, registry: tuple[str, str]) -> list[str]:
    """The modules the registry ``registry`` of ``module`` names: the values
    of the module-level dict it names, each a literal string."""
    name, dotted = registry
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Dict):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                return [dotted.format(ast.literal_eval(value)) for value in node.value.values]
    raise AssertionError(f"{module} holds no dict {name} (the registry moved: say where)")


def import_graph(
    root: Path, package: str, registries: Registries = REGISTRIES
) -> dict[str, set[str]]:
    """Each module of ``package`` (under ``root``) and the modules of the
    package it imports, wherever in the module the import is written, and
    those a registry of its names (`REGISTRIES`)."""
    known = module_files(root, package)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets.update(_imported(node, module, is_package, known))
        if module in registries:
            named = _registered(tree, module, registries[module])
            unknown = sorted(set(named) - set(known))
            assert not unknown, f"{module}'s registry names no module: {unknown}"
            targets.update(named)
        targets.discard(module)  # ``from . import x`` in a package naming itself
        graph[module] = targets
    return graph


def imports_by_name(
    root: Path, package: str, registries: Registries = REGISTRIES
) -> dict[str, list[int]]:
    """The modules of ``package`` that import a module named by a string
    (``importlib.import_module``, ``__import__``), which no edge of the graph
    shows, and the lines where; a registry's module aside, whose names the
    graph reads."""
    found: dict[str, list[int]] = {}
    for module, path in module_files(root, package).items():
        if module in registries:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        lines = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (
                    isinstance(node.func, ast.Name)
                    and node.func.id in ("__import__", "import_module")
                )
            )
        ]
        if lines:
            found[module] = lines
    return found


def _strongly_connected(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def _shortest_cycle(graph: Mapping[str, set[str]], members: list[str]) -> list[str]:
    """A shortest cycle through the first of ``members`` (one strongly
    connected component), as the modules along it, the first repeated last."""
    inside = set(members)
    start = members[0]
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for successor in sorted(graph[node] & inside):
            if successor == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if successor not in came_from:
                came_from[successor] = node
                queue.append(successor)
    raise AssertionError(f"{members} is no cycle")


def import_cycles(root: Path, package: str, registries: Registries = REGISTRIES) -> list[list[str]]:
    """One cycle of imports for each group of modules of ``package`` that
    import one another (empty: none do)."""
    graph = import_graph(root, package, registries)
    return [
        _shortest_cycle(graph, component)
        for component in _strongly_connected(graph)
        if len(component) > 1
    ]


def _described(graph: Mapping[str, set[str]]) -> str:
    """Each group of modules that import one another: a cycle through it, and
    every module of the group."""
    groups = [c for c in _strongly_connected(graph) if len(c) > 1]
    return "\n".join(
        " -> ".join(_shortest_cycle(graph, group)) + f" (the group: {', '.join(group)})"
        for group in groups
    )


def test_judgepool_has_no_import_cycle() -> None:
    cycles = import_cycles(SRC, "judgepool")
    assert not cycles, "modules that import one another:\n" + _described(
        import_graph(SRC, "judgepool")
    )


def test_the_graph_sees_every_kind_of_import() -> None:
    """Edges the checker must draw on judgepool itself (a checker that saw
    nothing would pass every time)."""
    graph = import_graph(SRC, "judgepool")
    # at module level; in a function (the engine's modules, for start-up's
    # sake); a submodule named by ``from package import``; for the type checker
    assert "judgepool.services.runs.passes" in graph["judgepool.services.runs.scoring"]
    assert "judgepool.services.runs.streaming" in graph["judgepool.services.runs.passes"]
    assert "judgepool.services.agreement" in graph["judgepool.cli.agreement"]
    assert "judgepool.formats.fast_run.collecting" in graph["judgepool.services.runs.sources"]
    assert len(graph) > 100


def test_the_graph_sees_the_command_registry() -> None:
    """``judgepool.cli`` imports each command's module by name: the graph has
    an edge to every module `COMMAND_MODULES` names (read from the source,
    checked against the map itself)."""
    from judgepool.cli import COMMAND_MODULES

    graph = import_graph(SRC, "judgepool")
    named = {f"judgepool.cli.{module}" for module in COMMAND_MODULES.values()}
    assert named <= graph["judgepool.cli"]
    assert "judgepool.cli.workspace" in graph["judgepool.cli"]


def test_only_a_registry_imports_a_module_by_name() -> None:
    """Importing late is an ``import`` statement, which the graph sees; the
    one import by name is the command registry's, whose edges it draws."""
    assert imports_by_name(SRC, "judgepool") == {}


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_cycle_through_a_function_level_import_is_reported(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "toy/__init__.py": "",
            "toy/a.py": "from toy.b import helper\n",
            "toy/b.py": "def helper():\n    from toy import a\n    return a\n",
            "toy/c.py": "import toy.a\n",  # imports into the cycle: not part of it
        },
    )
    assert import_cycles(tmp_path, "toy") == [["toy.a", "toy.b", "toy.a"]]


@pytest.mark.parametrize(
    ("files", "cycle"),
    [
        pytest.param(
            {
                "toy/__init__.py": "",
                "toy/sub/__init__.py": "",
                "toy/sub/x.py": "from . import y\n",
                "toy/sub/y.py": "def f():\n    from ..sub.x import g\n",
            },
            ["toy.sub.x", "toy.sub.y", "toy.sub.x"],
            id="relative imports",
        ),
        pytest.param(
            {
                "toy/__init__.py": "from toy.parts import Part as Part\n",
                "toy/parts.py": "from toy import NAME\n",
            },
            ["toy", "toy.parts", "toy"],
            id="a submodule reading its package's re-export",
        ),
        pytest.param(
            {
                "toy/__init__.py": "",
                "toy/a.py": "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from toy.b import B\n",
                "toy/b.py": "import toy.a as a\n",
            },
            ["toy.a", "toy.b", "toy.a"],
            id="a type checker's import",
        ),
    ],
)
def test_every_kind_of_import_closes_a_cycle(
    tmp_path: Path, files: dict[str, str], cycle: list[str]
) -> None:
    _write(tmp_path, files)
    assert import_cycles(tmp_path, "toy") == [cycle]


def test_a_cycle_through_a_registry_is_reported(tmp_path: Path) -> None:
    """A module a registry names that imports the registry's module back (a
    command module importing the command line's group) closes a cycle,
    which the registry's edges alone make visible."""
    _write(
        tmp_path,
        {
            "toy/__init__.py": "COMMANDS: dict[str, str] = {'go': 'go', 'stop': 'stop'}\n",
            "toy/go.py": "from toy import group\n",
            "toy/stop.py": "",
        },
    )
    registry = {"toy": ("COMMANDS", "toy.{}")}
    assert import_graph(tmp_path, "toy", registry)["toy"] == {"toy.go", "toy.stop"}
    assert import_cycles(tmp_path, "toy", registry) == [["toy", "toy.go", "toy"]]
    assert import_cycles(tmp_path, "toy", {}) == []


def test_an_import_by_name_is_found(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "toy/__init__.py": "import importlib\nCOMMANDS = {'go': 'go'}\n"
            "def run(name):\n    return importlib.import_module(f'toy.{COMMANDS[name]}')\n",
            "toy/go.py": "def late():\n    return __import__('toy.stop')\n",
            "toy/stop.py": "",
        },
    )
    assert imports_by_name(tmp_path, "toy", {}) == {"toy": [4], "toy.go": [2]}
    assert imports_by_name(tmp_path, "toy", {"toy": ("COMMANDS", "toy.{}")}) == {"toy.go": [2]}


def test_a_registry_that_moved_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, {"toy/__init__.py": "OTHER = {'go': 'go'}\n", "toy/go.py": ""})
    with pytest.raises(AssertionError, match="holds no dict COMMANDS"):
        import_graph(tmp_path, "toy", {"toy": ("COMMANDS", "toy.{}")})


def test_a_package_importing_its_submodules_is_no_cycle(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "toy/__init__.py": "from toy import a, b\n",
            "toy/a.py": "from toy.b import helper\n",
            "toy/b.py": "def helper(): ...\n",
        },
    )
    assert import_cycles(tmp_path, "toy") == []
