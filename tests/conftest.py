"""What every test of the suite shares.

pytest-xdist sets ``COLUMNS=80`` and ``LINES=24`` in its workers' environment.
Textual takes those as the terminal's size, so an app started in a wider tmux
window by a worker drew itself at 80 × 24 (and the terminal tests read half a
screen); click wraps help to them too. The suite runs the same with and
without ``-n``: they are dropped here, before any test starts a process.
"""

from __future__ import annotations

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)
