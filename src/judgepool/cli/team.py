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

from judgepool.cli.params import AsciiInteger, name_list
from judgepool.display import literal

if TYPE_CHECKING:
    from judgepool.services.assignment_sample import SamplePick
    from judgepool.services.assignment_settle import SettlePick
    from judgepool.services.assignments import AssignResult
    from judgepool.services.guidelines import GuidelinesChange
    from judgepool.services.undo import JudgmentEvent

_MAX_SEED = 2**63 - 1


@click.command("assign")
@click.argument("workspace")
@click.option(
    "--annotators",
    default=None,
    metavar="A,B,...",
    help="Who grades: names separated by commas, e.g. 'alice,bob,carol'. "
    "[required; with --extend, default: the current assignment's]",
)
@click.option(
    "--overlap",
    type=AsciiInteger(1, 1000),
    default=None,
    help="How many annotators each item (or query) gets; at most the number of annotators. "
    "[required; with --extend, the current assignment's]",
)
@click.option(
    "--by",
    type=click.Choice(["item", "query"]),
    default=None,
    help="item: balance pooled documents one by one; query: give each query's pooled "
    "documents whole to the same annotators, balancing the number of queries. "
    "[default: item; with --extend, the current assignment's]",
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
    "is left unassigned and counted. [default: no limit; with --extend, the current's]",
)
@click.option(
    "--include-judged",
    is_flag=True,
    help="Hand out items that already have a current grade (from a person or an import; "
    "a model's label is no judgment) too, for a re-judging study. Without it only "
    "unjudged items are assigned.",
)
@click.option(
    "--extend",
    is_flag=True,
    help="Keep every item of the current assignment where it is (graded or not) and "
    "assign only the pooled items it does not hold, with its overlap; new items go "
    "first to whoever holds fewest. An assignment with a settle budget keeps it and is "
    "topped up to it.",
)
@click.option(
    "--settle",
    type=AsciiInteger(1, 10**9),
    default=None,
    metavar="N",
    help="A budget of N open items: assign only the holes that the settle order puts "
    "first (as 'judgepool holes --workspace WS --order settle' lists them: the stored "
    "runs, at the workspace contract's k), passing over holes that are not pooled or "
    "cannot be assigned. With --extend: the new budget, topped up (as many holes as "
    "bring the items still open to N).",
)
@click.option(
    "--sample",
    "sample_file",
    default=None,
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Assign the holes of a sample file ('judgepool holes --workspace WS --sample N' "
    "writes it) that are not judged yet, every one, for 'compare --sample FILE'.",
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
    annotators: str | None,
    overlap: int | None,
    by: str | None,
    queries_file: Path | None,
    per_annotator: int | None,
    include_judged: bool,
    extend: bool,
    settle: int | None,
    sample_file: Path | None,
    seed: int,
) -> None:
    """Assign WORKSPACE's pooled documents to annotators, each to --overlap of them.

    Only documents without a current grade (from a person or imported qrels;
    a model's label is evidence, not a judgment) are handed out, unless
    --include-judged. Loads are balanced
    (they differ by at most one item, or one query with --by query) and pairs
    of annotators share items evenly, so agreement can be measured on every
    pair; when there are too few items for every pair to share one, a warning
    says how many pairs share none and how many items it would take. The
    assignment becomes each annotator's queue in the app and the base of
    'judgepool progress'. Assigning again replaces it (the old one is kept in
    the workspace, and named) and says, per annotator, what moved: kept,
    added, removed, and how many of the items they had graded went to someone
    else. --extend keeps the current assignment and adds only what it lacks;
    an assignment made with --settle N holds at most N open items, and
    --extend tops it up to them.

    \b
    Example:
        judgepool assign team.sqlite --annotators alice,bob,carol --overlap 2
        judgepool pool team.sqlite --depth 20     # the pool grows
        judgepool assign team.sqlite --extend     # the new documents only
    """
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import assignments
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace, to_write=True) as ws:
        done = assignments.assign(
            ws,
            annotators=None if annotators is None else name_list(annotators, "--annotators"),
            overlap=overlap,
            by=None if by is None else ("query" if by == "query" else "item"),
            queries_file=queries_file,
            per_annotator=per_annotator,
            seed=seed,
            include_judged=include_judged,
            extend=extend,
            settle=settle,
            sample=sample_file,
        )
    _echo_assigned(done)


def _echo_assigned(done: AssignResult) -> None:
    """The report of ``assign``: what it stored, against what, and the checks."""
    from judgepool.services import assignments

    unit = "queries" if done.unit == "query" else "items"
    if done.replaced is not None:
        click.echo(f"replaces {literal(assignments.describe_assignment(done.replaced))}")
    if done.extended is not None and done.stored:
        click.echo(f"extends {literal(assignments.describe_assignment(done.extended))}")
    if done.stored:
        click.echo(f"stored {literal(assignments.describe_assignment(done.assignment))}")
    else:
        click.echo(
            f"nothing new to assign: {literal(assignments.describe_assignment(done.assignment))} "
            "stays as it is"
        )
    loads = ", ".join(f"{literal(name)} {count:,}" for name, count in done.loads.items())
    new = "new " if done.extended is not None else ""
    each = "annotator" if done.overlap == 1 else "annotators"
    in_all = " in all" if done.extended is not None else ""
    click.echo(
        f"{done.units:,} {new}{unit} with {done.overlap} {each} each; "
        f"{unit} per annotator{in_all}: {loads}"
    )
    if done.joined_items:
        click.echo(
            f"{done.joined_items:,} new items of queries already assigned went to the "
            "annotators who hold those queries"
        )
    if done.left_out:
        cap = done.assignment.per_annotator
        click.echo(f"{done.left_out:,} {unit} left unassigned (--per-annotator {cap})")
    if done.settle is not None:
        _echo_settle(done.settle, extending=done.extended is not None)
    if done.sample is not None:
        _echo_sample(done.sample)
    if done.judged_left_out:
        click.echo(
            f"{done.judged_left_out:,} pooled items already judged were not assigned "
            "(--include-judged assigns them too)"
        )
    if done.moved:
        against = done.replaced or done.extended
        if against is not None:
            click.echo(f"what moved, against assignment #{against.id}:")
        for moved in done.moved:
            line = f"  {literal(moved.annotator)}: kept {moved.kept:,}, added {moved.added:,}"
            if moved.removed:
                line += f", removed {moved.removed:,}"
                if moved.graded_to_others:
                    line += (
                        f" ({moved.graded_to_others:,} of them graded by "
                        f"{literal(moved.annotator)}, now someone else's)"
                    )
            click.echo(line)
    coverage = done.coverage
    if coverage is not None and coverage.unshared:
        click.echo(
            f"warning: {coverage.unshared:,} of {coverage.pairs:,} pairs of annotators share no "
            f"{'query' if done.unit == 'query' else 'item'}, so their agreement cannot be "
            "measured: "
            f"{coverage.annotators:,} annotators at overlap {coverage.overlap} need at least "
            f"{coverage.needed:,} {unit} for every pair to share one ({coverage.units:,} assigned)",
            err=True,
        )


def _echo_settle(pick: SettlePick, *, extending: bool) -> None:
    """What the settle budget took: the holes, and extending, what was still open."""
    passed = ", ".join(f"{count:,} {why}" for why, count in sorted(pick.passed_over.items()))
    short = "" if pick.taken == pick.wanted else f" (only {pick.taken:,} could be)"
    found = f"the first {pick.taken:,} of {pick.holes:,} holes in settle order{short}" + (
        f"; passed over: {passed}" if passed else ""
    )
    if not extending:
        click.echo(f"--settle {pick.budget:,}: {found}")
        return
    kept = "" if pick.kept_from is None else f", kept from assignment #{pick.kept_from}"
    more = f"so {pick.wanted:,} more" if pick.wanted else "so none more"
    click.echo(
        f"settle budget {pick.budget:,}{kept}: {pick.still_open:,} assigned items still "
        f"open, {more}"
    )
    if pick.wanted:
        click.echo(found)


def _echo_sample(pick: SamplePick) -> None:
    passed = ", ".join(f"{count:,} {why}" for why, count in sorted(pick.passed_over.items()))
    click.echo(
        f"--sample {literal(pick.path)}: {pick.taken:,} of its {pick.listed:,} holes assigned"
        + (f"; passed over: {passed}" if passed else "")
    )


def _duration(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


@click.command("progress")
@click.argument("workspace")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json: a list of {annotator, assigned, graded, unsure, "
    "remaining, graded_elsewhere, seconds, per_hour}.",
)
def progress_command(workspace: str, fmt: str) -> None:
    """Per annotator of WORKSPACE: assigned, graded, unsure, remaining, the
    grades of other items, time, rate.

    \b
    assigned   items of the current assignment (judgepool assign)
    graded     assigned items they hold a grade of
    unsure     assigned items they marked unsure
    remaining  assigned items they hold no grade of (unsure ones included)
    elsewhere  items outside the current assignment they hold a grade of
               (an older assignment's, or graded without one)
    time       the time the app recorded while each document was shown
               before it was graded; command-line and imported grades
               record none
    per hour   timed grades per hour of that time, once there are 5 timed
               grades over 2 minutes at least

    \b
    Example:
      judgepool progress team.sqlite --format json
    """
    from judgepool.services import assignments
    from judgepool.services import workspace as workspaces

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
    head = [
        "annotator", "assigned", "graded", "unsure", "remaining", "elsewhere", "time", "per hour",
    ]  # fmt: skip
    table = [
        [
            literal(row.annotator),
            f"{row.assigned:,}",
            f"{row.graded:,}",
            f"{row.unsure:,}",
            f"{row.remaining:,}",
            f"{row.graded_elsewhere:,}",
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


@click.command("undo")
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

    \b
    Example:
      judgepool undo team.sqlite --annotator alice
    """
    from judgepool.services import undo
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace, to_write=True) as ws:
        taken, event = undo.undo_last_grade(ws, annotator)
        restored = undo.brought_back(ws, event)
    click.echo(f"{literal(annotator)}: {_undo_words(taken, event, restored)} [event {event.id}]")


def _undo_words(taken: JudgmentEvent, event: JudgmentEvent, restored: JudgmentEvent | None) -> str:
    """What an undo took back and what stands now. A note added in the app is
    the grade again with the note: taking it back leaves the grade, which is
    said as such (not "took back 2 … now 2")."""
    was = "unsure" if taken.unsure else str(taken.grade)
    item = f"on query {literal(taken.query_id)} doc {literal(taken.doc_id)}"
    when = f"(event {taken.id}, {taken.created_at})"
    note = "" if taken.note is None else f"the note {literal(repr(taken.note))}"
    if restored is None:
        now = "now no judgment"
    else:
        state = "unsure" if event.unsure else str(event.grade)
        since = f"as given at {restored.created_at} (event {restored.id})"
        if (taken.grade, taken.unsure) == (event.grade, event.unsure):
            what = note + f" given with {was}" if note else f"{was}, given again,"
            return f"took back {what} {item} {when}; the grade stays {state}, {since}"
        now = f"now {state}, {since}"
    with_note = f" with {note}" if note else ""
    return f"took back {was}{with_note} {item} {when}; {now}"


@click.command("settings")
@click.argument("workspace")
@click.option(
    "--blind",
    type=click.Choice(["on", "off"]),
    default=None,
    help="on: annotators grading never see another's grade or note, nor a run, rank or "
    "score (the default); off: open grading. Adjudicators always see everything.",
)
@click.option(
    "--search-judge",
    type=click.Choice(["allowed", "review", "off"]),
    default=None,
    help="What a document found by search from the grade screen (f) does: allowed, it "
    "joins the pool at once (the default); review, it is proposed and joins once a lead "
    "accepts it (judgepool finds); off, f does not search.",
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
    workspace: str,
    blind: str | None,
    search_judge: str | None,
    guidelines_file: str | None,
    clear_guidelines: bool,
) -> None:
    """Show WORKSPACE's settings; --blind changes whether grading is blind,
    --search-judge what search and judge may add to the pool, --guidelines
    and --clear-guidelines the grading guidelines.

    The guidelines are kept with their digest (SHA-256 of the text); the
    settings list it with their first line and who was shown this text.

    \b
    Example:
      judgepool settings team.sqlite --blind on --guidelines grading-guide.md
    """
    from judgepool.services import guidelines, settings
    from judgepool.services import workspace as workspaces

    if guidelines_file is not None and clear_guidelines:
        raise click.UsageError("--guidelines and --clear-guidelines exclude each other")
    text = None
    if guidelines_file == "-":
        text = guidelines.parse_guidelines(sys.stdin.buffer.read(), "<stdin>")
    elif guidelines_file is not None:
        text = guidelines.read_guidelines(guidelines_file)
    changing = blind is not None or search_judge is not None or text is not None
    with workspaces.open_workspace(workspace, to_write=changing or clear_guidelines) as ws:
        if blind is not None:
            settings.set_blind_grading(ws, blind == "on")
        if search_judge is not None:
            settings.set_search_judging(ws, search_judge)
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
    click.echo(f"search and judge: {shown['search_judge']}")
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


def _guidelines_change(change: GuidelinesChange, source: str) -> str:
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
