"""Served in a browser (`judgepool serve`), the app must not need a key the
browser keeps for itself (ctrl+w closes the tab, ctrl+t and ctrl+n open
others, F5 and ctrl+r reload...): every action bound to such a key is bound
to another key too, or reachable otherwise (the contract dialog's fields and
buttons apply it with Enter)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Final

from textual.binding import Binding
from textual.dom import DOMNode

import judgepool.tui
from judgepool.tui.app import create_app
from judgepool.tui.screens.audit import AuditScreen
from judgepool.tui.screens.scores import ScoresScreen
from tests.tui.conftest import wait_ready
from tests.tui.pilot_support import wait_until

# Keys Chromium and Firefox keep, or that a page cannot rely on getting.
BROWSER_KEYS: Final = frozenset(
    {
        "ctrl+w", "ctrl+t", "ctrl+n", "ctrl+shift+t", "ctrl+shift+n", "ctrl+shift+w",
        "ctrl+tab", "ctrl+shift+tab", "ctrl+pageup", "ctrl+pagedown", "ctrl+q", "ctrl+shift+q",
        "ctrl+r", "f5", "ctrl+f5", "ctrl+l", "ctrl+k", "ctrl+e", "ctrl+d", "ctrl+h", "ctrl+j",
        "ctrl+o", "ctrl+s", "ctrl+p", "ctrl+f", "ctrl+g", "ctrl+u", "f1", "f3", "f6", "f7",
        "f11", "f12", "alt+left", "alt+right", "alt+home", "alt+f4", "ctrl+plus",
        "ctrl+minus", "ctrl+0", "ctrl+1", "ctrl+2", "ctrl+3", "ctrl+4", "ctrl+5", "ctrl+6",
        "ctrl+7", "ctrl+8", "ctrl+9",
    }
)  # fmt: skip
# Bound to a browser key, and reachable without it all the same.
ELSEWHERE: Final = {
    ("ContractDialog", "apply"): "Enter in a field, or the Apply button",
    ("ContractDialog", "save_default"): "the Save as default button",
}


def judgepool_nodes() -> list[type[DOMNode]]:
    """Every screen, dialog and widget class of the app."""
    found: list[type[DOMNode]] = []
    for module in pkgutil.walk_packages(judgepool.tui.__path__, "judgepool.tui."):
        loaded = importlib.import_module(module.name)
        for _, value in inspect.getmembers(loaded, inspect.isclass):
            if issubclass(value, DOMNode) and value.__module__ == module.name:
                found.append(value)
    return found


def test_no_action_needs_a_key_the_browser_takes() -> None:
    nodes = judgepool_nodes()
    assert {"JudgepoolApp", "GradeScreen", "AuditScreen", "ScoresScreen"} <= {
        node.__name__ for node in nodes
    }
    needing: list[str] = []
    for node in nodes:
        for binding in node.__dict__.get("BINDINGS", []):
            if not isinstance(binding, Binding):
                continue
            keys = [key.strip() for key in binding.key.split(",")]
            only_browser_keys = all(key in BROWSER_KEYS for key in keys)
            if only_browser_keys and (node.__name__, binding.action) not in ELSEWHERE:
                needing.append(f"{node.__name__}: {binding.key} → {binding.action}")
    assert needing == []


async def test_recompute_has_a_key_the_browser_leaves_alone(tmp_path: Path) -> None:
    from tests.tui.conftest import build_workspace

    path = build_workspace(tmp_path / "w.sqlite", ["teaching"], qrels=True)
    app = create_app(path, "alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        for key, screen_type in (("s", ScoresScreen), ("a", AuditScreen)):
            await pilot.press(key)
            screen = app.screen
            assert isinstance(screen, screen_type)
            called: list[str] = []

            def recompute(original=screen.action_recompute, called=called):  # type: ignore[no-untyped-def]
                called.append("R")
                original()

            screen.action_recompute = recompute  # type: ignore[method-assign]
            await pilot.press("R")
            await wait_until(pilot, lambda called=called: called == ["R"], "the recompute")
