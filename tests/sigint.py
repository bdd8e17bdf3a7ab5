"""Ctrl-C in the tests: an ignored or a blocked SIGINT stays so across fork
and exec, and Python leaves it so.

A command started in the background by a shell without job control (``cmd &``
in a script, as a CI step may run the suite) starts with SIGINT ignored, and
so does everything it starts: the tests that press Ctrl-C on a command then
saw it run to its end. They start it as a terminal would, handling Ctrl-C."""

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


def ctrl_c_as_on_a_terminal() -> None:
    """In a started command before it runs (``preexec_fn``): SIGINT's default
    action and unblocked, whatever this process inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
