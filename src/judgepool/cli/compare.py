"""``judgepool compare``: is run A better than run B, beyond noise, and could the
unjudged documents still change the answer?

The runs are read and scored as ``score`` reads and scores them (files, or a
workspace's stored runs by name; every contract option), then compared pair
by pair on the queries scored for every run (`judgepool.services.verdicts`).
Nothing is stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from judgepool.cli.compare_options import CompareOptions, compare_options, comparing
from judgepool.cli.run_labels import run_labels
from judgepool.cli.sample_render import read_sample_file, render_sample_table, sample_report
from judgepool.cli.score_inputs import RunsRequest, note_left_out_models, runs_request
from judgepool.cli.verdict_render import (
    render_compare_latex,
    render_compare_markdown,
    render_compare_table,
    render_figure_environments,
    run_keys,
)

if TYPE_CHECKING:
    from judgepool.services.runs.sources import RunSource


@click.command()
@runs_request
@compare_options(
    "Compare every other run with this one (one of the RUNs, named as given) instead "
    "of every pair; the baseline is B, so a positive difference means the run beats it."
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
@click.option(
    "--figures",
    "figures_dir",
    metavar="DIR",
    default=None,
    help="With --format latex: also a figure environment for each figure judgepool report "
    "--figures DIR writes for the same inputs, including DIR/<name>.pdf, with its caption.",
)
@click.option(
    "--sample",
    "sample_path",
    metavar="FILE",
    default=None,
    help="A sample of the holes, as 'judgepool holes --sample N' wrote it, every hole of it "
    "graded: adds each run's nDCG and each pair's difference with every hole judged, "
    "estimated from the sample (HT, and prior-powered under --prior) with 95% intervals "
    "that hold whatever the prior says. With --format table or json.",
)
def compare(
    request: RunsRequest,
    options: CompareOptions,
    output_format: str,
    labels: tuple[str, ...],
    figures_dir: str | None,
    sample_path: str | None,
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
      judgepool compare bm25.trec splade.trec --qrels qrels.txt --format latex \\
        --figures figures
      judgepool compare --workspace team.sqlite --unjudged zero --sample sample.tsv
    """
    if labels and output_format != "latex":
        raise click.UsageError("--label applies to --format latex (the tables for a paper)")
    if figures_dir is not None and output_format != "latex":
        raise click.UsageError("--figures applies to --format latex (the figures for a paper)")
    if sample_path is not None and output_format not in ("table", "json"):
        raise click.UsageError("--sample applies to --format table or json")
    # a bad sample file is refused before any run is read
    sample = None if sample_path is None else read_sample_file(sample_path)
    named: dict[str, str] = {}

    def check_labels(sources: Sequence[RunSource]) -> None:
        # before any run is read: a bad label is refused at once
        if output_format == "latex":
            named.update(run_labels(sources, labels))

    with comparing(request, options, check_labels) as comparison:
        compared, trust = comparison.compared, comparison.trust
        qrels_label = comparison.inputs.judged.label
        sampled = None if sample is None else sample_report(sample, comparison, options)
    note_left_out_models(compared.provenance)
    if output_format == "json":
        data = compared.to_dict()
        if trust is not None:
            data["model_confusion"] = trust.to_dict()
        if sampled is not None:
            data["sample"] = sampled.to_dict()
        click.echo(json.dumps(data, ensure_ascii=False))
    elif output_format == "markdown":
        click.echo(render_compare_markdown(compared))
    elif output_format == "latex":
        click.echo(render_compare_latex(compared, named))
        if figures_dir is not None:
            # the report pairs every run with its baseline: the first unless named
            baseline = options.baseline or compared.report.runs[0].run
            workspace = comparison.inputs.workspace is not None
            click.echo(
                render_figure_environments(compared, named, figures_dir, workspace, baseline)
            )
    else:
        line = None if trust is None else trust.line()
        click.echo(render_compare_table(compared, qrels_label, line))
        if sampled is not None:
            click.echo("")
            click.echo(render_sample_table(sampled, run_keys(compared.report)))
