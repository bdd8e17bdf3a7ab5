"""``judgepool compare``: is run A better than run B, beyond noise, and could the
unjudged documents still change the answer?

The runs are read and scored as ``score`` reads and scores them (files, or a
workspace's stored runs by name; every contract option), then compared pair
by pair on the queries scored for every run (`judgepool.services.verdicts`).
Nothing is stored.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from judgepool.cli import main
from judgepool.cli.lazy import LazyModule
from judgepool.cli.params import AsciiInteger
from judgepool.cli.run_labels import run_labels
from judgepool.cli.score_inputs import RunsRequest, engine_option, reading_runs, runs_request
from judgepool.cli.verdict_render import (
    render_compare_latex,
    render_compare_markdown,
    render_compare_table,
)
from judgepool.core.confusion import Confusion
from judgepool.core.draws import AUTO_DRAWS_MINIMUM, DEFAULT_DRAWS
from judgepool.core.engines import Engine
from judgepool.core.priors import ModelLabels, prior_model
from judgepool.core.significance import CORRECTIONS
from judgepool.core.verdicts import CONFIDENCE
from judgepool.services.verdicts import compare_runs

if TYPE_CHECKING:
    from judgepool.services import confusion as confusions
    from judgepool.services import model_labels
else:
    confusions = LazyModule("judgepool.services.confusion")
    model_labels = LazyModule("judgepool.services.model_labels")

# draws of the randomisation test and the bootstrap: enough for any use,
# bounded so that a typo cannot ask for days of work
MAX_DRAWS = 10_000_000


@main.command()
@runs_request
@click.option(
    "--baseline",
    metavar="RUN",
    default=None,
    help="Compare every other run with this one (one of the RUNs, named as given) instead "
    "of every pair; the baseline is B, so a positive difference means the run beats it.",
)
@click.option(
    "--correction",
    type=click.Choice(CORRECTIONS),
    default="holm",
    show_default=True,
    help="How the p-values are adjusted for the number of pairs compared: holm (family-wise "
    "error), bh (Benjamini-Hochberg, false discovery rate) or none.",
)
@click.option(
    "--permutations",
    type=AsciiInteger(1, MAX_DRAWS),
    default=10_000,
    show_default=True,
    help="Random sign assignments of the randomisation test (every assignment is enumerated, "
    "exactly, when there are no more than this).",
)
@click.option(
    "--bootstrap",
    type=AsciiInteger(1, MAX_DRAWS),
    default=10_000,
    show_default=True,
    help="Resamples of the bootstrap interval of each mean difference.",
)
@click.option(
    "--seed",
    type=AsciiInteger(0, 2**63 - 1),
    default=0,
    show_default=True,
    help="Seed of the random draws: the same seed and inputs print the same numbers.",
)
@click.option(
    "--draws",
    type=AsciiInteger(0, MAX_DRAWS),
    default=None,
    help="Joint draws of every hole's grade from its prior (seeded with --seed), behind each "
    "run's expected nDCG and each pair's P(A ahead); 0: none, and no probable verdicts. "
    f"[default: {DEFAULT_DRAWS:,}, or fewer (at least {AUTO_DRAWS_MINIMUM}) where the "
    "comparison has so many holes that they would take more than a few seconds; the "
    "number used is printed]",
)
@click.option(
    "--prior",
    default="rank",
    show_default=True,
    metavar="rank|model:NAME",
    help="What a hole's grade probably is: rank, the grades of the judged documents at the "
    "same best rank in the runs' top k; model:NAME, what people gave the items the model NAME "
    "graded alike (its labels from the workspace, or --labels), the rank prior where it "
    "graded nothing. The model's grades are then evidence, not judgments.",
)
@click.option(
    "--labels",
    "labels_file",
    metavar="FILE",
    default=None,
    help="With --prior model:NAME: the model's grades, as a qrels file. [default: the "
    "workspace's grades of model:NAME]",
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 1.0, min_open=True),
    default=CONFIDENCE,
    show_default=True,
    help="The share of draws that must put one run ahead for a pair the bounds leave open "
    "to be called probable.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "markdown", "latex"]),
    default="table",
    show_default=True,
    help="table for people (with a legend); json: one object, as the evaluation contract "
    "specifies; markdown: two tables; latex: booktabs tables for a paper, significance by "
    "superscripts.",
)
@click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="FILE=NAME",
    help="With --format latex: name the run FILE (as given among the RUNs) NAME in the "
    "tables; repeat for each run to name. [default: the file name without its extension; "
    "a stored run's name]",
)
@engine_option(
    "fast (vectorised) or reference (plain Python): the same numbers, for cross-checking."
)
def compare(
    request: RunsRequest,
    baseline: str | None,
    correction: Any,
    permutations: int,
    bootstrap: int,
    seed: int,
    draws: int | None,
    prior: str,
    labels_file: str | None,
    confidence: float,
    output_format: str,
    labels: tuple[str, ...],
    engine: Engine,
) -> None:
    """Compare two or more RUN files (or, with --workspace, stored runs by name;
    every stored run when none is named) under one contract.

    On the queries scored for every run (the population, printed): per run its
    mean, 95% interval and bounds under the unjudged documents; per pair the
    mean difference, wins/ties/losses, the paired t-test and randomisation
    test p-values (raw and adjusted), a bootstrap interval, the effect size,
    and the bounds of the difference under the unjudged documents with a
    verdict: settled (the bounds exclude 0), tied, probable (the draws of the
    holes' grades put one run ahead in at least --confidence of them) or could
    flip. Then each pair in one sentence: significant when the randomisation
    test's adjusted p is below 0.05 and the bootstrap interval lies on the
    difference's side of 0, and what the unjudged documents can still do
    (json: each pair's "sentence"). The draws take every hole independently
    of the others: an assumption, stated with the results.

    \b
    Examples:
      judgepool compare bm25.trec splade-pp-ed.trec --qrels qrels.txt --unjudged zero
      judgepool compare bm25.trec splade.trec --qrels qrels.txt --format latex \\
        --label bm25.trec=BM25 --label splade.trec=SPLADE++
      judgepool compare --workspace team.sqlite --prior model:gpt-4o --confidence 0.9
    """
    if labels and output_format != "latex":
        raise click.UsageError("--label applies to --format latex (the tables for a paper)")
    model_name = prior_model(prior)
    if labels_file is not None and model_name is None:
        raise click.UsageError("--labels goes with --prior model:NAME (the model's grades)")
    if model_name is not None and request.workspace is None and labels_file is None:
        raise click.UsageError(
            f"--prior {prior} needs the model's grades: --labels FILE, or --workspace WS "
            "holding them"
        )
    leave_out = None
    if model_name is not None and request.workspace is not None:
        leave_out = model_labels.model_source(model_name)
    with reading_runs(request, leave_out_source=leave_out) as inputs:
        model: ModelLabels | None = None
        trust: Confusion | None = None
        if model_name is not None:
            if labels_file is not None:
                model = model_labels.file_labels(labels_file, model_name, inputs.contract.scale)
            elif inputs.workspace is not None:
                model = model_labels.workspace_labels(inputs.workspace, model_name)
                # how far the labels agree with people's, where the prior is used
                trust = confusions.model_confusion(
                    inputs.workspace, model_labels.model_source(model_name)
                )
        sources = inputs.sources()
        named = run_labels(sources, labels) if output_format == "latex" else {}
        compared = compare_runs(
            sources,
            inputs.judged,
            inputs.contract,
            baseline=baseline,
            correction=correction,
            permutations=permutations,
            bootstrap=bootstrap,
            seed=seed,
            draws=draws,
            confidence=confidence,
            model=model,
            engine=engine,
            on_progress=inputs.progress.update,
        )
    if output_format == "json":
        data = compared.to_dict()
        if trust is not None:
            data["model_confusion"] = trust.to_dict()
        click.echo(json.dumps(data, ensure_ascii=False))
    elif output_format == "markdown":
        click.echo(render_compare_markdown(compared))
    elif output_format == "latex":
        click.echo(render_compare_latex(compared, named))
    else:
        line = None if trust is None else trust.line()
        click.echo(render_compare_table(compared, inputs.judged.label, line))
