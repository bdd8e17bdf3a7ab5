"""Reading the workspace in a thread worker from any widget or dialog.

`ReviewScreen.read_in_worker` does this for the audit and scores screens; the
grade screen's settle order and the comparison dialogs are not review
screens, so they use `read_in_thread`: the job runs on a read connection
borrowed for it (`judgepool.tui.readers`), and its result, or a judgepool
error's message (a policy refusal in the app's words, `judgepool.tui.refusals`),
comes back to the node as a `Delivery` message, handled on
the event loop by `deliver` (each node using this calls it from its
``on_delivery`` handler). A newer job of the same group cancels the older
one, whose result is then dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from judgepool.core.errors import JudgepoolError
from judgepool.tui.refusals import app_refusal

if TYPE_CHECKING:
    from judgepool.services.workspace import Workspace
    from judgepool.tui.readers import ReadConnections

Result = TypeVar("Result")


@dataclass
class Delivery(Message):
    """A worker's job finished; ``deliver`` shows its result (on the event loop)."""

    deliver: Callable[[], None]


def read_in_thread(
    node: Widget,
    readers: ReadConnections,
    job: Callable[[Workspace], Result],
    done: Callable[[Result], None],
    failed: Callable[[str], None],
    *,
    group: str,
) -> None:
    """Run ``job`` on a borrowed read connection in a thread worker of ``node``,
    then call ``done`` with its result or ``failed`` with the error's message,
    on the event loop (through a `Delivery` to ``node``)."""

    def read() -> None:
        worker = get_current_worker()
        try:
            with readers.lease() as ws:
                result = job(ws)
        except JudgepoolError as exc:
            if not worker.is_cancelled:
                node.post_message(Delivery(partial(failed, app_refusal(exc))))
            return
        if not worker.is_cancelled:
            node.post_message(Delivery(partial(done, result)))

    node.run_worker(read, name=group, group=group, exclusive=True, thread=True)


def deliver(message: Delivery) -> None:
    """Handle a `Delivery`: stop it here and show the job's result."""
    message.stop()
    message.deliver()
