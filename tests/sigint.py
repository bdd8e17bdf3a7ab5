"""What a command started now would inherit of Ctrl-C: an ignored or a
blocked SIGINT stays so across fork and exec, and Python leaves it so."""

from __future__ import annotations

import signal
import threading
from pathlib import Path


def sigint_state() -> tuple[object, bool, bool]:
    """Ctrl-C's handler here, and whether this thread ignores or blocks it at
    the system's level (what a started command inherits, whatever Python says)."""
    masks = dict(
        line.split(":\t", 1)
        for line in Path(f"/proc/self/task/{threading.get_native_id()}/status")
        .read_text()
        .splitlines()
        if line.startswith(("SigIgn", "SigBlk"))
    )
    bit = 1 << (signal.SIGINT - 1)
    return (
        signal.getsignal(signal.SIGINT),
        bool(int(masks["SigIgn"], 16) & bit),
        bool(int(masks["SigBlk"], 16) & bit),
    )
