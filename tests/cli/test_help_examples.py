"""Every command's help ends with an example of it (sqlite-utils' habit).

The last paragraph of each command's and subcommand's help is an
``Example:`` (or ``Examples:``) block marked with click's ``\\b``, so that
click shows its lines as written, and one of its lines runs that very
command: ``judgepool`` then the words of the command's path, in order. The
walk covers every command and group `judgepool.cli.main` lists, however
deep; the checker is shown to fail on a command without an example.
"""

from __future__ import annotations

from collections.abc import Iterator

import click

from judgepool.cli import main

EXAMPLE_TITLES = ("Example:", "Examples:")


def walk(
    command: click.Command, path: tuple[str, ...], parent: click.Context | None = None
) -> Iterator[tuple[tuple[str, ...], click.Command, click.Context]]:
    """Every command under ``command`` (itself first), with its path of names
    and a context to render its help in."""
    ctx = click.Context(command, info_name=path[-1], parent=parent)
    yield path, command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            yield from walk(sub, (*path, name), ctx)


def help_problems(path: tuple[str, ...], command: click.Command, ctx: click.Context) -> list[str]:
    """What is wrong with the example at the end of the command's help: [] when
    its last paragraph is a ``\\b`` example block with a line that runs the
    command, and each of its lines is shown unwrapped."""
    where = " ".join(path)
    text = (command.help or "").strip()
    last = text.split("\n\n")[-1].strip().splitlines()
    if len(last) < 3 or last[0].strip() != "\b" or last[1].strip() not in EXAMPLE_TITLES:
        return [f"{where}: the help does not end with a \\b Example: paragraph"]
    examples = [line.strip() for line in last[2:]]
    problems = []
    if not any(_runs(line, path) for line in examples):
        problems.append(f"{where}: no example runs {where!r}")
    shown = [line.strip() for line in command.get_help(ctx).splitlines()]
    problems.extend(
        f"{where}: the example line {line!r} is not shown as written"
        for line in examples
        if line not in shown
    )
    return problems


def _runs(line: str, path: tuple[str, ...]) -> bool:
    """Whether the example ``line`` runs the command at ``path``: it starts
    with the program's name, and the command's names follow in order (a
    group's argument may come between them: ``annotators WS add``)."""
    words = line.split()
    if not words or words[0] != path[0]:
        return False
    rest = iter(words[1:])
    return all(name in rest for name in path[1:])


def test_every_command_ends_its_help_with_an_example() -> None:
    commands = list(walk(main, ("judgepool",)))
    names = {" ".join(path) for path, _, _ in commands}
    # the walk reaches the top, every command and the subcommands of groups
    assert {"judgepool", "judgepool score", "judgepool annotators add"} <= names
    assert len(commands) > 20
    problems = [problem for found in commands for problem in help_problems(*found)]
    assert problems == []


def test_the_check_fails_a_command_without_an_example() -> None:
    @click.group()
    def tool() -> None:
        """A tool.

        \b
        Example:
          judgepool list
        """

    @tool.command("list")
    def list_command() -> None:
        """List things, with no example."""

    @tool.command("show")
    def show_command() -> None:
        """Show a thing.

        \b
        Example:
          judgepool list --all
        """

    @tool.command("wrap")
    def wrap_command() -> None:
        """Wrap a thing.

        Example:
          judgepool wrap --with-a-long-option-name-that-goes-past-the-width-of-the-help-text x
        """

    found = {" ".join(path): help_problems(path, command, ctx)
             for path, command, ctx in walk(tool, ("judgepool",))}  # fmt: skip
    assert found == {
        "judgepool": [],
        "judgepool list": ["judgepool list: the help does not end with a \\b Example: paragraph"],
        "judgepool show": ["judgepool show: no example runs 'judgepool show'"],
        "judgepool wrap": ["judgepool wrap: the help does not end with a \\b Example: paragraph"],
    }


def test_an_example_without_the_marker_would_be_wrapped() -> None:
    # why the marker: without it click joins the lines and wraps them
    @click.command()
    def wrap() -> None:
        """Wrap a thing.

        Examples:
          judgepool wrap a
          judgepool wrap b
        """

    ctx = click.Context(wrap, info_name="wrap")
    assert "  judgepool wrap a" not in wrap.get_help(ctx).splitlines()
