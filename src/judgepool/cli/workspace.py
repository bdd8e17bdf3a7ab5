"""The workspace commands that change or export it: ``init``, ``import``,
``judge``, ``pool`` and ``export`` (qrels or notes; the ones that list what it holds are in
`judgepool.cli.workspace_reports`).

Each one opens the workspace, calls one use case of `judgepool.services`,
prints a short report and closes it. Errors
are judgepool errors, turned into a message and an exit code by `main`.
Text from data (IDs, names) is printed through `judgepool.display.literal`
for people; exported qrels are data and are written exactly.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgepool.cli.import_progress import ImportProgress
from judgepool.cli.output_file import is_standard_output, open_output
from judgepool.cli.params import AsciiInteger
from judgepool.cli.workspace_args import parse_grade, parse_labels
from judgepool.core.team.consensus import CONSENSUS_RULES
from judgepool.core.terms.contract import Scale
from judgepool.core.terms.limits import MAX_K
from judgepool.display import literal, quoted

if TYPE_CHECKING:
    from judgepool.services.qrels import QrelsImport


@click.command("init")
@click.argument("workspace")
@click.option(
    "--scale",
    default="0..3",
    show_default=True,
    metavar="MIN..MAX",
    help="The integer grades annotators may give; fixed for the workspace's life.",
)
@click.option(
    "--labels",
    default=None,
    metavar="G=LABEL,...",
    help="Names of the grades, e.g. '0=Bad,1=Fair,2=Good'. "
    "Default on 0..3: TREC DL's (Irrelevant, Related, Highly relevant, Perfectly relevant).",
)
def init_command(workspace: str, scale: str, labels: str | None) -> None:
    """Create a new, empty workspace WORKSPACE.

    WORKSPACE is a path to the SQLite file to create; a bare name means
    workspaces/NAME.sqlite. An existing file is refused and left as it is.

    \b
    Example:
      judgepool init team.sqlite --scale 0..3 --labels '0=Bad,1=Fair,2=Good,3=Perfect'
    """
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import workspace as workspaces

    ws = workspaces.init_workspace(workspace, scale=Scale.parse(scale), labels=parse_labels(labels))
    with ws:
        named = ", ".join(f"{grade} {literal(label)}" for grade, label in ws.labels().items())
        click.echo(f"created workspace {literal(str(ws.path))} (scale {ws.scale}: {named})")


@click.command("import")
@click.argument("workspace")
@click.argument("kind", type=click.Choice(["queries", "docs", "qrels", "run"]))
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--name",
    default=None,
    help="The run's name in the workspace (runs only). "
    "[default: the file name up to its first dot]",
)
@click.option(
    "--annotator",
    default=None,
    help="Whose judgments the qrels are (qrels only); not starting with import: or model:. "
    "[default: import:FILE-NAME]",
)
@click.option(
    "--source",
    default=None,
    metavar="model:NAME",
    help="Qrels only: the grades are a model's (an LLM judge's) labels, recorded with source "
    "model:NAME and by default as the annotator model:NAME; agreement compares them with "
    "people's. [default: import:FILE-NAME]",
)
@click.option(
    "--replace",
    is_flag=True,
    help="Qrels only: withdraw the annotator's judgments that the file does not have, so "
    "they hold exactly the file (the ledger keeps the old ones). Without it they are kept.",
)
def import_command(
    workspace: str,
    kind: str,
    file: Path,
    name: str | None,
    annotator: str | None,
    source: str | None,
    replace: bool,
) -> None:
    """Import FILE into WORKSPACE as queries, docs, qrels or a run.

    \b
    queries  TSV id<TAB>text[<TAB>narrative], or JSONL {"id", "text", "narrative"}
    docs     TSV id<TAB>text[<TAB>title], or JSONL {"id", "text", "title"}
    qrels    TREC qrels (qid iteration docid grade), grades inside the workspace's
             scale, recorded as judgments with source import:FILE-NAME; the
             annotator's judgments the file does not have are kept and
             counted (--replace withdraws them)
    run      TREC run (qid Q0 docid rank score tag), plain or gzip

    The whole file is checked first: a bad line anywhere refuses the import
    (naming file and line) and changes nothing. Each import is one transaction.

    \b
    Examples:
      judgepool import team.sqlite queries queries.tsv
      judgepool import team.sqlite run bm25.trec
    """
    from judgepool.services import imports
    from judgepool.services import qrels as qrels_files
    from judgepool.services import workspace as workspaces

    if name is not None and kind != "run":
        raise click.UsageError("--name applies to runs only")
    if annotator is not None and kind != "qrels":
        raise click.UsageError("--annotator applies to qrels only")
    if replace and kind != "qrels":
        raise click.UsageError("--replace applies to qrels only")
    if source is not None and kind != "qrels":
        raise click.UsageError("--source applies to qrels only")
    started = time.perf_counter()
    with (
        workspaces.open_workspace(workspace, to_write=True) as ws,
        ImportProgress(str(file)) as progress,
    ):
        if kind == "run":
            run = imports.import_run(ws, file, name=name, on_progress=progress)
        elif kind == "qrels":
            qrels = qrels_files.import_qrels(
                ws, file, annotator=annotator, replace=replace, on_progress=progress, source=source
            )
        else:
            importer = imports.import_queries if kind == "queries" else imports.import_documents
            table = importer(ws, file, on_progress=progress)
    elapsed = time.perf_counter() - started
    if kind == "run":
        if run.already_present:
            click.echo(f"run {quoted(run.name)} is already in the workspace (same content)")
        else:
            click.echo(
                f"run {quoted(run.name)}: {run.lines:,} lines from {literal(str(file))} "
                f"in {elapsed:.1f}s (run digest {run.digest[:12]})"
            )
    elif kind == "qrels":
        click.echo(
            f"qrels: {qrels.judgments:,} judgments from {literal(str(file))} as annotator "
            f"{quoted(qrels.annotator)}: {qrels.added:,} recorded, "
            f"{qrels.unchanged:,} unchanged; {_missing(qrels)}"
        )
    else:
        counts = table.counts
        click.echo(
            f"{kind}: {table.rows:,} from {literal(str(file))}: {counts.added:,} added, "
            f"{counts.updated:,} updated, {counts.unchanged:,} unchanged"
        )


@click.command("judge", context_settings={"ignore_unknown_options": True})
@click.argument("workspace")
@click.argument("query")
@click.argument("doc")
@click.argument("grade")
@click.option(
    "--annotator",
    required=True,
    help="Who is grading: a name without control characters, not starting with import: "
    "or model: (those mark where judgments come from).",
)
@click.option("--note", default=None, help="A note kept with the judgment.")
@click.option(
    "--source",
    default="human",
    show_default=True,
    help="Where the grade comes from: human, or model:NAME for a model's grade. "
    "(import: sources are written by importing qrels only.)",
)
@click.option(
    "--allow-new",
    is_flag=True,
    help="Judge a query or document the workspace does not hold yet (see above).",
)
@click.option(
    "--adjudicate",
    is_flag=True,
    help="Record the grade as an adjudication: it settles a disagreement under the "
    "adjudicated consensus, and is not an annotation (agreement and progress leave it "
    "out). For adjudicators and leads only.",
)
def judge_command(
    workspace: str,
    query: str,
    doc: str,
    grade: str,
    annotator: str,
    note: str | None,
    source: str,
    allow_new: bool,
    adjudicate: bool,
) -> None:
    """Grade document DOC for query QUERY in WORKSPACE.

    GRADE is an integer of the workspace's scale (negative grades too, if the
    scale has them), or 'unsure' to defer without a grade. The grade is on
    disk when the command returns; earlier grades stay in the ledger.

    QUERY and DOC are TREC tokens (no whitespace or control characters, not
    starting with '#'), and must be held by the workspace: imported (import
    queries / docs), in a stored run, in a pool, or already judged by
    anyone. Anything else is refused as a likely typo, naming the closest
    known IDs; --allow-new judges it anyway.

    \b
    Example:
      judgepool judge team.sqlite 1043135 650641 2 --annotator alice --note "partly"
    """
    from judgepool.services import adjudication, judging
    from judgepool.services import workspace as workspaces

    value = parse_grade(grade)
    with workspaces.open_workspace(workspace, to_write=True) as ws:
        if adjudicate:
            if value is None:
                raise click.BadParameter(
                    "an adjudication is a grade, not unsure", param_hint="GRADE"
                )
            settled = adjudication.adjudicate(
                ws, query, doc, value, adjudicator=annotator, note=note
            )
            click.echo(
                f"{literal(settled.annotator)} settled query {literal(settled.query_id)} doc "
                f"{literal(settled.doc_id)} -> {settled.grade} [event {settled.id}]"
            )
            return
        event = judging.judge(
            ws,
            query,
            doc,
            value,
            annotator=annotator,
            unsure=value is None,
            note=note,
            source=source,
            allow_new=allow_new,
        )
    shown = "unsure" if event.unsure else str(event.grade)
    before = "" if event.previous_event is None else f" (was {_state(event.previous_grade)})"
    click.echo(
        f"{literal(event.annotator)}: query {literal(event.query_id)} doc "
        f"{literal(event.doc_id)} -> {shown}{before} [event {event.id}]"
    )


def _missing(qrels: QrelsImport) -> str:
    """What happened to the annotator's judgments the file does not have."""
    if qrels.withdrawn:
        return f"{qrels.withdrawn:,} not in the file withdrawn (--replace)"
    if qrels.missing:
        return (
            f"{qrels.missing:,} held by the annotator but not in the file kept "
            "(--replace withdraws them)"
        )
    return "the annotator holds nothing the file does not have"


def _state(grade: int | None) -> str:
    return "unsure" if grade is None else str(grade)


@click.command("pool")
@click.argument("workspace")
@click.option("--runs", default=None, metavar="N,...", help="Runs to pool. [default: every run]")
@click.option(
    "--depth",
    type=AsciiInteger(1, MAX_K),
    required=True,
    help="How many top documents per query of each run (trec_eval order).",
)
@click.option(
    "--name",
    default="default",
    show_default=True,
    help="The pool to create or extend (a name without control characters).",
)
def pool_command(workspace: str, runs: str | None, depth: int, name: str) -> None:
    """Add the top --depth documents per query of each run to a pool of WORKSPACE.

    Runs are ordered as trec_eval does (score, then document ID, descending);
    the run and rank that brought each document in are recorded. Extending a
    pool (deeper, or with more runs) keeps every existing member.

    \b
    Example:
      judgepool pool team.sqlite --depth 20
    """
    from judgepool.services import pools as pooling
    from judgepool.services import workspace as workspaces

    chosen = [part.strip() for part in runs.split(",") if part.strip()] if runs else None
    with workspaces.open_workspace(workspace, to_write=True) as ws:
        result = pooling.pool(ws, depth=depth, runs=chosen, name=name)
    click.echo(
        f"pool {quoted(result.name)}: {result.added:,} new documents from "
        f"{', '.join(quoted(r) for r in result.runs)} at depth {result.depth}; "
        f"{result.members:,} members over {result.queries:,} queries"
    )


@click.command("export")
@click.argument("workspace")
@click.argument("what", type=click.Choice(["qrels", "notes"]))
@click.option(
    "-o",
    "--output",
    default="-",
    show_default=True,
    metavar="FILE",
    help="Where to write; '-' for standard output. A file is replaced whole (written "
    "beside it, then renamed), a symbolic link's target likewise; a FIFO or device is "
    "written into; the workspace's own files are refused.",
)
@click.option("--annotator", default=None, help="Export this annotator's grades (or notes) only.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["tsv", "jsonl"]),
    default=None,
    help="Notes only: tsv (a header, then query_id, doc_id, annotator, grade, created_at, "
    "source, event, note; a backslash doubled, controls such as tab and line breaks and "
    "bidi marks written as visible escapes like \\x09; a text cell a spreadsheet would "
    "evaluate, starting with =, +, - or @, or one starting with a single quote, gets a single "
    "quote in front) or jsonl (the text exact). [default: tsv]",
)
@click.option(
    "--consensus",
    type=click.Choice(CONSENSUS_RULES),
    default=None,
    help="How several annotators' grades become one: latest, median (the lower middle "
    "grade on an even count) or adjudicated. [default: the workspace's, latest]",
)
@click.option(
    "--with-model",
    metavar="NAME",
    default=None,
    help="Qrels only: write model:NAME's labels too, as the grades of the items nobody else "
    "graded, after a comment line naming the model. [default: people's, imports' and "
    "adjudicators' grades only; a model's labels are evidence, not judgments]",
)
def export_command(
    workspace: str,
    what: str,
    output: str,
    annotator: str | None,
    fmt: str | None,
    consensus: str | None,
    with_model: str | None,
) -> None:
    """Export WORKSPACE's judgments as TREC qrels (qid 0 docid grade, sorted),
    or the notes annotators left.

    qrels: by default the consensus of the people's, imports' and
    adjudicators' grades (a model's labels only with --with-model); with
    --annotator, one annotator's current grades. Items only marked unsure are
    not judged.
    notes: every note in the order it was written, with its item, annotator,
    grade and time (--format tsv or jsonl). In TSV, a note, ID or name that a
    spreadsheet would take for a formula (=HYPERLINK(...)) starts with a
    single quote, so it opens as text (OWASP's advice on CSV injection).

    \b
    Example:
      judgepool export team.sqlite notes -o notes.tsv
    """
    from judgepool.services import qrels as qrels_files
    from judgepool.services import workspace as workspaces

    to_stdout = is_standard_output(output)  # the summary must not mix with the exported data
    if what == "notes":
        if with_model is not None:
            raise click.UsageError("--with-model applies to qrels only")
        _export_notes(workspace, output, annotator, fmt or "tsv", consensus, to_stdout)
        return
    if fmt is not None:
        raise click.UsageError("--format applies to notes only (qrels are TREC qrels)")
    with (
        workspaces.open_workspace(workspace) as ws,
        open_output(output, workspace=ws.path) as stream,
    ):
        result = qrels_files.export_qrels(
            ws, stream, annotator=annotator, rule=consensus, with_model=with_model
        )
    whose = (
        f"annotator {quoted(annotator)}" if annotator is not None else f"consensus {result.rule}"
    )
    if result.unresolved:
        click.echo(
            f"judgepool: {result.unresolved} disagreement(s) without an adjudicator's grade "
            "left out (see: judgepool disagreements)",
            err=True,
        )
    if not to_stdout:
        click.echo(
            f"wrote {result.judgments:,} judgments over {result.queries:,} queries ({whose}) to "
            f"{literal(output)}; qrels digest {result.digest}"
        )
    if result.provenance is not None:
        if not to_stdout:
            click.echo(f"judgments: {result.provenance.line()}")
        left_out = result.provenance.left_out_line()
        if left_out is not None:
            click.echo(f"judgepool: {left_out}", err=True)


def _export_notes(
    workspace: str,
    output: str,
    annotator: str | None,
    fmt: str,
    consensus: str | None,
    to_stdout: bool,
) -> None:
    from judgepool.services import notes
    from judgepool.services import workspace as workspaces

    if consensus is not None:
        raise click.UsageError("--consensus applies to qrels only")
    with (
        workspaces.open_workspace(workspace) as ws,
        open_output(output, workspace=ws.path) as stream,
    ):
        result = notes.export_notes(ws, stream, fmt=fmt, annotator=annotator)
    if not to_stdout:
        click.echo(
            f"wrote {result.notes:,} notes by {result.annotators:,} annotators ({fmt}) to "
            f"{literal(output)}"
        )
