"""``judgepool finds``: the lead's review of the documents annotators found by
search from the grade screen while the workspace's search and judge is
``review`` (``judgepool settings WS --search-judge review``): list them, and
accept (the document joins the pool as its finder's find) or reject them.
"""

from __future__ import annotations

import click

from judgepool.display import literal, shown_id


@click.command("finds")
@click.argument("workspace")
@click.argument("decision", required=False, type=click.Choice(["accept", "reject"]))
@click.argument("query_id", required=False, metavar="[QUERY")
@click.argument("doc_id", required=False, metavar="DOC]")
@click.option(
    "--lead",
    default=None,
    metavar="NAME",
    help="Who decides, as the workspace records it. [default: the login name]",
)
def finds_command(
    workspace: str,
    decision: str | None,
    query_id: str | None,
    doc_id: str | None,
    lead: str | None,
) -> None:
    """List the documents proposed by search and judge in WORKSPACE, one a
    line (query, doc, state, finder, the words that found it, when); accept
    or reject the one of QUERY DOC, or every open one.

    An accepted document joins the pool (source search, its finder's), to
    be graded like any other ('judgepool assign WS --extend' hands it out);
    a rejected one stays out. The log keeps both.

    \b
    Examples:
      judgepool finds team.sqlite
      judgepool finds team.sqlite accept 1030303 6271629
      judgepool finds team.sqlite reject            # every open one
    """
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import search_judge
    from judgepool.services import workspace as workspaces

    if decision is None and query_id is not None:
        raise click.UsageError("name accept or reject before QUERY DOC")
    with workspaces.open_workspace(workspace, to_write=decision is not None) as ws:
        if decision is None:
            listed = search_judge.found_proposals(ws)
        else:
            listed = search_judge.decide_proposals(
                ws,
                "accepted" if decision == "accept" else "rejected",
                lead=lead or workspaces.default_annotator(),
                query_id=query_id,
                doc_id=doc_id,
            )
    if decision is not None:
        count = len(listed)
        what = f"{count:,} proposed document{'s' if count != 1 else ''}"
        joins = ": it joins the pool" if count == 1 else ": they join the pool"
        click.echo(f"{decision}ed {what}" + (joins if decision == "accept" else ""))
    elif not listed:
        click.echo("no document proposed (judgepool settings WS --search-judge review)")
    for found in listed:
        state = "proposed"
        if found.decision is not None:
            state = f"{found.decision} by {literal(found.lead or '')}"
        elif decision is not None:
            state = f"{decision}ed"
        click.echo(
            f"{shown_id(found.query_id)}\t{shown_id(found.doc_id)}\t{state}\t"
            f"{literal(found.annotator)}\t{literal(found.words)}\t{found.proposed_at}"
        )
