"""The commands of grading as a team: ``assign`` (personal queues),
``progress`` (per annotator), ``undo`` (take back an annotator's latest grade)
and ``settings`` (blind grading, the grading guidelines).

Each opens the workspace, calls one use case of `judgepool.services` and
prints a short report; names and IDs are printed through
`judgepool.display.literal`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgepool.cli import main
from judgepool.cli.lazy import LazyModule
from judgepool.cli.params import AsciiInteger, name_list
from judgepool.display import literal

if TYPE_CHECKING:
    from judgepool.services import assignments, guidelines, settings, undo
    from judgepool.services import workspace as workspaces
else:
    assignments = LazyModule("judgepool.services.assignments")
    guidelines = LazyModule("judgepool.services.guidelines")
    settings = LazyModule("judgepool.services.settings")
    undo = LazyModule("judgepool.services.undo")
    workspaces = LazyModule("judgepool.services.workspace")

_MAX_SEED = 2**63 - 1


@main.command("assign")
@click.argument("workspace")
@click.option(
    "--annotators",
    required=True,
    metavar="A,B,...",
    help="Who grades: names separated by commas, e.g. 'alice,bob,carol'.",
)
@click.option(
    "--overlap",
    type=AsciiInteger(1, 1000),
    required=True,
    help="How many annotators each item (or query) gets; at most the number of annotators.",
)
@click.option(
    "--by",
    type=click.Choice(["item", "query"]),
    default="item",
    show_default=True,
    help="item: balance pooled documents one by one; query: give each query's pooled "
    "documents whole to the same annotators, balancing the number of queries.",
)
@click.option(
    "--queries",
    "queries_file",
    default=None,
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Only these queries: one query ID per line (a queries TSV works: its first column).",
)
@click.option(
    "--per-annotator",
    type=AsciiInteger(1, 10**9),
    default=None,
    metavar="N",
    help="At most N items (or queries, with --by query) per annotator; what does not fit "
    "is left unassigned and counted. [default: no limit]",
)
@click.option(
    "--seed",
    type=AsciiInteger(0, _MAX_SEED),
    default=0,
    show_default=True,
    help="The random order's seed: the same seed and inputs give the same assignment.",
)
def assign_command(
    workspace: str,
    annotators: str,
    overlap: int,
    by: str,
    queries_file: Path | None,
    per_annotator: int | None,
    seed: int,
) -> None:
    """Assign WORKSPACE's pooled documents to annotators, each to --overlap of them.

    Loads are balanced (they differ by at most one item, or one query with
    --by query) and pairs of annotators share items evenly, so agreement can
    be measured on every pair. The assignment becomes each annotator's queue
    in the app and the base of 'judgepool progress'; assigning again replaces
    it (the old one is kept in the workspace, and named).
    """
    with workspaces.open_workspace(workspace, to_write=True) as ws:
        done = assignments.assign(
            ws,
            annotators=name_list(annotators, "--annotators"),
            overlap=overlap,
            by="query" if by == "query" else "item",
            queries_file=queries_file,
            per_annotator=per_annotator,
            seed=seed,
        )
    if done.replaced is not None:
        click.echo(f"replaces {literal(assignments.describe_assignment(done.replaced))}")
    click.echo(f"stored {literal(assignments.describe_assignment(done.assignment))}")
    unit = "queries" if by == "query" else "items"
    loads = ", ".join(f"{literal(name)} {count:,}" for name, count in done.loads.items())
    click.echo(
        f"{done.units:,} {unit} with {overlap} annotators each; {unit} per annotator: {loads}"
    )
    if done.left_out:
        click.echo(f"{done.left_out:,} {unit} left unassigned (--per-annotator {per_annotator})")


def _duration(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


@main.command("progress")
@click.argument("workspace")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json: a list of {annotator, assigned, graded, unsure, "
    "remaining, seconds, per_hour}.",
)
def progress_command(workspace: str, fmt: str) -> None:
    """Per annotator of WORKSPACE: assigned, graded, unsure, remaining, time, rate.

    \b
    assigned   items of the current assignment (judgepool assign)
    graded     items they currently hold a grade of (anywhere)
    unsure     items they marked unsure
    remaining  assigned items they hold no grade of (unsure ones included)
    time       the time the app recorded while each document was shown
               before it was graded; command-line and imported grades
               record none
    per hour   timed grades per hour of that time
    """
    with workspaces.open_workspace(workspace) as ws:
        rows = assignments.progress(ws)
        current = assignments.current_assignment(ws)
    if fmt == "json":
        click.echo(json.dumps([row.to_dict() for row in rows], ensure_ascii=False))
        return
    if current is None:
        click.echo("no assignment yet (judgepool assign): nothing is assigned or remaining")
    else:
        click.echo(f"against {literal(assignments.describe_assignment(current))}")
    if not rows:
        click.echo("no annotators yet")
        return
    head = ["annotator", "assigned", "graded", "unsure", "remaining", "time", "per hour"]
    table = [
        [
            literal(row.annotator),
            f"{row.assigned:,}",
            f"{row.graded:,}",
            f"{row.unsure:,}",
            f"{row.remaining:,}",
            _duration(row.seconds),
            "-" if row.per_hour is None else f"{row.per_hour:.1f}",
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [head, *table]) for i in range(len(head))]
    for line in [head, *table]:
        rest = zip(line[1:], widths[1:], strict=True)
        cells = [line[0].ljust(widths[0]), *(cell.rjust(width) for cell, width in rest)]
        click.echo("  ".join(cells))


@main.command("undo")
@click.argument("workspace")
@click.option(
    "--annotator",
    required=True,
    help="Whose latest grade to take back; run again to go further back.",
)
def undo_command(workspace: str, annotator: str) -> None:
    """Take back an annotator's latest grade in WORKSPACE, as the app's undo does.

    An event is appended that restores what they held before (an earlier
    grade, unsure, or nothing); the ledger keeps the grade taken back.
    """
    with workspaces.open_workspace(workspace, to_write=True) as ws:
        taken, event = undo.undo_last_grade(ws, annotator)
    was = "unsure" if taken.unsure else str(taken.grade)
    now = "unsure" if event.unsure else "no judgment" if event.grade is None else str(event.grade)
    click.echo(
        f"{literal(annotator)}: took back {was} on query {literal(taken.query_id)} doc "
        f"{literal(taken.doc_id)} (event {taken.id}, {taken.created_at}); now {now} "
        f"[event {event.id}]"
    )


@main.command("settings")
@click.argument("workspace")
@click.option(
    "--blind",
    type=click.Choice(["on", "off"]),
    default=None,
    help="on: annotators grading never see another's grade or note, nor a run, rank or "
    "score (the default); off: open grading. Adjudicators always see everything.",
)
@click.option(
    "--guidelines",
    "guidelines_file",
    default=None,
    metavar="FILE.md",
    help="Keep the team's grading guidelines (Markdown, UTF-8; - reads standard input). "
    "The app shows them to each annotator when they first open it, again after they "
    "change, and on the key i.",
)
@click.option(
    "--clear-guidelines",
    is_flag=True,
    default=False,
    help="Remove the guidelines.",
)
def settings_command(
    workspace: str, blind: str | None, guidelines_file: str | None, clear_guidelines: bool
) -> None:
    """Show WORKSPACE's settings; --blind changes whether grading is blind,
    --guidelines and --clear-guidelines the grading guidelines.

    The guidelines are kept with their digest (SHA-256 of the text); the
    settings list it with their first line and who was shown this text.

    \b
    Example:
      judgepool settings team.sqlite --blind on --guidelines grading-guide.md
    """
    if guidelines_file is not None and clear_guidelines:
        raise click.UsageError("--guidelines and --clear-guidelines exclude each other")
    text = None
    if guidelines_file == "-":
        text = guidelines.parse_guidelines(sys.stdin.buffer.read(), "<stdin>")
    elif guidelines_file is not None:
        text = guidelines.read_guidelines(guidelines_file)
    changing = blind is not None or text is not None or clear_guidelines
    with workspaces.open_workspace(workspace, to_write=changing) as ws:
        if blind is not None:
            settings.set_blind_grading(ws, blind == "on")
        if text is not None:
            change = guidelines.set_guidelines(ws, text)
            click.echo(_guidelines_change(change, guidelines_file or ""))
        if clear_guidelines:
            removed = guidelines.clear_guidelines(ws)
            click.echo(
                "the workspace had no guidelines"
                if removed is None
                else f"removed the guidelines (sha256 {removed.digest})"
            )
        shown = settings.workspace_settings(ws)
    click.echo(f"blind grading: {'on' if shown['blind'] else 'off'}")
    labels = ", ".join(f"{grade} {literal(label)}" for grade, label in shown["labels"].items())
    click.echo(f"scale: {shown['scale']} ({labels})")
    click.echo(f"consensus: {shown['consensus']}")
    click.echo(f"contract: {literal(shown['contract'])}")
    kept = shown["guidelines"]
    if kept is None:
        click.echo("guidelines: none (judgepool settings WS --guidelines FILE.md)")
        return
    click.echo(
        f"guidelines: sha256 {kept['digest']}, {_lines(kept['lines'])}, set {kept['set_at']}"
    )
    click.echo(f"  first line: {literal(kept['first_line'])}")
    seen = ", ".join(literal(name) for name in kept["seen_by"]) or "nobody yet"
    click.echo(f"  shown to: {seen}")


def _guidelines_change(change: guidelines.GuidelinesChange, source: str) -> str:
    """What storing the guidelines did, in one line."""
    where = "standard input" if source == "-" else literal(source)
    kept = change.guidelines
    if not change.changed:
        return f"the guidelines from {where} are the ones kept already: nothing changed"
    was = "" if change.replaced is None else f", replacing sha256 {change.replaced}"
    return (
        f"stored the guidelines from {where} ({_lines(kept.lines)}, sha256 {kept.digest}{was}); "
        "each annotator is shown them when they next open the app"
    )


def _lines(count: int) -> str:
    return f"{count:,} line{'s' if count != 1 else ''}"
