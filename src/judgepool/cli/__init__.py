"""The ``judgepool`` command line: a thin click layer over `judgepool.services`.

Each group of commands lives in its own module and registers itself on `main`;
this module builds the group and turns judgepool's errors into messages and
exit codes (0 fine, 1 a policy or ``--fail-on`` refused, 2 bad usage or input),
so that no traceback ever reaches a user.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from judgepool import __version__
from judgepool.core.errors import JudgepoolError

# Which module defines each command. A command's module is imported only when
# that command runs (or help lists it): opening the app need not load the
# scoring commands, nor scoring the app. A test checks this map is complete.
COMMAND_MODULES: dict[str, str] = {
    "score": "score",
    "audit": "score",
    "init": "workspace",
    "import": "workspace",
    "judge": "workspace",
    "pool": "workspace",
    "export": "workspace",
    "evaluations": "workspace",
    "annotators": "workspace",
    "disagreements": "workspace",
    "demo": "app",
    "tui": "app",
}


class JudgepoolGroup(click.Group):
    """A click group that reports judgepool's errors as one message and an exit
    code, and imports each command's module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMAND_MODULES) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            # Importing the module registers its commands on `main`.
            importlib.import_module(f"judgepool.cli.{COMMAND_MODULES[cmd_name]}")
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except JudgepoolError as exc:
            click.echo(f"judgepool: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BrokenPipeError:
            # The reader of our output went away (e.g. `| head`): not an error.
            sys.stderr.close()
            ctx.exit(0)
        except KeyboardInterrupt:
            click.echo("judgepool: interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:
            if os.environ.get("JUDGEPOOL_DEBUG"):
                raise
            click.echo(
                f"judgepool: unexpected error: {type(exc).__name__}: {exc}\n"
                "This is a bug in judgepool; run again with JUDGEPOOL_DEBUG=1 to see where.",
                err=True,
            )
            ctx.exit(2)


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
    """
    if ctx.invoked_subcommand is None:
        demo = main.get_command(ctx, "demo")
        if demo is None:
            click.echo(ctx.get_help())
            ctx.exit(0)
        ctx.invoke(demo)
