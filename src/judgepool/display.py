"""Showing text from data (IDs, queries, documents) literally.

Data may hold anything, including terminal escape sequences. Before such text
reaches a terminal, every control character is replaced by a visible escape
(ESC becomes ``\\x1b``), so it shows as characters and never acts. Rich markup
is a separate matter for the app, which renders data through `rich.text.Text`
and never through markup strings.
"""

from __future__ import annotations

import re

# C0 controls except nothing, DEL, and the C1 range: all can act on a terminal.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def literal(text: str) -> str:
    """``text`` with every control character shown as a visible escape."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
