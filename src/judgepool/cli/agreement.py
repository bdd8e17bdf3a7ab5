"""``judgepool agreement``: how far a workspace's annotators agree, per pair
(raw agreement, Cohen's κ plain, linear and quadratic) and all together
(Fleiss' κ, Krippendorff's α ordinal and interval), and per query, of the
people who graded (imports and models when named), saying what it left out.

Names are printed through `judgepool.display.literal`; an undefined value
shows as ``-`` with its reason below the table (null and ``reasons`` in JSON).
"""

from __future__ import annotations

import json

import click

from judgepool.cli.params import name_list
from judgepool.core.team.agreement import MIN_ITEMS, TOO_FEW, Agreement
from judgepool.core.team.confusion import AGAINST, Confusion, Reference
from judgepool.display import literal

_HEAD = ("items", "raw", "κ", "κ linear", "κ quadratic")


def _rows(found: Agreement, query_id: str | None) -> tuple[list[list[str]], str, list[str]]:
    """One agreement's pair rows, its line for all annotators, and the reasons
    for its undefined values."""
    lead = [] if query_id is None else [literal(query_id)]
    rows: list[list[str]] = []
    reasons: list[str] = []
    where = "" if query_id is None else f"query {literal(query_id)}, "
    for pair in found.pairs:
        label = f"{literal(pair.a)} – {literal(pair.b)}"
        measures = (pair.raw_agreement, pair.cohen_kappa, pair.kappa_linear, pair.kappa_quadratic)
        rows.append([*lead, label, str(pair.items), *(m.text() for m in measures)])
        shown = {m.reason for m in measures if m.reason is not None}
        reasons += [f"{where}{label}: {reason}" for reason in sorted(shown)]
    overall = found.overall
    line = (
        f"{where}all {len(overall.annotators)}: Fleiss' κ {overall.fleiss_kappa.text()} over "
        f"{overall.fleiss_items:,} items graded by every one; Krippendorff's α ordinal "
        f"{overall.alpha_ordinal.text()}, interval {overall.alpha_interval.text()} over "
        f"{overall.items:,} items graded by two or more"
    )
    for name, measured in (
        ("Fleiss' κ", overall.fleiss_kappa),
        ("α ordinal", overall.alpha_ordinal),
        ("α interval", overall.alpha_interval),
    ):
        if measured.reason is not None:
            reasons.append(f"{where}{name}: {measured.reason}")
    return rows, line, reasons


def _echo_table(head: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    for row in [head, *rows]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _reference_line(found: Confusion, path: str) -> str:
    """What the model was set against in the workspace: each reference with
    its items, pairs and raters (names shown literally)."""
    model, where = literal(found.model), literal(path)
    references = found.references()
    if not references:
        return f"{model} vs {found.reference_words()} in {where}: no item graded by both"

    def said(ref: Reference) -> str:
        one = "person" if ref.kind == "people" else "import"
        names = ", ".join(literal(name) for name in ref.raters)
        return f"({ref.pairs:,} pairs, one per {one}; {ref.kind}: {names})"

    # imports stand in for people only where none graded: say so, under both
    def alone(ref: Reference) -> str:
        return (
            " where no person graded" if ref.kind == "imports" and found.against == "both" else ""
        )

    if len(references) == 1:
        (ref,) = references
        return (
            f"{model} vs {ref.kind} in {where}: {ref.items:,} items graded by both"
            f"{alone(ref)} {said(ref)}"
        )
    return f"{model} in {where}: " + ", ".join(
        f"against {ref.kind} on {ref.items:,} items{alone(ref)} {said(ref)}" for ref in references
    )


def _confusion_lines(found: Confusion, path: str) -> list[str]:
    """The reference's line, the table (count and row share), then per grade
    the leanings, then the one line; names and data shown literally."""
    lines = [_reference_line(found, path)]
    if not found.pairs:
        return [*lines, literal(found.line())]
    kinds = {ref.kind for ref in found.references()}
    if kinds == {"people"}:
        reference, rows_are = "person", "the person's grade"
    elif kinds == {"imports"}:
        reference, rows_are = "import", "the imported grade"
    else:
        reference = "reference"
        rows_are = "the reference's grade (a person's; an import's where no person graded)"
    lines.append(f"rows: {rows_are}; columns: the model's; count (share of the row)")
    head = [reference, *(f"model {grade}" for grade in found.grades), "pairs"]
    rows = [
        [str(grade), *(f"{count} ({_share(share)})" if count else "0"
                       for count, share in zip(counts, shares, strict=True)), str(sum(counts))]
        for grade, counts, shares in zip(found.grades, found.counts, found.row_shares(),
                                         strict=True)
    ]  # fmt: skip
    lines += _table_lines(head, rows)
    lines.append("per grade: too generous = the model gave more, too strict = less")
    lean_rows = [
        [str(lean.grade), str(lean.pairs), _share(lean.share(lean.same)),
         _share(lean.share(lean.generous)), _share(lean.share(lean.strict)),
         "-" if lean.mean_gap is None else f"{lean.mean_gap:+.2f}"]
        for lean in found.leanings()
    ]  # fmt: skip
    lines += _table_lines(
        ["grade", "pairs", "same", "too generous", "too strict", "mean gap"], lean_rows
    )
    lines.append(literal(found.line()))
    return lines


def _table_lines(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *rows]
    ]


@click.command("agreement")
@click.argument("workspace")
@click.option(
    "--annotators",
    default=None,
    metavar="A,B,...",
    help="Only these raters (at least two), e.g. 'alice,bob,model:gpt'; an import "
    "(import:FILE) or a model (model:NAME) is compared only when named here. "
    "[default: every person with a current grade]",
)
@click.option(
    "--by",
    type=click.Choice(["query"]),
    default=None,
    help=f"query: also per query, where a value needs {MIN_ITEMS} items or more.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json: one object with pairs, overall (and per_query).",
)
@click.option(
    "--confusion",
    "models",
    multiple=True,
    metavar="model:NAME",
    help="Instead: the confusion table of this model's grades (counts and row shares) "
    "against a person's grade of the same item, or an imported grade (import:FILE) where no "
    "person graded it, and per grade where it is too generous or too strict. Repeatable.",
)
@click.option(
    "--against",
    type=click.Choice(AGAINST),
    default=None,
    help="With --confusion: the reference. people: only people's grades; imports: only "
    "imported grades, on every item an import graded; both: people's where they graded, "
    "else imports'. The output says which, with the items of each ('reference' in JSON). "
    "[default: both]",
)
def agreement_command(
    workspace: str,
    annotators: str | None,
    by: str | None,
    fmt: str,
    models: tuple[str, ...],
    against: str | None,
) -> None:
    """How far WORKSPACE's annotators agree on the items they both (or all) graded.

    \b
    Per pair of annotators, over the items both graded: raw agreement and
    Cohen's κ, plain, linear- and quadratic-weighted (on the grade values).
    All together: Fleiss' κ over the items every annotator graded, and
    Krippendorff's α (ordinal, interval) over the items two or more graded.

    The people who graded are compared. Imported qrels (import:FILE, or the
    name they were imported as) and a model's grades (source model:NAME,
    the rater model:NAME whoever recorded them) are compared only when named
    in --annotators; adjudications are not annotations and never count. A
    line says what was left out and why, with counts ('left_out' in JSON).
    With --confusion model:NAME, the model's grades against the people's
    instead (how far to trust its labels), and against imported qrels (such
    as NIST's) on the items no person graded (--against chooses). Each
    rater's latest grade counts; unsure is not a grade. A value that is
    undefined on the data (no shared item, a single grade throughout) is '-'
    with the reason (null in JSON, never NaN).

    \b
    Example:
        judgepool agreement team.sqlite
        judgepool agreement team.sqlite --annotators alice,bob,model:gpt --by query
        judgepool agreement team.sqlite --confusion model:gpt
        judgepool agreement team.sqlite --confusion model:gpt --against imports
    """
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import agreement as agreements
    from judgepool.services import confusion as confusions
    from judgepool.services import workspace as workspaces

    if against is not None and not models:
        raise click.UsageError("--against goes with --confusion model:NAME")
    if models:
        with workspaces.open_workspace(workspace) as ws:
            tables = [confusions.model_confusion(ws, model, against or "both") for model in models]
            path = str(ws.path)
        if fmt == "json":
            data = {"confusion": [table.to_dict() for table in tables]}
            click.echo(json.dumps(data, ensure_ascii=False))
            return
        for number, table in enumerate(tables):
            if number:
                click.echo("")
            for line in _confusion_lines(table, path):
                click.echo(line)
        return
    wanted = name_list(annotators, "--annotators") if annotators is not None else None
    with workspaces.open_workspace(workspace) as ws:
        report = agreements.workspace_agreement(ws, annotators=wanted, by_query=by == "query")
        path = str(ws.path)
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), ensure_ascii=False))
        return
    names = ", ".join(literal(name) for name in report.raters)
    click.echo(
        f"agreement in {literal(path)}: {len(report.raters)} annotators ({names}); "
        "the latest grade of each, unsure is not a grade"
    )
    click.echo(report.left_out.line(literal))
    rows, line, reasons = _rows(report.overall, None)
    _echo_table(["pair", *_HEAD], rows)
    click.echo(line)
    if report.per_query is not None:
        click.echo("")
        click.echo(
            f"per query (a value needs {report.minimum_per_query} items or more: on fewer, "
            "κ's standard error is 0.2 or more)"
        )
        all_rows: list[list[str]] = []
        lines: list[str] = []
        for query_id, found in report.per_query:
            more_rows, more_line, more_reasons = _rows(found, query_id)
            all_rows += more_rows
            lines.append(more_line)
            reasons += more_reasons
        _echo_table(["query", "pair", *_HEAD], all_rows)
        for more_line in lines:
            click.echo(more_line)
    few = [reason for reason in reasons if reason.endswith(TOO_FEW)]
    listed = [reason for reason in reasons if not reason.endswith(TOO_FEW)]
    if few or listed:
        click.echo("")
        click.echo("undefined ('-'):")
    if few:
        click.echo(
            f"  per query, {len(few):,} pair(s) or group value(s): fewer than "
            f"{report.minimum_per_query} items shared (--format json gives each reason)"
        )
    for reason in listed:
        click.echo(f"  {reason}")
