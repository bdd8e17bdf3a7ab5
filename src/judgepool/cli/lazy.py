"""Modules imported on first use, so that a command pays only for what it runs.

`judgepool score --qrels` never touches a workspace, yet every command module
is imported to build the command line; loading SQLite and sqlite-utils (which
pulls in pandas where installed) would cost it half a second.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name`` and imports it at the first attribute read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)
