"""``judgepool score`` and ``judgepool audit``: runs against judgments, from files or a workspace.

Every contract parameter is an option; ``--preset`` fills in a named set and any
option given explicitly overrides it. The contract actually used is printed
with every result, whatever the format.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

import click

from judgepool.cli.render import render_audit_table, render_score_table, render_trec
from judgepool.cli.score_inputs import (
    RunsRequest,
    engine_option,
    jobs_option,
    note_left_out_models,
    reading_runs,
    runs_request,
)
from judgepool.core.auditing.audit import FINDING_KINDS, AuditReport
from judgepool.core.auditing.audit_gate import FailOn, UnknownFindingKinds
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.team.consensus import Provenance
from judgepool.core.terms.engines import Engine
from judgepool.core.terms.errors import UnjudgedRejected
from judgepool.display import literal
from judgepool.services.runs.passes import Wanted


@click.command()
@runs_request
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "trec"]),
    default="table",
    show_default=True,
    help="table for people; json: one object per run per line; trec: trec_eval's "
    "measure<TAB>qid<TAB>value lines.",
)
@click.option("--per-query", is_flag=True, help="Include every query's values.")
@engine_option(
    "fast (vectorised) or reference (plain Python, the implementation the fast "
    "engine is tested against): the same numbers, for cross-checking."
)
@click.option(
    "--audit",
    "with_audit",
    is_flag=True,
    help="Also audit each run at the contract's k (as judgepool audit does) in the same "
    "pass, and print each report after the scores. A run with a bad line is still refused: "
    "judgepool audit lists them all.",
)
@jobs_option
def score(
    request: RunsRequest,
    output_format: str,
    per_query: bool,
    engine: Engine,
    with_audit: bool,
    jobs: int | None,
) -> None:
    """Score RUN files (or, with --workspace, stored runs by name) with nDCG@k
    against a fixed judged universe.

    Every number is printed with the contract that produced it, the digests of
    the judgments and the run, and the counts of queries that were zero-IDCG,
    excluded, missing from the run, or unknown to the judgments. With
    --workspace and no RUN, every stored run is scored, and each evaluation is
    stored in the workspace.

    Several runs are scored at once, in up to --jobs worker processes (default:
    the cores this process may use), each reading one run after another and
    parsing with its share of the cores; the output is the same
    as one after another (--jobs 1), and a run that is refused stops the rest.

    \b
    Example:
      judgepool score bm25.trec splade.trec --qrels qrels.txt --preset trec_eval
    """
    if with_audit and output_format == "trec":
        raise click.UsageError("--audit prints a table or JSON; --format trec has no place for it")
    # the workers' imports, while the judgments are read
    with reading_runs(request, warm_workers=_parallel(request, jobs)) as inputs:
        judged = inputs.judged
        try:
            outcomes = inputs.map(Wanted(audit=with_audit), engine, jobs)
        except UnjudgedRejected as exc:
            if not judged.left_out:
                raise
            # not unjudged: judged, but left out by the consensus rule
            raise exc.explained(judged.left_out) from None
        results = [outcome.scored_run() for outcome in outcomes]
        reports = [outcome.audit_report() for outcome in outcomes] if with_audit else []
        refused = None
        if inputs.workspace is not None and judged.consensus is not None:
            # late: storing evaluations is for a workspace's scores only
            from judgepool.services.evaluations import store_evaluations

            refused = store_evaluations(inputs.workspace, results, inputs.kinds, judged.consensus)
    emit_scores(results, judged.label, output_format, per_query, judged.provenance)
    note_left_out_models(judged.provenance)
    for audit_report in reports:
        emit_audit(audit_report, output_format)
    if refused is not None:
        what = "evaluation was" if len(results) == 1 else "evaluations were"
        click.echo(
            f"judgepool: the {what} not stored in {literal(refused.path)}: the workspace is "
            f"read-only ({refused.reason})",
            err=True,
        )


def _parallel(request: RunsRequest, jobs: int | None) -> bool:
    """Whether the runs named may be read by worker processes."""
    return len(request.runs) > 1 and jobs != 1


def emit_audit(report: AuditReport, output_format: str) -> None:
    """Print one audit report as ``judgepool audit`` prints it."""
    if output_format == "json":
        click.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        click.echo(render_audit_table(report))


def emit_scores(
    results: Sequence[ScoredRun],
    qrels_label: str,
    output_format: str,
    per_query: bool,
    provenance: Provenance | None = None,
) -> None:
    """Print scored runs in the chosen format, with what the judgments rest
    on (``provenance``: a table's line, each JSON line's ``judgments``)."""
    if output_format == "json":
        for result in results:
            data = result.to_dict(per_query=per_query)
            if provenance is not None:
                data["judgments"] = provenance.to_dict()
            click.echo(json.dumps(data, ensure_ascii=False))
    elif output_format == "trec":
        for result in results:
            click.echo(render_trec(result, per_query=per_query), nl=False)
    else:
        click.echo(render_score_table(results, qrels_label, per_query, provenance))


@click.command()
@runs_request
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json: one object per run per line.",
)
@click.option(
    "--fail-on",
    "fail_on",
    default="",
    metavar="KIND,...",
    help="Exit 1 when any of these findings is non-empty (for CI gates): "
    + ", ".join(FINDING_KINDS)
    + ".",
)
@engine_option(
    "fast (vectorised, over the run's columns) or reference (plain Python, the audit "
    "the fast one is tested against): the same report, for cross-checking."
)
@jobs_option
def audit(
    request: RunsRequest,
    output_format: str,
    fail_on: str,
    engine: Engine,
    jobs: int | None,
) -> None:
    """Audit RUN files (or stored runs): what would make their scores misleading.

    Lists bad lines, duplicates, unjudged documents in the top k, unknown and
    missing queries, ties touching the top k, rank columns that disagree with
    the scores, short lists and zero-IDCG queries. Exits 0 whatever it finds,
    unless a finding named in --fail-on is present.

    Several runs are audited at once, in up to --jobs worker processes
    (default: the cores this process may use), each reading one run after
    another; the output is the same
    as one after another (--jobs 1).

    \b
    Example:
      judgepool audit run.trec --qrels qrels.txt -k 10 --fail-on bad_lines,unjudged
    """
    try:
        gate = FailOn.parse(fail_on)
    except UnknownFindingKinds as exc:
        raise click.BadParameter(str(exc), param_hint="--fail-on") from None
    with reading_runs(request, warm_workers=_parallel(request, jobs)) as inputs:
        outcomes = inputs.map(Wanted(score=False, audit=True), engine, jobs)
    reports = [outcome.audit_report() for outcome in outcomes]
    for report in reports:
        emit_audit(report, output_format)
    failing = gate.failures(reports)
    if failing:
        click.echo("judgepool: --fail-on findings present: " + "; ".join(failing), err=True)
        sys.exit(1)
