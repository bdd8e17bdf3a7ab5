"""`prefetched`: an iterator's next items made in a thread while the caller
works on the current one.

Reading a chunk of a run (file reads, sha256, pyarrow's parser) releases the
GIL for most of its time, and so does scoring one (numpy): with the next chunk
read in a thread while this one is scored, the two overlap on a second core.
At most ``depth`` items wait, so the memory held is that many chunks more.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator, Iterable
from typing import TypeVar

T = TypeVar("T")

_DONE = object()


class _Failure:
    """What the thread raised, handed over to be raised in the caller."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def prefetched(items: Iterable[T], depth: int = 1) -> Generator[T]:
    """``items`` in order, each made in a worker thread ahead of time (up to
    ``depth`` ahead). An exception from ``items`` is raised here at its place;
    when the caller stops early (an exception, or dropping the iterator), the
    worker stops at its next item and is joined before this returns."""
    handoff: queue.Queue[object] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                handoff.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    iterator = iter(items)

    def work() -> None:
        try:
            for item in iterator:
                if not put(item):
                    return
        except BaseException as error:  # raised again in the caller
            put(_Failure(error))
            return
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()  # a generator's open file is closed now, not when collected
        put(_DONE)

    worker = threading.Thread(target=work, name="judgepool-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            item = handoff.get()
            if item is _DONE:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        worker.join()
