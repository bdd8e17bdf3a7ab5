"""What ``judgepool compare`` and ``judgepool report`` share: the options of a
comparison (baseline, correction, draws, prior, ...) declared once, and the
comparison itself read and computed from them (`comparing`).

The two commands differ only in what they make of the comparison (text on
standard output; an HTML file and figures), so the options' names, defaults,
help and checks stay the same in both by construction.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from judgepool.cli.params import AsciiDecimal, AsciiInteger
from judgepool.cli.score_inputs import RunInputs, RunsRequest, engine_option, reading_runs
from judgepool.core.comparing.significance import CORRECTIONS, Correction
from judgepool.core.comparing.verdicts import CONFIDENCE
from judgepool.core.holes.draws import AUTO_DRAWS_MINIMUM, DEFAULT_DRAWS
from judgepool.core.holes.priors import DEFAULT_PRIOR, ModelLabels, prior_model
from judgepool.core.team.confusion import Confusion
from judgepool.core.terms.engines import Engine
from judgepool.services.verdicts import ComparedRuns, compare_runs

if TYPE_CHECKING:
    from judgepool.services.runs.sources import RunSource

F = TypeVar("F", bound=Callable[..., Any])

# draws of the randomisation test and the bootstrap: enough for any use,
# bounded so that a typo cannot ask for days of work
MAX_DRAWS = 10_000_000


@dataclass(frozen=True)
class CompareOptions:
    """The options of a comparison, as given."""

    baseline: str | None
    correction: Correction
    permutations: int
    bootstrap: int
    seed: int
    draws: int | None
    prior: str
    labels_file: str | None
    confidence: float
    engine: Engine


def compare_options(baseline_help: str) -> Callable[[F], F]:
    """Every option of a comparison, handed to the command as one
    `CompareOptions` (its ``options`` argument); ``baseline_help`` says what
    the command does without ``--baseline``."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def command(*args: Any, **given: Any) -> Any:
            names = [name for name in CompareOptions.__dataclass_fields__]
            options = CompareOptions(**{name: given.pop(name) for name in names})
            return func(*args, options=options, **given)

        decorated: Any = command
        for option in reversed(_options(baseline_help)):
            decorated = option(decorated)
        return cast(F, decorated)

    return decorate


def _options(baseline_help: str) -> list[Callable[[Any], Any]]:
    return [
        click.option("--baseline", metavar="RUN", default=None, help=baseline_help),
        click.option(
            "--correction", type=click.Choice(CORRECTIONS), default="holm", show_default=True,
            help="How the p-values are adjusted for the number of pairs compared: holm "
            "(family-wise error), bh (Benjamini-Hochberg, false discovery rate) or none.",
        ),
        click.option(
            "--permutations", type=AsciiInteger(1, MAX_DRAWS), default=10_000, show_default=True,
            help="Random sign assignments of the randomisation test (every assignment is "
            "enumerated, exactly, when there are no more than this).",
        ),
        click.option(
            "--bootstrap", type=AsciiInteger(1, MAX_DRAWS), default=10_000, show_default=True,
            help="Resamples of the bootstrap interval of each mean difference.",
        ),
        click.option(
            "--seed", type=AsciiInteger(0, 2**63 - 1), default=0, show_default=True,
            help="Seed of the random draws: the same seed and inputs print the same numbers.",
        ),
        click.option(
            "--draws", type=AsciiInteger(0, MAX_DRAWS), default=None,
            help="Joint draws of every hole's grade from its prior (seeded with --seed), behind "
            "each run's expected nDCG and each pair's P(A ahead); 0: none, and no probable "
            f"verdicts. [default: {DEFAULT_DRAWS:,}, or fewer (at least {AUTO_DRAWS_MINIMUM}) "
            "where the comparison has so many holes that they would take more than a few "
            "seconds; the number used is printed]",
        ),
        click.option(
            "--prior", default=DEFAULT_PRIOR, show_default=True, metavar="runs|rank|model:NAME",
            help="What a hole's grade probably is: runs, from which compared runs retrieved it "
            "and where and how relevant its query's judged documents are (an ordinal model "
            "fitted on the judged documents of the top k, its parameters drawn too, checked by "
            "hiding 30 % of those documents; the expected nDCG and its interval corrected by "
            "that check); rank, the grades of the judged documents at the same best rank in "
            "the runs' top k; model:NAME, what people gave the items the model NAME graded "
            "alike (its labels from the workspace, or --labels), the runs prior where it "
            "graded nothing. The model's grades are then evidence, not judgments.",
        ),
        click.option(
            "--labels", "labels_file", metavar="FILE", default=None,
            help="With --prior model:NAME: the model's grades, as a qrels file. [default: the "
            "workspace's grades of model:NAME]",
        ),
        click.option(
            "--confidence", type=AsciiDecimal(0.5, 1.0, low_open=True), default=CONFIDENCE,
            show_default=True,
            help="The share of draws that must put one run ahead for a pair the bounds leave "
            "open to be called probable: more than 0.5, at most 1.",
        ),
        engine_option(
            "fast (vectorised) or reference (plain Python): the same numbers, for "
            "cross-checking."
        ),
    ]  # fmt: skip


@dataclass(frozen=True)
class Comparison:
    """A comparison computed, with what it was computed from: the runs'
    sources, the inputs (the judgments, the contract, the open workspace or
    None) and, under a model prior on a workspace, the model's labels against
    the people's (``trust``)."""

    compared: ComparedRuns
    sources: Sequence[RunSource]
    inputs: RunInputs
    trust: Confusion | None


@contextmanager
def comparing(
    request: RunsRequest,
    options: CompareOptions,
    check_sources: Callable[[Sequence[RunSource]], None] | None = None,
    *,
    first_is_baseline: bool = False,
    all_pairs: bool = False,
) -> Iterator[Comparison]:
    """The comparison the request and options ask for; a workspace they name
    stays open until the block ends. ``check_sources`` sees the runs' sources
    before any is read (to refuse a bad option on them early).
    ``first_is_baseline``: without ``--baseline``, the first run is the
    baseline (rather than every pair compared); ``all_pairs``: with a
    baseline, every pair compared as well (`ComparedRuns.every_pair`)."""
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import confusion as confusions
    from judgepool.services import model_labels

    model_name = prior_model(options.prior)
    if options.labels_file is not None and model_name is None:
        raise click.UsageError("--labels goes with --prior model:NAME (the model's grades)")
    if model_name is not None and request.workspace is None and options.labels_file is None:
        raise click.UsageError(
            f"--prior {options.prior} needs the model's grades: --labels FILE, or --workspace "
            "WS holding them"
        )
    if model_name is not None and request.with_model is not None:
        counted = request.with_model.removeprefix("model:")
        if counted == model_name:
            raise click.UsageError(
                f"--with-model {counted} with --prior {options.prior}: the model's labels "
                "cannot be both judgments and the evidence calibrated on them"
            )
    with reading_runs(request) as inputs:
        model: ModelLabels | None = None
        trust: Confusion | None = None
        if model_name is not None:
            if options.labels_file is not None:
                model = model_labels.file_labels(
                    options.labels_file, model_name, inputs.contract.scale
                )
            elif inputs.workspace is not None:
                model = model_labels.workspace_labels(inputs.workspace, model_name)
                # how far the labels agree with people's, where the prior is used
                trust = confusions.model_confusion(
                    inputs.workspace, model_labels.model_source(model_name)
                )
        sources = inputs.sources()
        if check_sources is not None:
            check_sources(sources)
        baseline = options.baseline
        if baseline is None and first_is_baseline and sources:
            baseline = sources[0].name
        compared = compare_runs(
            sources,
            inputs.judged,
            inputs.contract,
            baseline=baseline,
            correction=options.correction,
            permutations=options.permutations,
            bootstrap=options.bootstrap,
            seed=options.seed,
            draws=options.draws,
            confidence=options.confidence,
            model=model,
            engine=options.engine,
            on_progress=inputs.progress.update,
            prior_kind="rank" if options.prior == "rank" else "runs",
            all_pairs=all_pairs,
        )
        yield Comparison(compared, sources, inputs, trust)
