"""The commands that open the app: ``judgepool demo`` and ``judgepool tui``.

``judgepool`` with no command runs ``demo``: it builds
``workspaces/demo.sqlite`` from ``sample_data/`` on first use and opens it.
The workspace is opened (and checked) before the app starts, so a wrong path
is an error message and exit code 2, never a half-drawn screen. So is a
missing terminal (`require_terminal`): without one, Textual's input loop reads
an end of file again and again and spins at 100 % CPU.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from judgepool.core.terms.errors import JudgepoolError

ANNOTATOR_HELP = "Who is grading (default: the login name)."


class NoTerminal(JudgepoolError):
    """The app was started without a terminal to read keys from or draw on (exit 2)."""


def require_terminal() -> None:
    """Refuse to start the app without a terminal on standard input, output and
    error: Textual's terminal driver reads keys from standard input (at its
    end of file it spins), draws on standard error, and takes the screen's
    size from standard output (redirected, the app is drawn 80 × 24 whatever
    the window). A driver named in TEXTUAL_DRIVER brings its own input and
    output: textual-serve runs each session (``--signed-in-session``) over
    pipes with its web driver."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return
    for name, stream, does in (
        ("standard input", sys.stdin, "reads keys from it"),
        ("standard output", sys.stdout, "takes the screen's size from it"),
        ("standard error", sys.stderr, "draws on it"),
    ):
        if not _is_terminal(stream):
            raise NoTerminal(
                f"the app needs a terminal, and {name} is not one (the app {does}): run "
                "judgepool tui in a terminal, or judgepool serve WS to grade in a browser"
            )


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # closed
        return False


def _run_app(workspace: Path, annotator: str | None, *, sign_in_first: bool = False) -> None:
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import entry_checks
    from judgepool.services import workspace as workspaces
    from judgepool.tui.grading import read_session

    if sign_in_first:
        _run_signed_in_session(workspace)
        return
    who = annotator or workspaces.default_annotator()
    # Refused before the app starts, not at each grade: control characters,
    # or a name that would pass for provenance (import:..., model:...).
    entry_checks.check_annotator_name(who)
    # The app's one connection for its main thread, opened here: the plan is
    # read on it before Textual is imported, so the import does not wait on it
    # (see `create_app`), and the app takes it over rather than opening
    # another. A file that is not a workspace is refused here, before any screen.
    ws = workspaces.open_workspace(workspace)
    try:
        # the name as the workspace holds it; a new one in NFC, not too long,
        # and not a lookalike of a name it holds
        who = entry_checks.annotator_name(ws, who)
        require_terminal()
        session = read_session(ws, who)
        from judgepool.tui.app import create_app

        app = create_app(workspace, who, session, ws)
    except BaseException:
        ws.close()
        raise
    try:
        app.run()
    finally:
        app.close_workspace()


def _run_signed_in_session(workspace: Path) -> None:
    """A served session: the app opens on the sign-in screen, with no plan yet
    (it is read for the name that signs in). Once the app has exited the
    process ends at once: the page has gone, and a worker thread still
    computing must not keep it alive (`judgepool.tui.served_driver`)."""
    from judgepool.services import workspace as workspaces

    ws = workspaces.open_workspace(workspace)
    try:
        require_terminal()
        from judgepool.tui.app import create_app

        app = create_app(workspace, "", None, ws, sign_in_first=True)
    except BaseException:
        ws.close()
        raise
    try:
        app.run()
    finally:
        app.close_workspace()
    from judgepool.tui.served_driver import end_served_process

    end_served_process(app.return_code or 0)


@click.command()
@click.option("--annotator", metavar="NAME", help=ANNOTATOR_HELP)
def demo(annotator: str | None) -> None:
    """Open the app on the demo workspace, building it from sample_data on first use.

    \b
    Example:
      judgepool demo --annotator alice
    """
    from judgepool.services.demo import ensure_demo_workspace

    def step(text: str) -> None:
        if sys.stderr.isatty():
            click.echo(f"demo workspace: {text}", err=True)

    _run_app(ensure_demo_workspace(on_step=step), annotator)


@click.command()
@click.argument("workspace", required=False)
@click.option("--annotator", metavar="NAME", help=ANNOTATOR_HELP)
# What `judgepool serve` runs for each browser session: the app opens on the
# sign-in screen and grades as the name signed in (--annotator is ignored).
@click.option("--signed-in-session", "sign_in_first", is_flag=True, hidden=True)
def tui(workspace: str | None, annotator: str | None, sign_in_first: bool) -> None:
    """Open the app on WORKSPACE (default: the demo workspace).

    A bare name (no slash, no suffix) means workspaces/NAME.sqlite. The app
    needs a terminal on standard input, output and error (without one it is
    refused, exit 2); judgepool serve runs it for browsers.

    \b
    Example:
      judgepool tui team.sqlite --annotator alice
    """
    from judgepool.services import workspace as workspaces

    if workspace is None:
        from judgepool.services.demo import ensure_demo_workspace

        path = ensure_demo_workspace()
    else:
        path = workspaces.resolve_workspace_path(workspace)
    _run_app(path, annotator, sign_in_first=sign_in_first)
