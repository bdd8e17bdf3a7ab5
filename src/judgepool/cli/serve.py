"""``judgepool serve``: the app in browsers, through textual-serve.

textual-serve runs one command per browser session and relays the terminal
over a websocket; here that command is ``judgepool tui WS
--signed-in-session``, so every session opens on the sign-in screen and
grades as the name that signs in (tokens: ``judgepool annotators WS add``).
The workspace is checked before anything listens: it must exist, be
writable (grades and the log of failed sign-ins are written), and someone
should be able to sign in.

The page the browser gets is judgepool's (`served_page/app_index.html`), not
textual-serve's: textual-serve's asks Google for its font, and an air-gapped
server must work, so this one loads only the script, style sheet and font
that textual-serve ships under its own ``/static``. Its title is
`PAGE_TITLE`: the page is shown before anyone signs in, so it names no
workspace (a file name can say whose study it is; a path, who runs the server).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Final

import click

from judgepool.cli.params import AsciiInteger
from judgepool.core.terms.errors import InputError
from judgepool.display import literal

# The served page's <title> and starting text: the same for every workspace.
PAGE_TITLE: Final = "judgepool"
# judgepool's page template, in place of textual-serve's (see above).
SERVED_PAGE: Final = Path(__file__).with_name("served_page")


def session_command(workspace: str) -> str:
    """The shell command textual-serve runs for each browser session."""
    return shlex.join([sys.executable, "-m", "judgepool", "tui", workspace, "--signed-in-session"])


@click.command("serve")
@click.argument("workspace")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on. Keep the default behind a reverse proxy (see the README).",
)
@click.option(
    "--port", type=AsciiInteger(1, 65535), default=8000, show_default=True, metavar="PORT"
)
@click.option(
    "--public-url",
    metavar="URL",
    help="The address browsers use, e.g. https://grading.example.org behind a TLS proxy "
    "(an https URL makes the page connect with wss).",
)
def serve_command(workspace: str, host: str, port: int, public_url: str | None) -> None:
    """Serve the app on WORKSPACE to browsers; each session signs in first.

    Each browser session runs the app in a process of its own and grades
    into WORKSPACE under the name signed in. Add annotators with
    'judgepool annotators WS add NAME'; stop the server with Ctrl+C.

    \b
    Example:
      judgepool serve team.sqlite --port 8000
    """
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import sign_in
    from judgepool.services import workspace as workspaces

    if public_url is not None and not public_url.startswith(("http://", "https://")):
        raise click.BadParameter("must start with http:// or https://", param_hint="--public-url")
    with workspaces.open_workspace(workspace, to_write=True) as ws:
        path = ws.path.resolve()
        names = sign_in.who_can_sign_in(ws)
    if not names:
        click.echo(
            "judgepool: nobody can sign in yet; add annotators with: "
            f"judgepool annotators {literal(str(path))} add NAME",
            err=True,
        )
    try:
        from textual_serve.server import Server
    except ImportError:
        raise click.ClickException(
            "textual-serve is not installed; install judgepool again (pip install -e .)"
        ) from None
    server = Server(
        session_command(str(path)),
        host=host,
        port=port,
        title=PAGE_TITLE,
        templates_path=SERVED_PAGE,
        public_url=public_url.rstrip("/") if public_url else None,
    )
    try:
        server.serve()
    except OSError as exc:
        # a port in use or not ours to take: bad input, said plainly (exit 2)
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port"
        ) from None
