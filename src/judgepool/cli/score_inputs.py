"""What ``judgepool score`` and ``judgepool audit`` read: the judgments (a qrels
file, or a workspace under a consensus rule) with the contract built on them,
and the runs (files, or a workspace's stored runs by name).

A workspace's default contract is the base the command's options change, so
the contract is built here, by a function the command passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from judgepool.core.consensus import CONSENSUS_RULES
from judgepool.core.contract import Contract
from judgepool.core.errors import InputError
from judgepool.formats.trec import read_qrels

if TYPE_CHECKING:
    from judgepool.services.scoring import RunSource
    from judgepool.services.workspace import Workspace

F = TypeVar("F", bound=Callable[..., Any])

# Given the workspace's default contract (None for a qrels file), the contract to use.
ContractBuilder = Callable[[Contract | None], Contract]


@dataclass
class Judged:
    """Where the judgments come from: a qrels file, or a workspace under a consensus rule."""

    label: str
    judgments: dict[str, dict[str, int]]
    digest: str
    contract: Contract
    workspace: Workspace | None = None
    consensus: str | None = None
    # (query, doc) the consensus rule left out of the judgments, with why
    left_out: dict[tuple[str, str], str] = field(default_factory=dict)


def read_judgments(
    qrels: str | None,
    workspace: str | None,
    consensus: str | None,
    build: ContractBuilder,
) -> Judged:
    """Read the judgments and build the contract (a workspace's default contract
    is the base its options change)."""
    if (qrels is None) == (workspace is None):
        raise click.UsageError("give the judgments with either --qrels FILE or --workspace WS")
    if qrels is not None:
        if consensus is not None:
            raise click.UsageError("--consensus applies to --workspace only")
        if not Path(qrels).exists():
            raise InputError("no such file", qrels)
        contract = build(None)
        file = read_qrels(qrels, contract.scale)
        return Judged(qrels, file.judgments, file.digest, contract)
    # Imported here: scoring plain files must not pay for loading SQLite.
    from judgepool.services.consensus import workspace_consensus
    from judgepool.services.workspace import open_workspace

    ws = open_workspace(str(workspace))
    contract = build(ws.default_contract())
    if contract.scale != ws.scale:
        raise click.UsageError(
            f"the workspace's grades are on the scale {ws.scale}; --scale cannot change it"
        )
    rule = consensus or ws.default_consensus()
    chosen = workspace_consensus(ws, rule)
    left_out = {
        (item.query_id, item.doc_id): "an unresolved disagreement (no adjudicator's grade; "
        + ", ".join(f"{who}={grade}" for who, grade in item.grades)
        + ")"
        for item in chosen.unresolved
    }
    return Judged(
        f"workspace {ws.path} ({rule})", chosen.judgments, chosen.digest, contract, ws, rule,
        left_out,
    )  # fmt: skip


def stored_or_file(judged: Judged, ref: str) -> str:
    """'stored' when ``ref`` names a run of the workspace, 'file' when it is a
    path: a regular file, or a stream (a FIFO, a device such as /dev/stdin),
    which the readers take as it comes. A directory is refused here."""
    if judged.workspace is not None:
        from judgepool.services.scoring import has_run

        if has_run(judged.workspace, ref):
            return "stored"
    if Path(ref).is_dir():
        raise InputError("is a directory, not a run file", ref)
    if Path(ref).exists():
        return "file"
    where = " in the workspace and" if judged.workspace is not None else ""
    raise InputError(f"no run named {ref!r}{where} no such file")


def run_refs(judged: Judged, runs: Sequence[str]) -> list[str]:
    """The runs named on the command line; with a workspace and none named,
    every stored run."""
    if runs:
        return list(runs)
    if judged.workspace is not None:
        from judgepool.services.scoring import run_names

        names = run_names(judged.workspace)
        if names:
            return names
        raise click.UsageError("the workspace holds no runs: import one, or name a RUN file")
    raise click.UsageError("name at least one RUN file")


def judgments_options(func: F) -> F:
    """The options that say where the judgments come from."""
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


def run_sources(judged: Judged, refs: Sequence[str]) -> list[RunSource]:
    """Each run named: a stored run of the workspace, or a run file."""
    from judgepool.services.scoring import file_source, stored_source

    sources = []
    for ref in refs:
        if stored_or_file(judged, ref) == "stored" and judged.workspace is not None:
            sources.append(stored_source(judged.workspace, ref))
        else:
            sources.append(file_source(ref))
    return sources


# More workers than this would not fit any machine's memory (each holds a run).
MAX_JOBS = 256


def jobs_option(func: F) -> F:
    """``--jobs N``: how many runs are read at once, each in a worker process."""
    from judgepool.cli.params import AsciiInteger

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
    from judgepool.services.parallel_runs import default_jobs

    return default_jobs(runs) if jobs is None else jobs
