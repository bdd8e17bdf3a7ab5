"""Guards on the app's structure: its modules import one another without a
cycle, no screen or dialog imports the app shell, no module of the app is
longer than 400 lines unless its docstring says why, and the audit and scores
screens are imported only when first shown (they are most of the app's import
time). And on the app's tests: Textual's public API only, and no fixed pauses.

The import graph is read from the source with `ast`: every ``import`` and
``from … import`` of a ``judgepool.tui`` module counts, wherever it is written
(inside a function, under ``TYPE_CHECKING``), since a cycle anywhere makes the
modules depend on each other.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import judgepool.tui

TUI = Path(judgepool.tui.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
PACKAGE = "judgepool.tui"
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(TUI).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def app_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(TUI.rglob("*.py"))}


def imported_modules(path: Path, modules: dict[str, Path]) -> set[str]:
    """The ``judgepool.tui`` modules that the module at ``path`` imports."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # "from judgepool.tui.screens import audit" imports a module too
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {module for module in found if module in modules and module != name}


def import_graph() -> dict[str, set[str]]:
    modules = app_modules()
    return {name: imported_modules(path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as the list of its modules, or None."""
    visiting: list[str] = []
    done: set[str] = set()

    def visit(node: str) -> list[str] | None:
        if node in visiting:
            return [*visiting[visiting.index(node) :], node]
        if node in done:
            return None
        visiting.append(node)
        for target in sorted(graph[node]):
            cycle = visit(target)
            if cycle is not None:
                return cycle
        visiting.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle is not None:
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = import_graph()
    # the app shell imports the grade screen, and help the screens it lists
    assert "judgepool.tui.screens.grade" in graph["judgepool.tui.app"]
    assert "judgepool.tui.screens.audit" in graph["judgepool.tui.screens.help"]


def test_the_app_modules_import_each_other_without_a_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_screen_or_dialog_imports_the_app_shell() -> None:
    graph = import_graph()
    importers = sorted(name for name, targets in graph.items() if "judgepool.tui.app" in targets)
    assert importers == []


# A module may pass MAX_LINES where one module is the clearer design; its
# docstring then says why, in a paragraph that starts with these words.
LONG_BECAUSE = "Longer than 400 lines because"


def test_no_module_of_the_app_is_longer_than_400_lines_without_saying_why() -> None:
    long = {
        str(path.relative_to(TUI)): lines
        for path in sorted(TUI.rglob("*"))
        if path.suffix in (".py", ".tcss")
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
        and not says_why_it_is_long(path)
    }
    assert long == {}


def says_why_it_is_long(path: Path) -> bool:
    if path.suffix != ".py":
        return False
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return LONG_BECAUSE in docstring


# Runs the app in a fresh interpreter, as ``judgepool tui`` does, and reports
# which screen modules are loaded once the first document is on screen, and
# after the audit and scores screens are shown.
_START_PROGRAM = """
import asyncio, sys
from judgepool.tui.app import create_app

REVIEW = ("judgepool.tui.screens.audit", "judgepool.tui.screens.scores")

async def main():
    app = create_app(sys.argv[1], "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.get_screen("grade").ready:
            await pilot.pause()
        print([m for m in REVIEW if m in sys.modules])
        await pilot.press("a")
        print(type(app.screen).__name__, [m for m in REVIEW if m in sys.modules])
        await pilot.press("s")
        print(type(app.screen).__name__, [m for m in REVIEW if m in sys.modules])
        await app.workers.wait_for_complete()

asyncio.run(main())
"""


def test_audit_and_scores_are_imported_when_first_shown(teaching_ws: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _START_PROGRAM, str(teaching_ws)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "[]",
        "AuditScreen ['judgepool.tui.screens.audit']",
        "ScoresScreen ['judgepool.tui.screens.audit', 'judgepool.tui.screens.scores']",
    ]


# Textual's private modules and the private attributes tests once reached for,
# and a pause of a fixed length (a wait for a condition says what it waits for).
_PRIVATE_TEXTUAL = re.compile(
    r"\btextual\._\w+|\._(compositor|driver|display|background_screens|installed_screens)\b"
)
_FIXED_PAUSE = re.compile(r"\.pause\(\s*[\d.]")


def test_the_app_tests_use_public_textual_and_no_fixed_pauses() -> None:
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(TESTS.glob("*.py"))
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _PRIVATE_TEXTUAL.search(line) or _FIXED_PAUSE.search(line)
    ]
    assert found == []
