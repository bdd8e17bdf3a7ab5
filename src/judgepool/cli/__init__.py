"""The ``judgepool`` command line: a thin click layer over `judgepool.services`.

Importing late has one way: an ordinary ``import`` statement inside the
function that needs the module (a command imports the services it calls at
the top of its body), with a comment saying why it is late where no nearby one
does (``# late: a command pays only for what it runs``). So ``judgepool score
--qrels`` never loads SQLite or sqlite-utils, and type checkers, ruff and
``tests/test_no_import_cycles.py`` see every import. The one import by name is
a command's own module, named by `COMMAND_MODULES` and imported when the
command is first asked for; the cycle test draws those edges from this module.

Each group of commands lives in its own module as plain click commands, which
import nothing from this one: `main` takes a command from the module
`COMMAND_MODULES` names for it. This module builds the group and turns
judgepool's errors into messages and exit codes (0 fine, 1 a policy or
``--fail-on`` refused, 2 bad usage or input), so that no traceback ever
reaches a user. Failures that are not judgepool's own (a damaged or full
workspace, a full disk, memory) are described by `judgepool.cli.failures`;
every message reaches the terminal literally.

The commands, a module per group (imported only when its command runs):
`score` (``score`` and ``audit``), `compare`, `report` (an HTML report and
the paper's figures), `holes`, `workspace` (``init``,
``import``, ``judge``, ``pool``, ``export``), `workspace_reports`
(``evaluations``, ``disagreements``), `team` (``assign``, ``progress``,
``undo``, ``settings``), `finds` (the lead's review of search and judge's
finds), `agreement`, `annotators`, `serve`, `prelabel`,
`app` (``demo`` and ``tui``).

What they share: `score_inputs` (the runs and judgments a scoring command
starts from, read once), `compare_options` (a comparison's options and the
comparison computed from them, for ``compare`` and ``report``),
`contract_options` (the contract's parameters as
options), `params` and `workspace_args` (option types on judgepool's one
grammar), `render` and `verdict_render` (tables and trec_eval lines; a
comparison for people and papers), `sample_render` (``compare --sample``'s
estimates), the report's `figure_table` (each
figure's file name, title and caption), `figure_data` (what each figure
plots), `figure_draw` (drawing them with matplotlib, the only module that
imports it) and `report_html` (the page), `run_labels` (``compare --label``),
`output_file` (``-o FILE`` written safely), `progress` and `import_progress`
(progress on a terminal, silence when piped) and `failures` (messages for
failures that are not judgepool's own).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
from types import ModuleType
from typing import Any

import click

from judgepool import __version__
from judgepool.cli.failures import describe, shown
from judgepool.core.terms.errors import JudgepoolError

# Which module defines each command. A command's module is imported only when
# that command runs (or help lists it): opening the app need not load the
# scoring commands, nor scoring the app. A test checks this map is complete,
# and the import-cycle test reads it as this module's imports.
COMMAND_MODULES: dict[str, str] = {
    "score": "score",
    "audit": "score",
    "compare": "compare",
    "holes": "holes",
    "init": "workspace",
    "import": "workspace",
    "judge": "workspace",
    "pool": "workspace",
    "export": "workspace",
    "evaluations": "workspace_reports",
    "annotators": "annotators",
    "disagreements": "workspace_reports",
    "agreement": "agreement",
    "assign": "team",
    "progress": "team",
    "undo": "team",
    "finds": "finds",
    "settings": "team",
    "demo": "app",
    "tui": "app",
    "serve": "serve",
    "prelabel": "prelabel",
    "report": "report",
}


class JudgepoolGroup(click.Group):
    """A click group that reports judgepool's errors as one message and an exit
    code, and takes each command from its module (`COMMAND_MODULES`), imported
    when the command is first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMAND_MODULES) | set(self.commands))

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        # kept to name the workspace in a message about a failure (`_workspace_of`)
        ctx.meta["judgepool.command"] = (name, command, list(rest))
        return name, command, rest

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            module = importlib.import_module(f"judgepool.cli.{COMMAND_MODULES[cmd_name]}")
            self.add_command(command_in(module, cmd_name))
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        _prepare_output()
        try:
            return super().invoke(ctx)
        except JudgepoolError as exc:
            click.echo(f"judgepool: {shown(str(exc))}", err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.Abort):
            raise
        except click.ClickException as exc:
            # click's own messages quote argv; Final only to type checkers
            exc.message = shown(exc.message)  # type: ignore[misc]
            raise
        except BrokenPipeError:
            # The reader of our output went away (e.g. `| head`): not an error.
            _drop_pending_output()
            sys.stderr.close()
            ctx.exit(0)
        except KeyboardInterrupt:
            click.echo("judgepool: interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:  # MemoryError and RecursionError included
            if os.environ.get("JUDGEPOOL_DEBUG"):
                raise
            message = describe(exc, lambda: _workspace_of(ctx))
            if message is None:
                message = (
                    f"unexpected error: {type(exc).__name__}: {exc}\n"
                    "This is a bug in judgepool; run again with JUDGEPOOL_DEBUG=1 to see where."
                )
            if isinstance(exc, OSError) and exc.filename is None:
                _drop_pending_output()  # the output itself failed (a full disk, /dev/full)
            click.echo(f"judgepool: {shown(message)}", err=True)
            ctx.exit(2)


def command_in(module: ModuleType, name: str) -> click.Command:
    """The command called ``name`` that ``module`` defines (exactly one)."""
    (command,) = [
        value
        for value in vars(module).values()
        if isinstance(value, click.Command) and value.name == name
    ]
    return command


def _prepare_output() -> None:
    """Make standard output and error safe to print to.

    What cannot be encoded is printed as an escape rather than failing: a path
    with a non-UTF-8 byte in argv arrives as a lone surrogate, and printing it
    must not crash the command. And an unbuffered standard output
    (PYTHONUNBUFFERED, ``python -u``) gets a buffer: Python's text layer
    drops what a short write leaves over (a disk filling up) without an error,
    where a buffered writer writes the rest, or fails with ENOSPC."""
    if isinstance(getattr(sys.stdout, "buffer", None), io.RawIOBase):
        sys.stdout = io.TextIOWrapper(
            io.BufferedWriter(sys.stdout.buffer),
            encoding=sys.stdout.encoding,
            errors=sys.stdout.errors,
            write_through=True,
        )
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            # ValueError, OSError: closed, or not a text stream after all
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def _drop_pending_output() -> None:
    """Point standard output at /dev/null, so that output that could not be
    written is not tried again (and reported again) at exit."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _workspace_of(ctx: click.Context) -> str | None:
    """The workspace file the failed command was given, if it takes one: its
    arguments parsed again, leniently, to name the file in the message."""
    name, command, rest = ctx.meta.get("judgepool.command", (None, None, []))
    if name is None or command is None:
        return None
    try:
        parsed = command.make_context(name, list(rest), parent=ctx, resilient_parsing=True)
    except (click.ClickException, click.exceptions.Exit):
        return None
    value = parsed.params.get("workspace")
    if not isinstance(value, str) or not value:
        return None
    # late: only the failure of a command given a workspace gets here
    from judgepool.services.workspace import resolve_workspace_path

    return str(resolve_workspace_path(value))


@click.group(
    cls=JudgepoolGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="judgepool")
@click.pass_context
def main(ctx: click.Context) -> None:
    """judgepool: grade, audit and score retrieval runs against a fixed judged universe.

    With no command, opens the app on the demo workspace.

    \b
    Examples:
      judgepool init team.sqlite
      judgepool score run.trec --qrels qrels.txt
    """
    if ctx.invoked_subcommand is None:
        demo = main.get_command(ctx, "demo")
        if demo is None:
            click.echo(ctx.get_help())
            ctx.exit(0)
        ctx.invoke(demo)
