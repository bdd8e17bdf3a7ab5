"""The driver of a served session: Textual's web driver, made to end the
process when the browser goes, whatever the session is doing.

textual-serve runs each browser session as a process of its own with
Textual's `WebDriver`; when the page closes it sends the process a ``quit``
and waits for it to end, and never kills it. Textual turns ``quit`` (and
SIGTERM) into a message for the app's event loop, so a session whose loop was
busy (a write waiting on another process's lock, up to the busy timeout; a
pattern that backtracked for ever held it for good) read neither, and after
the app had exited the interpreter still waited for every worker thread
still computing. A grade is committed before the next document is shown, so
nothing is lost by ending at once:

- ``quit``, or the end of the session's input (textual-serve gone), asks the
  app to exit as before and also sets an alarm: `GRACE_SECONDS` later the
  kernel ends the process (SIGALRM's default action), even if no Python code
  can run by then.
- SIGTERM keeps its default action, so it ends the process at once.
- `end_served_process` (called by the command line once the app has
  exited) ends it without waiting for worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from typing import Final

from textual import messages
from textual.drivers.web_driver import WebDriver

# How long a session may take to exit by itself once its page has gone.
GRACE_SECONDS: Final = 2

_ending = threading.Lock()
_alarm_set = False


def end_within(seconds: int) -> None:
    """Have the kernel end this process ``seconds`` from now (once: a second
    call does not put it off)."""
    global _alarm_set
    with _ending:
        if _alarm_set:
            return
        _alarm_set = True
    # nothing in the process handles SIGALRM: its default action ends it
    signal.alarm(seconds)


def end_served_process(code: int) -> None:
    """End the process now with ``code``, without waiting for worker threads
    still computing (the interpreter's exit would join every one)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


class ServedDriver(WebDriver):
    """`WebDriver`, ending the process when the page goes (see the module)."""

    def start_application_mode(self) -> None:
        super().start_application_mode()
        # Textual made SIGTERM a message for the event loop: back to ending at once.
        if sys.platform != "win32":
            asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "quit":
            end_within(GRACE_SECONDS)
        super().on_meta(packet_type, payload)

    def run_input_thread(self) -> None:
        try:
            super().run_input_thread()
        finally:
            # the input ended: the page, or textual-serve itself, has gone
            end_within(GRACE_SECONDS)
            self._app.post_message(messages.ExitApp())
