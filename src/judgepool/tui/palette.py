"""The command palette's commands (``ctrl+p``): the app's screens and actions,
and every action bound on the current screen, so the palette reaches
everything a key does, and no more: a screen the role may not open
(`judgepool.tui.reach`) is not offered, as its key is not."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from rich.markup import escape
from textual.app import App, SystemCommand
from textual.screen import Screen

from judgepool.core.team.roles import Reach
from judgepool.tui.reach import reach_of


def app_commands(
    app: App[Any],
    screen: Screen[Any],
    titles: Mapping[str, str],
    show_screen: Callable[[str], None],
    adjudicate: Callable[[], None],
    show_help: Callable[[], None],
    reaches: Callable[[Reach], bool],
) -> Iterable[SystemCommand]:
    """The screens by title, adjudication, agreement, help, then the screen's
    keys: those the role ``reaches``."""
    for name, title in titles.items():
        if reaches(reach_of(name)):
            yield SystemCommand(
                f"{title} screen",
                f"Show the {name} screen (key {name[0]})",
                partial(show_screen, name),
            )
    if reaches("adjudicate"):
        yield SystemCommand("Adjudicate", "Settle the disagreements (key D)", adjudicate)
    if reaches(reach_of("agreement")):
        yield SystemCommand(
            "Agreement screen",
            "Agreement between annotators (key K)",
            partial(show_screen, "agreement"),
        )
    yield SystemCommand("Help: keys", "List every key (key ?)", show_help)
    yield from _binding_commands(app, screen)


def _binding_commands(app: App[Any], screen: Screen[Any]) -> Iterable[SystemCommand]:
    """A command for every action bound on the screen (and its widgets)."""
    seen: set[tuple[int, str]] = set()
    for active in screen.active_bindings.values():
        node, binding = active.node, active.binding
        if node is app or not active.enabled:
            continue
        if (id(node), binding.action) in seen:
            continue
        seen.add((id(node), binding.action))
        title = binding.tooltip or binding.description or binding.action
        key = binding.key_display or app.get_key_display(binding)
        # titles and keys are ours, but escaped all the same: a tooltip may
        # quote a key like [ that Rich would read as markup
        yield SystemCommand(
            escape(title), escape(f"key {key}"), partial(app.run_action, binding.action, node)
        )
