"""``judgepool annotators``: list a workspace's annotators and their roles;
``annotators WS add NAME [--role R]`` issues a sign-in token for served
sessions (`judgepool serve`) and records the role, ``annotators WS role NAME
R`` changes a role, ``annotators WS revoke NAME`` ends a token, and
``annotators WS sign-ins`` lists the failed sign-ins.

``annotators WS [--adjudicator NAME] [--not-adjudicator NAME]`` works as it
always did: the subcommands are recognised only right after the workspace.
Text from data (names) is printed through `judgepool.display.literal`; a
token is printed alone on the last line, so a script can take it with
``tail -n 1``.
"""

from __future__ import annotations

import click

from judgepool.cli.params import AsciiInteger
from judgepool.display import literal


class _AnnotatorsGroup(click.Group):
    """A group whose subcommands come right after the workspace, while the
    listing keeps taking its options anywhere (``annotators WS --adjudicator
    NAME``), as before the subcommands existed."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.allow_interspersed_args = not (len(args) > 1 and args[1] in self.commands)
        return super().parse_args(ctx, args)


@click.group("annotators", cls=_AnnotatorsGroup, invoke_without_command=True)
@click.argument("workspace")
@click.option(
    "--adjudicator",
    "adjudicators",
    multiple=True,
    metavar="NAME",
    help="Record NAME, an annotator of the workspace, as an adjudicator: their grade settles "
    "disagreements under the adjudicated consensus. Repeatable.",
)
@click.option(
    "--not-adjudicator",
    "revoked",
    multiple=True,
    metavar="NAME",
    help="Take the adjudicator role from NAME. Repeatable.",
)
@click.pass_context
def annotators_command(
    ctx: click.Context, workspace: str, adjudicators: tuple[str, ...], revoked: tuple[str, ...]
) -> None:
    """List WORKSPACE's annotators (role, events, graded items); set adjudicators.

    With 'add NAME' or 'revoke NAME' after WORKSPACE: issue or end NAME's
    sign-in token for 'judgepool serve'; 'role NAME ROLE': change a role;
    'sign-ins': the failed sign-ins.

    Roles: annotator (grades their own queue, blind), adjudicator (also
    settles disagreements), lead (everything: audit, scores, agreement,
    settings). Until any role is set, whoever opens the app in a terminal
    acts as the lead.

    \b
    Example:
      judgepool annotators team.sqlite add carol --role lead
    """
    ctx.obj = workspace
    if ctx.invoked_subcommand is not None:
        return
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import judging, roles
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace) as ws:
        if adjudicators or revoked:
            judging.set_adjudicators(ws, grant=adjudicators, revoke=revoked)
        listed = judging.list_annotators(ws)
        any_role = roles.roles_in_use(ws)
    for annotator in listed:
        role = annotator.role or "no role"
        click.echo(
            f"{literal(annotator.name)}\t{role}\t{annotator.events} events\t"
            f"{annotator.graded} graded"
        )
    if not any_role:
        click.echo(
            "no role is set: whoever opens the app in a terminal acts as the lead, and a "
            "served session as an annotator; set roles with: judgepool annotators WS role "
            "NAME annotator|adjudicator|lead",
            err=True,
        )


_ROLE_CHOICE = click.Choice(["annotator", "adjudicator", "lead"])


@annotators_command.command("add")
@click.argument("name")
@click.option(
    "--role",
    type=_ROLE_CHOICE,
    default=None,
    help="What NAME may reach in the app: annotator (the default: their own queue, blind), "
    "adjudicator (also settles disagreements), lead (everything).",
)
@click.option("--adjudicator", is_flag=True, help="The same as --role adjudicator.")
@click.pass_obj
def add_command(workspace: str, name: str, role: str | None, adjudicator: bool) -> None:
    """Add NAME, who may sign in to 'judgepool serve'; print their token once.

    Only a salted hash of the token is kept: hand it to NAME now. The token
    is alone on the last line of the output.

    \b
    Example:
      judgepool annotators team.sqlite add alice --role annotator | tail -n 1
    """
    from judgepool.services import sign_in
    from judgepool.services import workspace as workspaces

    if adjudicator and role not in (None, "adjudicator"):
        raise click.BadParameter(f"--adjudicator contradicts --role {role}", param_hint="--role")
    role = role or ("adjudicator" if adjudicator else "annotator")
    with workspaces.open_workspace(workspace) as ws:
        token = sign_in.add_annotator(ws, name, role=role)
    click.echo(
        f"added {literal(name)} ({role}); their sign-in token is below. It is shown only "
        "this once (the workspace keeps a salted hash): hand it to them now."
    )
    click.echo(token)


@annotators_command.command("role")
@click.argument("name")
@click.argument("role", type=_ROLE_CHOICE)
@click.pass_obj
def role_command(workspace: str, name: str, role: str) -> None:
    """Set NAME's role to ROLE (annotator, adjudicator or lead).

    The app reads the role whenever a screen is opened, so it takes effect in
    sessions already open at their next screen.

    \b
    Example:
      judgepool annotators team.sqlite role bob adjudicator
    """
    from judgepool.services import roles
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace) as ws:
        change = roles.set_role(ws, name, role)
    before = change.before or "no role"
    click.echo(f"{literal(change.name)}: {before} -> {change.after}")


@annotators_command.command("revoke")
@click.argument("name")
@click.pass_obj
def revoke_command(workspace: str, name: str) -> None:
    """End NAME's sign-in token (their grades stay; sessions signed in go on).

    \b
    Example:
      judgepool annotators team.sqlite revoke bob
    """
    from judgepool.services import sign_in
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace) as ws:
        sign_in.revoke(ws, name)
    click.echo(
        f"revoked {literal(name)}'s sign-in token; "
        "'judgepool annotators WS add NAME' issues a new one"
    )


@annotators_command.command("sign-ins")
@click.option(
    "--limit",
    type=AsciiInteger(1, 1000),
    default=50,
    show_default=True,
    metavar="N",
    help="How many of the latest failed sign-ins to list (the workspace keeps the latest "
    "1000, and every one the limit on failures still counts).",
)
@click.pass_obj
def sign_ins_command(workspace: str, limit: int) -> None:
    """List the latest failed sign-ins to served sessions, newest first.

    'rate limited' marks a sign-in refused while the limit held (5 failures
    for a name, or 30 for all names, in 5 minutes); it is listed but not
    counted, so the limit ends when the window moves past the failures.

    \b
    Example:
      judgepool annotators team.sqlite sign-ins --limit 20
    """
    from judgepool.services import sign_in
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace) as ws:
        failures = sign_in.recent_failures(ws, limit)
    if not failures:
        click.echo("no failed sign-ins")
        return
    for failure in failures:
        click.echo(f"{failure.at_text}\t{literal(failure.name)}\t{failure.reason}")
