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
from judgepool.cli.params import AsciiInteger
from judgepool.cli.progress import StageProgress
from judgepool.cli.render import render_audit_table, render_score_table, render_trec
from judgepool.cli.score_inputs import judgments_options, read_judgments, run_refs, stored_or_file
from judgepool.core.audit import FINDING_KINDS, AuditReport, failed
from judgepool.core.contract import (
    DUPLICATE_POLICIES,
    MISSING_POLICIES,
    PRESETS,
    TIE_POLICIES,
    UNIVERSES,
    UNJUDGED_POLICIES,
    ZERO_IDCG_POLICIES,
    Contract,
    Scale,
)
from judgepool.core.limits import GRADE_LIMIT, MAX_K
from judgepool.core.scored_run import ScoredRun
from judgepool.display import literal
from judgepool.services.scoring import (
    ENGINES,
    audit_run_file,
    audit_stored_run,
    file_source,
    score_run,
    stored_source,
)

F = TypeVar("F", bound=Callable[..., Any])

CONTRACT_OPTIONS = (
    "scale", "k", "gain", "universe", "unjudged", "duplicates", "entity", "ties",
    "zero_idcg", "missing", "relevant_from",
)  # fmt: skip


def contract_options(func: F) -> F:
    """The contract's parameters as options; each defaults to None so that only
    what the user gave overrides the preset or the defaults."""
    options = [
        click.option(
            "--preset",
            type=click.Choice(sorted(PRESETS)),
            default=None,
            help="Start from a named set of parameters (trec_eval: linear gain, judged "
            "universe, unjudged zero, trec_eval ties, missing zero).",
        ),
        click.option(
            "--scale",
            default=None,
            metavar="MIN..MAX",
            help=f"Integer grades allowed in the judgments, within {-GRADE_LIMIT}..{GRADE_LIMIT}. "
            "[default: 0..3]",
        ),
        click.option(
            "-k",
            "--k",
            "k",
            type=AsciiInteger(1, MAX_K),
            default=None,
            help=f"Cutoff, 1..{MAX_K:,}; missing positions add zero gain. [default: 10]",
        ),
        click.option(
            "--gain",
            default=None,
            metavar="linear|exponential|MAP",
            help="Gain of a grade: linear (r), exponential (2^r-1) or a map like "
            "0=0,1=1,2=3,3=7. [default: linear]",
        ),
        click.option(
            "--universe",
            type=click.Choice(UNIVERSES),
            default=None,
            help="Where the ideal ranking comes from: every judged document, or only "
            "the run's own candidates (candidate-only). [default: judged]",
        ),
        click.option(
            "--unjudged",
            type=click.Choice(UNJUDGED_POLICIES),
            default=None,
            help="An unjudged document in the top k: refuse, gain 0, or remove it. "
            "[default: reject]",
        ),
        click.option(
            "--duplicates",
            type=click.Choice(DUPLICATE_POLICIES),
            default=None,
            help="A document repeated within a query: refuse, or keep the first. [default: reject]",
        ),
        click.option(
            "--entity",
            default=None,
            metavar="REGEX",
            help="Map run document IDs to judged entities: the first group (or whole "
            "match) of REGEX matched at the start of the ID, e.g. '([^#]+)#'.",
        ),
        click.option(
            "--ties",
            type=click.Choice(TIE_POLICIES),
            default=None,
            help="How the list is ordered: score then docid descending (trec_eval), "
            "score then docid ascending, the rank column, or file order. "
            "[default: trec_eval]",
        ),
        click.option(
            "--zero-idcg",
            "zero_idcg",
            type=click.Choice(ZERO_IDCG_POLICIES),
            default=None,
            help="Score of a query whose ideal DCG is 0: 0, 1, or left out of the "
            "mean (always counted). [default: zero]",
        ),
        click.option(
            "--missing",
            type=click.Choice(MISSING_POLICIES),
            default=None,
            help="A judged query absent from the run: scored 0, or left out and "
            "counted. [default: zero]",
        ),
        click.option(
            "--relevant-from",
            "relevant_from",
            type=AsciiInteger(-GRADE_LIMIT, GRADE_LIMIT),
            default=None,
            help="Lowest grade counted relevant by recall, precision and RR. [default: 1]",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def build_contract(
    base: Contract | None, preset_name: str | None, given: dict[str, Any]
) -> Contract:
    """The contract: ``base`` (or the defaults), then the preset, then every option given."""
    changes = {name: value for name, value in given.items() if value is not None}
    if "scale" in changes:
        changes["scale"] = Scale.parse(changes["scale"])
    if preset_name is not None:
        changes = {**PRESETS[preset_name], **changes}
    return (base or Contract()).with_changes(**changes)


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
def score(
    runs: tuple[str, ...],
    qrels: str | None,
    workspace: str | None,
    consensus: str | None,
    preset: str | None,
    output_format: str,
    per_query: bool,
    engine: str,
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
    progress = StageProgress(enabled=sys.stderr.isatty())
    with progress:
        progress.update("reading judgments")
        judged = read_judgments(
            qrels, workspace, consensus, lambda base: build_contract(base, preset, options)
        )
        refs = run_refs(judged, runs)
        kinds = [stored_or_file(judged, ref) for ref in refs]
        results: list[ScoredRun] = []
        for number, (ref, kind) in enumerate(zip(refs, kinds, strict=True), start=1):
            prefix = f"[{number}/{len(refs)}] " if len(refs) > 1 else ""

            def report(stage: str, prefix: str = prefix) -> None:
                progress.update(prefix + stage)

            if kind == "stored" and judged.workspace is not None:
                source = stored_source(judged.workspace, ref)
            else:
                source = file_source(ref)
            results.append(
                score_run(
                    source, judged.judgments, judged.digest, judged.contract,
                    engine=engine, on_progress=report,
                )
            )  # fmt: skip
        refused = None
        if judged.workspace is not None and judged.consensus is not None:
            from judgepool.services.evaluations import store_evaluations

            refused = store_evaluations(judged.workspace, results, kinds, judged.consensus)
    emit_scores(results, judged.label, output_format, per_query)
    if refused is not None:
        what = "evaluation was" if len(results) == 1 else "evaluations were"
        click.echo(
            f"judgepool: the {what} not stored in {literal(refused.path)}: the workspace is "
            f"read-only ({refused.reason})",
            err=True,
        )


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
def audit(
    runs: tuple[str, ...],
    qrels: str | None,
    workspace: str | None,
    consensus: str | None,
    preset: str | None,
    output_format: str,
    fail_on: str,
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
                    on_progress=progress.update,
                ))  # fmt: skip
            else:
                reports.append(
                    audit_run_file(
                        ref, judged.judgments, judged.contract, on_progress=progress.update
                    )
                )
    failing: list[str] = []
    for report in reports:
        if output_format == "json":
            click.echo(json.dumps(report.to_dict(), ensure_ascii=False))
        else:
            click.echo(render_audit_table(report))
        failing.extend(f"{report.run}: {kind}" for kind in failed(report, kinds))
    if failing:
        click.echo("judgepool: --fail-on findings present: " + "; ".join(failing), err=True)
        sys.exit(1)
