"""pyarrow's parser reads a Python file object from its own threads; the run
reader returns only once they have let go of it. A thread that drops its last
reference while the interpreter exits is ended by force inside C++ code, and
the process aborts after its work is done (``judgepool score`` exited 134 in
about one run in twenty on a loaded machine)."""

from __future__ import annotations

import io
import sys
import threading
import time

import pytest

from judgepool.formats.fast_run import stream


def test_leaving_waits_until_the_other_thread_lets_go() -> None:
    held = object()
    keeper: list[object] = []
    released = threading.Event()

    def let_go_later() -> None:
        time.sleep(0.2)
        keeper.clear()
        released.set()

    started = time.monotonic()
    with stream._LetGo(held):
        keeper.append(held)  # as pyarrow's reader takes the file object
        threading.Thread(target=let_go_later).start()
    assert released.is_set()
    assert 0.2 <= time.monotonic() - started < 5


def test_leaving_does_not_wait_for_references_held_before() -> None:
    held = object()
    before = [held, held]
    started = time.monotonic()
    with stream._LetGo(held):
        pass
    assert time.monotonic() - started < 0.5
    assert before


def test_the_wait_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    held = object()
    kept: list[object] = []
    monkeypatch.setattr(stream, "_RELEASE_WAIT_SECONDS", 0.05)
    started = time.monotonic()
    with stream._LetGo(held):
        kept.append(held)  # never let go
    assert time.monotonic() - started < 5


def test_a_parse_returns_with_no_reference_left_to_its_source() -> None:
    lines = b"".join(b"q%d Q0 d%d %d 1.5 tag\n" % (i % 50, i, i) for i in range(50_000))
    for _ in range(3):
        source = io.BytesIO(lines)
        references = sys.getrefcount(source)
        started = time.monotonic()
        table = stream._arrow_read(source, (b"Q0", b"tag"))
        assert time.monotonic() - started < stream._RELEASE_WAIT_SECONDS
        assert table is not None and table.num_rows == 50_000
        assert sys.getrefcount(source) == references
