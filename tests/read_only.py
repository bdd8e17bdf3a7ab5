"""Running judgepool where a workspace is truly read-only, also as root.

Root ignores file permissions (CAP_DAC_OVERRIDE), so ``chmod a-w`` alone
proves nothing when the tests run as root, as they do in this sandbox and in
CI containers. `unprivileged` runs a command without that power: as root,
``setpriv`` (util-linux, on every Debian-like system) drops CAP_DAC_OVERRIDE
and CAP_DAC_READ_SEARCH from the bounding and inheritable sets, so the
command keeps uid 0 (it still reads the root-owned checkout and virtualenv
as their owner) but the kernel refuses it writes the mode bits refuse: a
0444 file cannot be opened for writing, nothing can be created in a 0555
folder. As another user, the command runs as it is.

`require_truly_read_only` checks that on the machine before a test relies on
it (a write must fail with EACCES); it fails the test in CI and skips it
elsewhere when this cannot be arranged. Other ways were measured and left:
``chattr +i`` needs CAP_LINUX_IMMUTABLE (missing in containers) and an ext4
or similar file system; a read-only bind or tmpfs mount needs CAP_SYS_ADMIN.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

DROPPED = "-dac_override,-dac_read_search"


def unprivileged(argv: Sequence[str]) -> list[str]:
    """``argv``, run so that file permissions bind it (see the module's notes)."""
    if os.geteuid() != 0:
        return list(argv)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return list(argv)  # require_truly_read_only fails or skips first
    return [setpriv, f"--bounding-set={DROPPED}", f"--inh-caps={DROPPED}", *argv]


def judgepool_command(*args: str) -> list[str]:
    return unprivileged([sys.executable, "-m", "judgepool", *[str(a) for a in args]])


def run_judgepool(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``judgepool ARGS`` in a subprocess bound by file permissions."""
    return subprocess.run(
        judgepool_command(*[str(a) for a in args]),
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
    )


# Runs each command (a JSON list of argument lists) through the real command
# line in one process, one after another, and prints what each did: one
# interpreter start instead of one per command keeps these tests quick.
MANY = """
import json, sys
from click.testing import CliRunner
from judgepool.cli import main
for args in json.loads(sys.argv[1]):
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    failure = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        failure = repr(result.exception)
    print(json.dumps([result.exit_code, result.stdout, result.stderr, failure]), flush=True)
"""


@dataclass(frozen=True)
class Outcome:
    """What one command did: its exit code and output (and an escaped exception)."""

    args: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str
    exception: str | None


def run_many(*commands: Sequence[str | Path], cwd: Path | None = None) -> list[Outcome]:
    """Each command (arguments after ``judgepool``) in turn, in one subprocess
    bound by file permissions (in ``cwd``, if given)."""
    argv = [[str(a) for a in command] for command in commands]
    done = subprocess.run(
        unprivileged([sys.executable, "-c", MANY, json.dumps(argv)]),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=cwd,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == len(argv), done.stdout
    return [Outcome(tuple(args), *row) for args, row in zip(argv, rows, strict=True)]


PROBE = """
import sys
try:
    open(sys.argv[1], "w")
except PermissionError:
    print("refused")
else:
    print("written")
"""


def require_truly_read_only(folder: Path) -> None:
    """Fail (in CI) or skip unless an `unprivileged` process is refused a new
    file in ``folder`` once the folder is read-only."""
    with read_only_folder(folder):
        probe = subprocess.run(
            unprivileged([sys.executable, "-c", PROBE, str(folder / "probe")]),
            capture_output=True,
            text=True,
        )
    (folder / "probe").unlink(missing_ok=True)
    if probe.stdout.strip() == "refused":
        return
    reason = (
        "cannot make a folder truly read-only for a subprocess here "
        f"(setpriv: {shutil.which('setpriv')}, euid {os.geteuid()}): {probe.stderr.strip()}"
    )
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextlib.contextmanager
def read_only_file(*paths: Path) -> Iterator[None]:
    """The files at mode 0444 for the block, then as they were."""
    modes = {path: stat.S_IMODE(path.stat().st_mode) for path in paths}
    for path in paths:
        path.chmod(0o444)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


@contextlib.contextmanager
def read_only_folder(folder: Path) -> Iterator[None]:
    """The folder at mode 0555 for the block (nothing can be created or removed
    in it), then as it was."""
    mode = stat.S_IMODE(folder.stat().st_mode)
    folder.chmod(0o555)
    try:
        yield
    finally:
        folder.chmod(mode)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of ``folder`` with its bytes, to show that nothing changed."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}
