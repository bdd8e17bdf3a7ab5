"""``judgepool compare``: is run A better than run B, beyond noise, and could the
unjudged documents still change the answer?

The runs are read and scored as ``score`` reads and scores them (files, or a
workspace's stored runs by name; every contract option), then compared pair
by pair on the queries scored for every run (`judgepool.services.verdicts`).
Nothing is stored.
"""

from __future__ import annotations

import json
from typing import Any

import click

from judgepool.cli import main
from judgepool.cli.params import AsciiInteger
from judgepool.cli.run_labels import run_labels
from judgepool.cli.score_inputs import RunsRequest, engine_option, reading_runs, runs_request
from judgepool.cli.verdict_render import (
    render_compare_latex,
    render_compare_markdown,
    render_compare_table,
)
from judgepool.core.engines import Engine
from judgepool.core.significance import CORRECTIONS
from judgepool.services.verdicts import compare_runs

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
    verdict: settled, could flip or tied. Then each pair in one sentence:
    significant when the randomisation test's adjusted p is below 0.05 and
    the bootstrap interval lies on the difference's side of 0, and what the
    unjudged documents can still do (json: each pair's "sentence").

    \b
    Examples:
      judgepool compare bm25.trec splade-pp-ed.trec --qrels qrels.txt --unjudged zero
      judgepool compare bm25.trec splade.trec --qrels qrels.txt --format latex \\
        --label bm25.trec=BM25 --label splade.trec=SPLADE++
    """
    if labels and output_format != "latex":
        raise click.UsageError("--label applies to --format latex (the tables for a paper)")
    with reading_runs(request) as inputs:
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
            engine=engine,
            on_progress=inputs.progress.update,
        )
    if output_format == "json":
        click.echo(json.dumps(compared.to_dict(), ensure_ascii=False))
    elif output_format == "markdown":
        click.echo(render_compare_markdown(compared))
    elif output_format == "latex":
        click.echo(render_compare_latex(compared, named))
    else:
        click.echo(render_compare_table(compared, inputs.judged.label))
