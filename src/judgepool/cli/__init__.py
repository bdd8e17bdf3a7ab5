"""The ``judgepool`` command line: a thin click layer over `judgepool.services`.

Each group of commands lives in its own module and registers itself on `main`;
this module only builds the group and maps judgepool's errors to exit codes.
"""

from __future__ import annotations

import sys

import click

from judgepool import __version__


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
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
            sys.exit(0)
        ctx.invoke(demo)


def _register() -> None:
    # Imported for their side effect of adding commands to `main`; a module that
    # is not there yet (while the app is being built) simply adds nothing.
    import importlib

    for name in ("score", "workspace", "app"):
        try:
            importlib.import_module(f"judgepool.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"judgepool.cli.{name}":
                raise


_register()
