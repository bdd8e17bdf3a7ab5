"""``judgepool holes``: the unjudged documents of the runs' top k, in the order
worth judging them.

``settle`` puts first what brings the undecided comparisons nearest a
verdict (settled, or probable with room to spare: `judgepool.core.holes.settle`);
``depth`` is classic pooling (by rank, round-robin over the runs). The runs
and judgments are read as ``score`` reads them. ``--sample N`` draws a
probability sample of them instead and prints it as a sample file
(`judgepool.services.sample`), for ``assign --sample`` and ``compare --sample``.
"""

from __future__ import annotations

import json
from typing import Any

import click

from judgepool.cli.params import AsciiInteger
from judgepool.cli.render import contract_lines, rests_on_lines, table
from judgepool.cli.score_inputs import (
    RunsRequest,
    engine_option,
    note_left_out_models,
    reading_runs,
    runs_request,
)
from judgepool.core.team.consensus import Provenance
from judgepool.core.terms.engines import Engine
from judgepool.display import literal
from judgepool.services.verdicts import HOLE_ORDERS, HoleListing, list_holes

SAMPLE_NOTE = (
    "judgepool sample of the holes: {sampled} of {holes} drawn (expected {size:g}), Poisson "
    "sampling, each hole with the inclusion probability listed\n"
    "judge every hole listed (judgepool assign WS --sample FILE), then: judgepool compare "
    "... --sample FILE"
)


@click.command()
@runs_request
@click.option(
    "--order",
    type=click.Choice(HOLE_ORDERS),
    default="settle",
    show_default=True,
    help="settle: first the documents whose grade is expected to bring the undecided pairs "
    "of runs (neither settled, tied nor probable) nearest a verdict, under compare's prior "
    "(the runs prior; the rank prior while too few documents are judged to fit it), each "
    "chosen as if those before it were judged, so that a team can judge the first N at "
    "once; depth: classic pooling, by rank, round-robin over the runs in the order given.",
)
@click.option(
    "--limit",
    type=AsciiInteger(1, 2**31 - 1),
    default=None,
    help="List at most this many documents (the best first). [default: all]",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json: an array, best first, of {query_id, doc_id, runs, "
    "best_rank, priority}.",
)
@click.option(
    "--sample",
    "sample_size",
    type=AsciiInteger(1, 2**31 - 1),
    default=None,
    metavar="N",
    help="Instead of the list, draw about N holes at random (Poisson sampling: the holes "
    "that move the runs' nDCG most are likelier) and print them as a sample file, each "
    "with its inclusion probability: judge them all, then 'compare --sample FILE' "
    "estimates every run's nDCG with every hole judged, whatever the prior says.",
)
@click.option(
    "--seed",
    type=AsciiInteger(0, 2**63 - 1),
    default=None,
    help="With --sample: the seed of the draw (the same seed and inputs draw the same "
    "sample). [default: 0]",
)
@engine_option("fast (vectorised) or reference (plain Python): the same lists, for cross-checking.")
def holes(
    request: RunsRequest,
    order: Any,
    limit: int | None,
    output_format: str,
    sample_size: int | None,
    seed: int | None,
    engine: Engine,
) -> None:
    """List the unjudged documents ("holes") in the top k of RUN files (or, with
    --workspace, stored runs by name; every stored run when none is named), on
    the queries scored for every run, in the order worth judging them.

    The list is the same under every --unjudged policy (reject, the default,
    refuses to score a run with holes, but not to list them). With --workspace,
    a pooled query without a grade yet counts too: its whole top k is holes.

    With --sample N, a random sample of about N of them, printed as a sample
    file (see 'judgepool compare --sample').

    \b
    Examples:
      judgepool holes --workspace team.sqlite --limit 20
      judgepool holes --workspace team.sqlite --sample 80 --seed 7 > sample.tsv
    """
    if sample_size is not None:
        _sample(request, sample_size, 0 if seed is None else seed, output_format, engine)
        return
    if seed is not None:
        raise click.UsageError("--seed goes with --sample (the seed of its draw)")
    with reading_runs(request) as inputs:
        sources = inputs.sources()
        # a workspace's pooled queries are chosen for judging: before their
        # first grade, every document of their top k is a hole
        pooled: list[str] = []
        if inputs.workspace is not None:
            # imported here: holes of plain files must not pay for loading SQLite
            from judgepool.services.pools import pooled_queries

            pooled = pooled_queries(inputs.workspace)
        listing = list_holes(
            sources,
            inputs.judged,
            inputs.contract,
            order=order,
            limit=limit,
            engine=engine,
            unjudged_queries=pooled,
            on_progress=inputs.progress.update,
        )
    if output_format == "json":
        click.echo(json.dumps([entry.to_dict() for entry in listing.holes], ensure_ascii=False))
    else:
        in_workspace = inputs.workspace is not None
        click.echo(
            render_holes_table(
                listing, inputs.judged.label, order, inputs.contract, in_workspace,
                inputs.judged.provenance,
            )
        )  # fmt: skip
    note_left_out_models(inputs.judged.provenance)


def _sample(request: RunsRequest, size: int, seed: int, output_format: str, engine: Engine) -> None:
    """``holes --sample``: the sample file on standard output, what was drawn on
    standard error."""
    source = click.get_current_context().get_parameter_source
    given = [
        name
        for name in ("limit", "order")
        if source(name) is click.core.ParameterSource.COMMANDLINE
    ]
    if given or output_format != "table":
        what = ", ".join(f"--{name}" for name in given) or "--format"
        raise click.UsageError(f"--sample prints the sample file: {what} does not apply")
    # imported here: the listing of holes does not pay for the sampler
    from judgepool.formats.sample_file import sample_text
    from judgepool.services.sample import draw_hole_sample

    with reading_runs(request) as inputs:
        drawn = draw_hole_sample(
            inputs.sources(), inputs.judged, inputs.contract, size=size, seed=seed,
            engine=engine, on_progress=inputs.progress.update,
        )  # fmt: skip
    sample = drawn.sample
    note = SAMPLE_NOTE.format(sampled=len(sample.holes), holes=sample.frame_holes, size=size)
    click.echo(sample_text(sample, note), nl=False)
    click.echo(
        f"sample: {len(sample.holes):,} of the {sample.frame_holes:,} holes in the top "
        f"{drawn.contract.k} over {drawn.queries:,} queries (expected {size:,}, seed {seed})",
        err=True,
    )
    note_left_out_models(inputs.judged.provenance)


def render_holes_table(
    listing: HoleListing,
    label: str,
    order: str,
    contract: Any,
    in_workspace: bool = False,
    provenance: Provenance | None = None,
) -> str:
    """The holes for people: provenance, counts, then one row per document."""
    shown = len(listing.holes)
    out = [
        f"judgments  {literal(label)}",
        *rests_on_lines(provenance),
        *contract_lines(contract),
        f"holes      {listing.total} unjudged documents in the top {contract.k} over "
        f"{listing.queries} queries; {order} order"
        + (f", the first {shown} shown" if shown < listing.total else ""),
    ]
    if contract.unjudged == "reject":
        out.append(
            "note       listed as under unjudged=zero: reject refuses a run with holes, and "
            "the holes are the same under every policy"
        )
    if listing.queries == 0:
        out.append(
            "note       no query is judged or pooled yet: pool the runs first (judgepool pool WS "
            "--depth D), or grade a document"
            if in_workspace
            else "note       the judgments judge none of the queries every run returned"
        )
    out.append("")
    rows = [
        [str(place), literal(entry.hole.query_id), literal(entry.hole.doc_id),
         ", ".join(literal(run) for run in entry.hole.runs), str(entry.hole.best_rank),
         f"{entry.priority:.4g}"]
        for place, entry in enumerate(listing.holes, start=1)
    ]  # fmt: skip
    out.append(table(["#", "query", "doc", "runs", "best rank", "priority"], rows, 4))
    out.append("")
    meaning = (
        "the share of the remaining way to a verdict that judging it is expected to cover, "
        "summed over the pairs of runs still undecided (neither settled, tied nor probable), "
        "once the documents above it are judged"
        if order == "settle"
        else "1 / its place in the round-robin by rank"
    )
    out.append(f"best rank: its highest place in any run's top {contract.k}; priority: {meaning}.")
    return "\n".join(out)
