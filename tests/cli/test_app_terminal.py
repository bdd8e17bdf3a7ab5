"""``judgepool tui`` without a terminal refuses to start (issue 17, point 13):
with standard input at its end (``< /dev/null``) Textual's input loop spun at
100 % CPU for ever. A served session, over textual-serve's pipes with its web
driver, still starts. Each case is a real process on a real workspace."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgepool.services.workspace import init_workspace

# far longer than the refusal takes on a loaded machine (about a second); a
# process still running then is the spin the refusal prevents
DEADLINE = 60.0


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws.sqlite"
    with init_workspace(path):
        pass
    return path


def app_command(workspace: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "judgepool", "tui", str(workspace), *extra]


def finished(process: subprocess.Popen[bytes]) -> int:
    try:
        return process.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"still running after {DEADLINE} s: the app started") from None


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}


def test_no_terminal_on_standard_input_is_refused(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with open(os.devnull, "rb") as nothing, open(out, "wb") as output:
        process = subprocess.Popen(
            app_command(workspace, "--annotator", "alice"), stdin=nothing, stdout=output,
            stderr=subprocess.PIPE, env=environment(),
        )  # fmt: skip
        code = finished(process)
    assert process.stderr is not None
    message = process.stderr.read().decode()
    assert code == 2, message
    assert message == (
        "judgepool: the app needs a terminal, and standard input is not one (the app reads keys "
        "from it): run judgepool tui in a terminal, or judgepool serve WS to grade in a browser\n"
    )
    assert out.read_bytes() == b""


def test_standard_output_redirected_is_refused_too(workspace: Path, tmp_path: Path) -> None:
    # keys and drawing on a terminal, the output to a file: the app would take
    # 80 × 24 whatever the window is (its size is read from standard output)
    primary, secondary = pty.openpty()
    try:
        with open(tmp_path / "out", "wb") as output:
            process = subprocess.Popen(
                app_command(workspace), stdin=secondary, stdout=output, stderr=secondary,
                env=environment(),
            )  # fmt: skip
            code = finished(process)
        said = b""
        while select.select([primary], [], [], 0.2)[0]:
            said += os.read(primary, 4096)
    finally:
        os.close(primary)
        os.close(secondary)
    assert code == 2
    assert b"standard output is not one (the app takes the screen's size from it)" in said


def test_a_served_session_over_pipes_still_starts(workspace: Path) -> None:
    # what textual-serve runs for each browser (cli/serve.py): pipes, and its
    # web driver named in TEXTUAL_DRIVER; the session draws its first frames
    env = {**environment(), "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}
    process = subprocess.Popen(
        app_command(workspace, "--signed-in-session"), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert process.stdout is not None
    drawn = b""
    deadline = time.monotonic() + DEADLINE
    try:
        while time.monotonic() < deadline and len(drawn) < 1000 and process.poll() is None:
            if select.select([process.stdout], [], [], 0.5)[0]:
                drawn += os.read(process.stdout.fileno(), 65536)
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
    finally:
        process.kill()
        process.wait()
    assert drawn.startswith(b"__GANGLION__\n") and len(drawn) >= 1000
