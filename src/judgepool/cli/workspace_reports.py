"""The workspace commands that list what it holds: ``evaluations`` (stored
scores, and whether each is still current) and ``disagreements`` (between
the people who graded, or the raters of ``--annotators``, with counts, what
was left out, each grade's time and note, filtered by ``--unresolved`` and
``--min-gap``). ``annotators`` is `judgepool.cli.annotators`.

Text from data (IDs, names) is printed through `judgepool.display.literal`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from judgepool.cli.params import AsciiInteger, name_list
from judgepool.core.terms.measures import NDCG
from judgepool.display import literal

if TYPE_CHECKING:
    from judgepool.services.disagreements import ListedDisagreement


@click.command("evaluations")
@click.argument("workspace")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json: one object per evaluation per line.",
)
def evaluations_command(workspace: str, fmt: str) -> None:
    """List the evaluations stored in WORKSPACE, oldest first.

    Each shows its contract, consensus rule and whether its qrels digest is
    still current: 'stale' means the judgments changed since it was computed,
    so its numbers are not comparable with a new score.

    \b
    Example:
      judgepool evaluations team.sqlite --format json
    """
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import evaluations
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace) as ws:
        stored = evaluations.list_evaluations(ws)
    if fmt == "json":
        for item in stored:
            click.echo(
                json.dumps(
                    {
                        "id": item.id,
                        "created_at": item.created_at,
                        "run": item.run_name,
                        "source": item.source,
                        "contract": item.contract.to_dict(),
                        "consensus": item.consensus,
                        "qrels_digest": item.qrels_digest,
                        "run_digest": item.run_digest,
                        "fingerprint": item.fingerprint,
                        "implementation": item.implementation,
                        "current": item.current,
                        "summary": item.summary,
                    },
                    sort_keys=True,
                )
            )
        return
    if not stored:
        click.echo("no stored evaluations (score with --workspace to store one)")
        return
    for item in stored:
        ndcg = item.summary.get("ndcg")
        shown = "n/a" if ndcg is None else f"{ndcg:.4f}"
        state = "current" if item.current else "stale: judgments changed since"
        run = item.run_name or item.source or "?"
        click.echo(
            f"#{item.id}  {item.created_at}  {literal(run)}  "
            f"{NDCG.label(item.contract.k)} {shown}  "
            f"queries {item.summary.get('scored')}/{item.summary.get('queries')}  "
            f"consensus {item.consensus}  qrels {item.qrels_digest[:12]} ({state})"
        )
        click.echo(f"    {literal(item.contract.describe())}")


@click.command("disagreements")
@click.argument("workspace")
@click.option(
    "--annotators",
    default=None,
    metavar="A,B,...",
    help="The raters compared (at least two), e.g. 'alice,bob,import:nist.qrels'; an import "
    "(import:FILE) or a model (model:NAME) is compared only when named here. "
    "[default: every person with a current grade]",
)
@click.option(
    "--unresolved",
    is_flag=True,
    help="Only the disagreements no adjudicator has settled (left out under adjudicated).",
)
@click.option(
    "--min-gap",
    type=AsciiInteger(1, 2000),
    default=1,
    show_default=True,
    metavar="G",
    help="Only the items whose compared raters' highest and lowest grades are at least G apart.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json: one object per item per line, then one line "
    "{compared, disagreements, unresolved, left_out}.",
)
def disagreements_command(
    workspace: str, annotators: str | None, unresolved: bool, min_gap: int, fmt: str
) -> None:
    """List the items whose annotators hold different grades, unresolved first.

    The people who graded are compared; imported qrels and a model's grades
    only when named in --annotators (as 'judgepool agreement' compares them),
    and a line says what was left out. Each item shows every grade with its
    annotator, time and note, and how each consensus rule resolves it ('-':
    no adjudicator has settled it, so the adjudicated rule leaves it out and
    scores say so). Give the adjudicator role with 'judgepool annotators WS
    role NAME adjudicator'.

    \b
    Example:
        judgepool disagreements team.sqlite --unresolved --min-gap 2
        judgepool disagreements team.sqlite --annotators alice,import:nist.qrels
    """
    from judgepool.services import disagreements as disagreement_list
    from judgepool.services import workspace as workspaces

    wanted = name_list(annotators, "--annotators") if annotators is not None else None
    with workspaces.open_workspace(workspace) as ws:
        listing = disagreement_list.list_disagreements(
            ws, unresolved_only=unresolved, min_gap=min_gap, annotators=wanted
        )
        path = str(ws.path)
    if fmt == "json":
        for found in listing.listed:
            click.echo(json.dumps(_disagreement_dict(found), sort_keys=True))
        summary = {
            "compared": list(listing.raters),
            "disagreements": listing.total,
            "unresolved": listing.unresolved,
            "left_out": listing.left_out.to_dict(),
        }
        click.echo(json.dumps(summary, sort_keys=True))
        return
    between = ", ".join(literal(name) for name in listing.raters) or "nobody"
    if not listing.total:
        click.echo(f"no disagreements between {between}")
        click.echo(listing.left_out.line(literal))
        return
    filters = []
    if unresolved:
        filters.append("unresolved only")
    if min_gap > 1:
        filters.append(f"grades at least {min_gap} apart")
    shown = f"; {len(listing.listed):,} shown ({', '.join(filters)})" if filters else ""
    click.echo(
        f"disagreements in {literal(path)} between {between}: {listing.total:,} items, "
        f"{listing.unresolved:,} unresolved (no adjudicator's grade){shown}"
    )
    click.echo(listing.left_out.line(literal))
    for found in listing.listed:
        item = found.item
        adjudicated = "-" if item.adjudicated is None else str(item.adjudicated)
        state = "resolved" if found.resolved else "unresolved"
        click.echo(
            f"{literal(item.query_id)}\t{literal(item.doc_id)}\t{state}\tgap {found.gap}\t"
            f"latest={item.latest} median={item.median} adjudicated={adjudicated}"
        )
        for detail in found.details:
            note = "" if detail.note is None else f"  note: {literal(detail.note)}"
            settled = " (adjudication)" if detail.adjudication else ""
            click.echo(
                f"  {literal(detail.annotator)}={detail.grade}{settled}  {detail.graded_at}{note}"
            )


def _disagreement_dict(found: ListedDisagreement) -> dict[str, Any]:
    item = found.item
    return {
        "query_id": item.query_id,
        "doc_id": item.doc_id,
        "grades": dict(item.grades),
        "compared": dict(found.compared),
        "adjudicators": list(item.adjudicators),
        "latest": item.latest,
        "median": item.median,
        "adjudicated": item.adjudicated,
        "resolved": found.resolved,
        "gap": found.gap,
        "details": [
            {
                "annotator": detail.annotator,
                "grade": detail.grade,
                "time": detail.graded_at,
                "note": detail.note,
                "adjudication": detail.adjudication,
            }
            for detail in found.details
        ],
    }
