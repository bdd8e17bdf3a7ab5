"""Reading the workspace in the background: the one way the app's views do it.

A view (a screen, a dialog or a widget) reads in a Textual thread worker, a
method of its own decorated ``@work(thread=True, exclusive=True, group=…)``:
a newer job of the same group on the same view cancels the older one. The
values it needs (the read connections, the contract) are read when it is
started, on the event loop, and given to it. Its body

- runs the job on a read connection borrowed for it (`read`: the connections
  are `judgepool.tui.readers`'), which gives back the job's result or
  `Refused`: a judgepool error in the app's words (a policy refusal names the
  app's way out, `judgepool.tui.refusals`);
- posts that outcome to the view as a message of the view's own, a typed
  `textual.message.Message` that says what was read (`post`), handled on the
  event loop like any other. A cancelled worker posts nothing, so a view
  only ever shows what its newest job read.

What a long job is doing ("reading judgments", the review screens' status
line) is posted the same way, as a message the next one replaces while it
waits (`Message.can_replace`), so a burst of them is drawn once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from textual.worker import get_current_worker

from judgepool.core.terms.errors import JudgepoolError
from judgepool.tui.refusals import app_refusal

if TYPE_CHECKING:
    from textual.message import Message
    from textual.message_pump import MessagePump

    from judgepool.services.workspace import Workspace
    from judgepool.tui.readers import ReadConnections

Result = TypeVar("Result")


@dataclass(frozen=True)
class Refused:
    """A job the workspace refused, or that could not read it: why, in the app's words."""

    reason: str


def read(readers: ReadConnections, job: Callable[[Workspace], Result]) -> Result | Refused:
    """Run ``job`` on a read connection borrowed for it (in the worker's
    thread): its result, or why a judgepool error refused it."""
    try:
        with readers.lease() as ws:
            return job(ws)
    except JudgepoolError as exc:
        return Refused(app_refusal(exc))


def post(node: MessagePump, message: Message) -> None:
    """Post ``message`` to ``node`` from a worker, unless the worker was
    cancelled: a newer job of its group took over, and this one's outcome is
    dropped."""
    if not get_current_worker().is_cancelled:
        node.post_message(message)
