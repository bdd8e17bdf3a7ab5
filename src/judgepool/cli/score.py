"""``judgepool score`` and ``judgepool audit``: runs against judgments, from files or a workspace.

Every contract parameter is an option; ``--preset`` fills in a named set and any
option given explicitly overrides it. The contract actually used is printed
with every result, whatever the format.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from judgepool.cli import main
from judgepool.cli.contract_options import build_contract, contract_options
from judgepool.cli.progress import StageProgress
from judgepool.cli.render import render_audit_table, render_score_table, render_trec
from judgepool.cli.score_inputs import (
    Judged,
    judgments_options,
    read_judgments,
    run_refs,
    stored_or_file,
)
from judgepool.core.audit import FINDING_KINDS, AuditReport, failed
from judgepool.core.errors import UnjudgedRejected
from judgepool.core.scored_run import ScoredRun
from judgepool.display import literal
from judgepool.services.auditing import score_and_audit_file, score_and_audit_stored
from judgepool.services.scoring import (
    ENGINES,
    audit_run_file,
    audit_stored_run,
    file_source,
    score_run,
    stored_source,
)

F = TypeVar("F", bound=Callable[..., Any])


@main.command()
@click.argument("runs", nargs=-1, metavar="RUN...")
@judgments_options
@contract_options
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
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="fast",
    show_default=True,
    help="fast (vectorised) or reference (plain Python, the implementation the fast "
    "engine is tested against): the same numbers, for cross-checking.",
)
@click.option(
    "--audit",
    "with_audit",
    is_flag=True,
    help="Also audit each run at the contract's k (as judgepool audit does) in the same "
    "pass, and print each report after the scores. A run with a bad line is still refused: "
    "judgepool audit lists them all.",
)
def score(
    runs: tuple[str, ...],
    qrels: str | None,
    workspace: str | None,
    consensus: str | None,
    preset: str | None,
    output_format: str,
    per_query: bool,
    engine: str,
    with_audit: bool,
    **options: Any,
) -> None:
    """Score RUN files (or, with --workspace, stored runs by name) with nDCG@k
    against a fixed judged universe.

    Every number is printed with the contract that produced it, the digests of
    the judgments and the run, and the counts of queries that were zero-IDCG,
    excluded, missing from the run, or unknown to the judgments. With
    --workspace and no RUN, every stored run is scored, and each evaluation is
    stored in the workspace.
    """
    if with_audit and output_format == "trec":
        raise click.UsageError("--audit prints a table or JSON; --format trec has no place for it")
    progress = StageProgress(enabled=sys.stderr.isatty())
    with progress:
        progress.update("reading judgments")
        judged = read_judgments(
            qrels, workspace, consensus, lambda base: build_contract(base, preset, options)
        )
        refs = run_refs(judged, runs)
        kinds = [stored_or_file(judged, ref) for ref in refs]
        results: list[ScoredRun] = []
        reports: list[AuditReport] = []
        for number, (ref, kind) in enumerate(zip(refs, kinds, strict=True), start=1):
            prefix = f"[{number}/{len(refs)}] " if len(refs) > 1 else ""

            def report(stage: str, prefix: str = prefix) -> None:
                progress.update(prefix + stage)

            if kind == "stored" and judged.workspace is not None:
                source = stored_source(judged.workspace, ref)
            else:
                source = file_source(ref)
            try:
                if with_audit:
                    scored, audit_report = score_and_audit(judged, ref, kind, engine, report)
                    results.append(scored)
                    reports.append(audit_report)
                else:
                    results.append(
                        score_run(
                            source, judged.judgments, judged.digest, judged.contract,
                            engine=engine, on_progress=report,
                        )
                    )  # fmt: skip
            except UnjudgedRejected as exc:
                if not judged.left_out:
                    raise
                # not unjudged: judged, but left out by the consensus rule
                raise exc.explained(judged.left_out) from None
        refused = None
        if judged.workspace is not None and judged.consensus is not None:
            from judgepool.services.evaluations import store_evaluations

            refused = store_evaluations(judged.workspace, results, kinds, judged.consensus)
    emit_scores(results, judged.label, output_format, per_query)
    for audit_report in reports:
        emit_audit(audit_report, output_format)
    if refused is not None:
        what = "evaluation was" if len(results) == 1 else "evaluations were"
        click.echo(
            f"judgepool: the {what} not stored in {literal(refused.path)}: the workspace is "
            f"read-only ({refused.reason})",
            err=True,
        )


def score_and_audit(
    judged: Judged, ref: str, kind: str, engine: str, on_progress: Callable[[str], None]
) -> tuple[ScoredRun, AuditReport]:
    """Score one run and audit it (``score --audit``): one pass on the fast
    engine; the reference engine scores, then audits with the reference audit.
    A contract's refusal is raised, as ``score`` alone raises it."""
    stored = kind == "stored" and judged.workspace is not None
    contract = judged.contract
    if engine == "fast":
        if stored:
            assert judged.workspace is not None
            audited = score_and_audit_stored(
                judged.workspace, ref, judged.judgments, judged.digest, contract,
                on_progress=on_progress,
            )  # fmt: skip
        else:
            audited = score_and_audit_file(
                ref, judged.judgments, judged.digest, contract, on_progress=on_progress
            )
        if audited.refusal is not None:
            raise audited.refusal
        assert audited.scored is not None
        return audited.scored, audited.report
    if stored:
        assert judged.workspace is not None
        source = stored_source(judged.workspace, ref)
        audit_report = audit_stored_run(
            judged.workspace, ref, judged.judgments, contract, engine=engine,
            on_progress=on_progress,
        )  # fmt: skip
    else:
        source = file_source(ref)
    scored = score_run(
        source, judged.judgments, judged.digest, contract, engine=engine, on_progress=on_progress
    )
    if not stored:
        audit_report = audit_run_file(
            ref, judged.judgments, contract, engine=engine, on_progress=on_progress
        )
    return scored, audit_report


def emit_audit(report: AuditReport, output_format: str) -> None:
    """Print one audit report as ``judgepool audit`` prints it."""
    if output_format == "json":
        click.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        click.echo(render_audit_table(report))


def emit_scores(
    results: Sequence[ScoredRun], qrels_label: str, output_format: str, per_query: bool
) -> None:
    """Print scored runs in the chosen format."""
    if output_format == "json":
        for result in results:
            click.echo(json.dumps(result.to_dict(per_query=per_query), ensure_ascii=False))
    elif output_format == "trec":
        for result in results:
            click.echo(render_trec(result, per_query=per_query), nl=False)
    else:
        click.echo(render_score_table(results, qrels_label, per_query=per_query))


@main.command()
@click.argument("runs", nargs=-1, metavar="RUN...")
@judgments_options
@contract_options
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
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="fast",
    show_default=True,
    help="fast (vectorised, over the run's columns) or reference (plain Python, the audit "
    "the fast one is tested against): the same report, for cross-checking.",
)
def audit(
    runs: tuple[str, ...],
    qrels: str | None,
    workspace: str | None,
    consensus: str | None,
    preset: str | None,
    output_format: str,
    fail_on: str,
    engine: str,
    **options: Any,
) -> None:
    """Audit RUN files (or stored runs): what would make their scores misleading.

    Lists bad lines, duplicates, unjudged documents in the top k, unknown and
    missing queries, ties touching the top k, rank columns that disagree with
    the scores, short lists and zero-IDCG queries. Exits 0 whatever it finds,
    unless a finding named in --fail-on is present.
    """
    kinds = [kind.strip() for kind in fail_on.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in FINDING_KINDS]
    if unknown:
        raise click.BadParameter(
            f"unknown finding kind(s) {', '.join(unknown)}; known: {', '.join(FINDING_KINDS)}",
            param_hint="--fail-on",
        )
    progress = StageProgress(enabled=sys.stderr.isatty())
    reports: list[AuditReport] = []
    with progress:
        progress.update("reading judgments")
        judged = read_judgments(
            qrels, workspace, consensus, lambda base: build_contract(base, preset, options)
        )
        refs = run_refs(judged, runs)
        sources = [stored_or_file(judged, ref) for ref in refs]
        for ref, source in zip(refs, sources, strict=True):
            if source == "stored" and judged.workspace is not None:
                reports.append(audit_stored_run(
                    judged.workspace, ref, judged.judgments, judged.contract,
                    engine=engine, on_progress=progress.update,
                ))  # fmt: skip
            else:
                reports.append(audit_run_file(
                    ref, judged.judgments, judged.contract,
                    engine=engine, on_progress=progress.update,
                ))  # fmt: skip
    failing: list[str] = []
    for report in reports:
        emit_audit(report, output_format)
        failing.extend(f"{report.run}: {kind}" for kind in failed(report, kinds))
    if failing:
        click.echo("judgepool: --fail-on findings present: " + "; ".join(failing), err=True)
        sys.exit(1)
