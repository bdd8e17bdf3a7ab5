"""What ``judgepool score``, ``audit``, ``compare`` and ``holes`` start from:
the runs and the judgments as the command line names them (`RunsRequest`,
from the options `runs_request` adds), then read (`reading_runs`): the
judgments once (`judgepool.services.judgments_source`), the contract built on
them, the runs' names resolved to files or stored runs (`run_source`: the one
place that decides which, each run's source a plain value from then on).

A workspace's default contract is the base the command's options change, so
the contract is built here, after the workspace is opened.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from judgepool.cli.contract_options import build_contract, contract_options
from judgepool.cli.params import AsciiInteger
from judgepool.cli.progress import StageProgress
from judgepool.core.team.consensus import CONSENSUS_RULES, Provenance
from judgepool.core.terms.contract import PARAMETERS, Contract
from judgepool.core.terms.engines import ENGINES, Engine
from judgepool.core.terms.errors import InputError
from judgepool.display import literal
from judgepool.services.judgments_source import JudgmentsSource, qrels_source
from judgepool.services.runs.passes import Against, RunOutcome, Wanted
from judgepool.services.runs.sources import (
    RunSource,
    StoredSource,
    file_source,
    has_run,
    run_names,
    stored_source,
)

if TYPE_CHECKING:
    from judgepool.services.workspace import Workspace

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class RunsRequest:
    """The runs and the judgments as the command line gives them, unread."""

    runs: tuple[str, ...]
    qrels: str | None
    workspace: str | None
    consensus: str | None
    preset: str | None
    # every contract option, None where not given
    contract_options: dict[str, Any] = field(default_factory=dict)
    # a model whose labels count where nobody else graded (--with-model)
    with_model: str | None = None

    def contract(self, base: Contract | None) -> Contract:
        """The contract: ``base`` (a workspace's default, or None), then the
        preset, then every option given."""
        return build_contract(base, self.preset, self.contract_options)


def runs_request(func: F) -> F:
    """The ``RUN...`` argument, the options that say where the judgments come
    from and every contract option, handed to the command as one
    `RunsRequest` (its ``request`` argument)."""

    @functools.wraps(func)
    def command(
        *args: Any,
        runs: tuple[str, ...],
        qrels: str | None,
        workspace: str | None,
        consensus: str | None,
        preset: str | None,
        with_model: str | None,
        **options: Any,
    ) -> Any:
        contract = {parameter.name: options.pop(parameter.name) for parameter in PARAMETERS}
        request = RunsRequest(runs, qrels, workspace, consensus, preset, contract, with_model)
        return func(*args, request=request, **options)

    decorated = _judgments_options(contract_options(command))
    return cast(F, click.argument("runs", nargs=-1, metavar="RUN...")(decorated))


def _judgments_options(func: F) -> F:
    """The options that say where the judgments come from."""
    func = with_model_option(func)
    func = click.option(
        "--consensus", type=click.Choice(CONSENSUS_RULES), default=None,
        help="With --workspace: how one grade per (query, doc) is chosen when annotators "
        "disagree. [default: the workspace's]",
    )(func)  # fmt: skip
    func = click.option(
        "--workspace", metavar="WS",
        help="Judgments (and stored runs, by name) from a workspace; each score is stored.",
    )(func)  # fmt: skip
    return click.option(
        "--qrels", metavar="FILE", help="Judgments in TREC qrels format (plain or gzip)."
    )(func)


def with_model_option(func: F) -> F:
    """``--with-model NAME``: a model's labels counted where nobody else graded."""
    return click.option(
        "--with-model", metavar="NAME", default=None,
        help="With --workspace: count model:NAME's labels as grades of the items nobody else "
        "graded (never over a person's, an import's or an adjudicator's grade). Without it, "
        "a model's labels are evidence, not judgments: the items only a model graded stay "
        "unjudged. Every output names the model, and the judgments' digest ends in "
        "+model:NAME.",
    )(func)  # fmt: skip


def note_left_out_models(provenance: Provenance) -> None:
    """Say on standard error which models' labels the numbers left out (and
    how to count them): apart from the results, so labelling a workspace's
    holes with a model leaves a command's output as it was."""
    line = provenance.left_out_line()
    if line is not None:
        click.echo(f"judgepool: {literal(line)}", err=True)


def engine_option(help_text: str) -> Callable[[F], F]:
    """``--engine fast|reference``, with what the two give for this command."""
    return click.option(
        "--engine", type=click.Choice(ENGINES), default="fast", show_default=True, help=help_text
    )


@dataclass
class RunInputs:
    """What a command reads runs against, read once: the judgments, the
    contract, the workspace they come from (open; None for a qrels file), and
    the runs named (or every stored run)."""

    judged: JudgmentsSource
    contract: Contract
    workspace: Workspace | None
    refs: tuple[str, ...]
    progress: StageProgress

    @functools.cached_property
    def _sources(self) -> tuple[RunSource, ...]:
        # each run looked up, then opened, before the next; once for the command
        return tuple(run_source(self.workspace, ref) for ref in self.refs)

    def sources(self) -> list[RunSource]:
        """Each run named: a stored run of the workspace, or a run file."""
        return list(self._sources)

    @property
    def kinds(self) -> tuple[str, ...]:
        """ "stored" or "file" for each run, as an evaluation is stored."""
        return tuple("stored" if isinstance(s, StoredSource) else "file" for s in self._sources)

    def map(self, wanted: Wanted, engine: Engine, jobs: int | None) -> list[RunOutcome]:
        """What ``wanted`` asks of every run, in order, up to ``jobs`` at once
        (None: the default; see `judgepool.services.runs.parallel_runs`)."""
        # late: the worker pool (multiprocessing) is loaded only to read runs,
        # not for a command's --help or a refused option
        from judgepool.services.runs.parallel_runs import map_runs

        return map_runs(
            self._sources,
            Against(self.judged, self.contract, engine),
            wanted,
            jobs=jobs_for(jobs, len(self.refs)),
            on_progress=self.progress.update,
        )


@contextmanager
def reading_runs(request: RunsRequest, *, warm_workers: bool = False) -> Iterator[RunInputs]:
    """The start every command reading runs shares: a progress line on a
    terminal, the judgments read and the runs resolved. The progress line is
    cleared when the block ends, before the command prints its results.
    ``warm_workers``: start the worker processes' imports while the judgments
    are read (for runs read in parallel)."""
    progress = StageProgress(enabled=sys.stderr.isatty())
    with progress:
        if warm_workers:
            from judgepool.services.runs.parallel_runs import warm_up

            warm_up()
        progress.update("reading judgments")
        judged, contract, ws = read_judgments(request)
        yield RunInputs(judged, contract, ws, tuple(run_refs(ws, request.runs)), progress)


def read_judgments(request: RunsRequest) -> tuple[JudgmentsSource, Contract, Workspace | None]:
    """The judgments, the contract built on them, and the workspace they come
    from (None for a qrels file); a model's labels only with ``--with-model``."""
    qrels, workspace = request.qrels, request.workspace
    if (qrels is None) == (workspace is None):
        raise click.UsageError("give the judgments with either --qrels FILE or --workspace WS")
    if qrels is not None:
        if request.consensus is not None:
            raise click.UsageError("--consensus applies to --workspace only")
        if request.with_model is not None:
            raise click.UsageError(
                "--with-model applies to --workspace only (a qrels file holds no model's labels "
                "apart from its judgments)"
            )
        if not Path(qrels).exists():
            raise InputError("no such file", qrels)
        contract = request.contract(None)
        return qrels_source(qrels, contract.scale), contract, None
    # Imported here: scoring plain files must not pay for loading SQLite.
    from judgepool.services.judgments_source import workspace_source
    from judgepool.services.workspace import open_workspace

    ws = open_workspace(str(workspace))
    contract = request.contract(ws.default_contract())
    if contract.scale != ws.scale:
        raise click.UsageError(
            f"the workspace's grades are on the scale {ws.scale}; --scale cannot change it"
        )
    judged = workspace_source(ws, request.consensus, with_model=request.with_model)
    return judged, contract, ws


def run_source(ws: Workspace | None, ref: str) -> RunSource:
    """The run ``ref`` names: a run stored in the workspace by that name, else
    the file at that path: a regular file, or a stream (a FIFO, a device such
    as /dev/stdin), which the readers take as it comes. A directory is refused
    here, and so is the workspace's own file (`sources.file_source`)."""
    if ws is not None and has_run(ws, ref):
        return stored_source(ws, ref)
    if Path(ref).is_dir():
        raise InputError("is a directory, not a run file", ref)
    if Path(ref).exists():
        return file_source(ref)
    where = " in the workspace and" if ws is not None else ""
    raise InputError(f"no run named {ref!r}{where} no such file")


def run_refs(ws: Workspace | None, runs: Sequence[str]) -> list[str]:
    """The runs named on the command line; with a workspace and none named,
    every stored run."""
    if runs:
        return list(runs)
    if ws is not None:
        names = run_names(ws)
        if names:
            return names
        raise click.UsageError("the workspace holds no runs: import one, or name a RUN file")
    raise click.UsageError("name at least one RUN file")


# More workers than this would not fit any machine's memory (each holds a run).
MAX_JOBS = 256


def jobs_option(func: F) -> F:
    """``--jobs N``: how many runs are read at once, each in a worker process."""
    return click.option(
        "--jobs", "-j", type=AsciiInteger(1, MAX_JOBS), default=None, metavar="N",
        help="Read up to N runs at once, in up to N worker processes that each read one run "
        "after another; the output is the same, in the order the runs were named. 1: one "
        "after another in this process. Each worker holds the run it reads in memory "
        "(about 0.8 GB for a 7 M-line run; files of 512 MB or more are read in chunks, "
        "under 0.3 GB), so N at once need N times that: lower N when memory is short. "
        "[default: the cores this process may use, no more than the runs]",
    )(func)  # fmt: skip


def jobs_for(jobs: int | None, runs: int) -> int:
    """The ``--jobs`` given, or the default for ``runs`` runs."""
    from judgepool.services.runs.parallel_runs import default_jobs

    return default_jobs(runs) if jobs is None else jobs
