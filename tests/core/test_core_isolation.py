"""The engine stays free of the storage and interface layers (architecture.md)."""

import subprocess
import sys

FORBIDDEN = ("sqlite3", "sqlite_utils", "textual", "rich")


def test_core_imports_no_storage_or_interface_modules() -> None:
    # Every module of the package, the ones added since this test was written included.
    program = (
        "import importlib, pkgutil, sys\n"
        "import judgepool.core as core\n"
        "names = [m.name for m in pkgutil.walk_packages(core.__path__, 'judgepool.core.')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "assert 'judgepool.core.auditing.drilldown' in names and len(names) > 15, names\n"
        f"loaded = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_the_check_itself_sees_a_forbidden_import() -> None:
    # Guards against a check that cannot fail: importing rich must show up.
    program = "import sys, rich.text\nprint('rich' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "True"
