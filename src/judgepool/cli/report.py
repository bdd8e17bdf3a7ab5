"""``judgepool report``: one self-contained HTML file for a reviewer (the
contract and digests, the scores, the comparison in numbers and words, the
figures), and with ``--figures DIR`` the figures as files for a paper.

The comparison is ``compare``'s (`judgepool.cli.compare_options`: the same
options, read and computed the same way), every run paired with a baseline:
the first RUN unless ``--baseline`` names another. The figures' values come
from `judgepool.cli.figure_data`, their drawing from `judgepool.cli.figure_draw`
(the one module importing matplotlib, imported here only when the command
runs), the page from `judgepool.cli.report_html`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgepool.cli.compare_options import CompareOptions, compare_options, comparing
from judgepool.cli.figure_data import (
    FigureData,
    ProgressRow,
    agreement_matrix,
    forest,
    judged_share,
    per_query_differences,
    progress_bars,
)
from judgepool.cli.figure_table import FigureSpec, caption_facts, figures_for
from judgepool.cli.output_file import open_output, write_error
from judgepool.cli.run_labels import run_labels
from judgepool.cli.score_inputs import RunsRequest, note_left_out_models, runs_request
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.verdicts import ComparedRuns

if TYPE_CHECKING:
    from judgepool.cli.report_html import WorkspaceParts
    from judgepool.services.runs.sources import RunSource
    from judgepool.services.workspace import Workspace


@click.command()
@runs_request
@compare_options(
    "Compare every other run with this one (one of the RUNs, named as given); the baseline "
    "is B, so a positive difference means the run beats it. [default: the first RUN]"
)
@click.option(
    "-o", "--output", required=True, metavar="FILE",
    help="The HTML file to write (replaced atomically; '-': standard output).",
)  # fmt: skip
@click.option(
    "--figures", "figures_dir", metavar="DIR", default=None,
    help="Also write each figure to DIR (created if missing) as <name>.svg, <name>.pdf and "
    "<name>.png, for a paper; compare --format latex --figures DIR refers to them.",
)  # fmt: skip
@click.option(
    "--label", "labels", multiple=True, metavar="FILE=NAME",
    help="Name the run FILE (as given among the RUNs) NAME in the report and its figures; "
    "repeat for each run to name. [default: the file name without its extension; a stored "
    "run's name]",
)  # fmt: skip
@click.option(
    "--all-pairs", is_flag=True, default=False,
    help="Also compare every pair of runs, in a table of its own after the comparison with "
    "the baseline (its p-values adjusted over all the pairs); the figures and the other "
    "tables stay with the baseline.",
)  # fmt: skip
def report(
    request: RunsRequest,
    options: CompareOptions,
    output: str,
    figures_dir: str | None,
    labels: tuple[str, ...],
    all_pairs: bool,
) -> None:
    """Write one self-contained HTML report of RUN files (or, with --workspace,
    stored runs by name; every stored run when none is named) compared under
    one contract: the contract and the digests, the score table, the comparison
    with significance, bounds and verdicts in words, and the figures (per-query
    differences with the baseline, a forest plot of every pair, the judged share
    by rank; with --workspace, agreement between annotators and grading
    progress). The file asks no other host for anything: style and figures are
    inside it, and it has no script.

    \b
    Examples:
      judgepool report bm25.trec splade.trec --qrels qrels.txt -o report.html
      judgepool report --workspace team.sqlite -o report.html --figures figures/
      judgepool report bm25.trec run*.trec --qrels qrels.txt -o report.html --all-pairs
    """
    named: dict[str, str] = {}
    inputs_files: list[str] = []

    def check(sources: Sequence[RunSource]) -> None:
        named.update(run_labels(sources, labels))
        inputs_files.extend(source.name for source in sources)

    # refused before the work, not after it
    _check_output(output)
    if figures_dir is not None:
        _check_figures_folder(figures_dir)
    with comparing(
        request, options, check, first_is_baseline=True, all_pairs=all_pairs
    ) as comparison:
        compared = comparison.compared
        inputs = comparison.inputs
        progress = inputs.progress
        workspace = inputs.workspace
        parts = None if workspace is None else _workspace_parts(workspace)
        protected = Path(workspace.path) if workspace is not None else Path(str(request.qrels))
        _refuse_inputs(output, [str(request.qrels or ""), *inputs_files])
        progress.update("drawing the figures")
        page = _page(compared, inputs.judged.label, named, options, parts, figures_dir)
        progress.update("writing the report")
        with open_output(output, workspace=protected) as stream:
            stream.write(page)
    note_left_out_models(compared.provenance)


def _check_output(output: str) -> None:
    """What `open_output` would refuse at the end, refused at the start: a
    directory, or a file in a folder that does not exist."""
    if output == "-" or not output:
        return
    target = Path(output)
    if target.is_dir():
        raise InputError("is a directory; give a file name", output)
    parent = Path(os.path.realpath(target)).parent
    if not target.exists() and not parent.is_dir():
        raise InputError(f"no such directory: {quoted(str(parent))}", output)


def _check_figures_folder(figures_dir: str) -> None:
    """What `_figures_folder` would refuse, refused at the start without making
    the folder: a comparison refused after it (unjudged documents, say) leaves
    no empty folder behind."""
    folder = Path(figures_dir)
    existing = next(path for path in (folder, *folder.parents) if path.exists())
    if existing == folder and not folder.is_dir():
        raise InputError("is not a directory; give a folder for the figures", figures_dir)
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise InputError("cannot write there; choose another folder for the figures", figures_dir)


def _figures_folder(figures_dir: str) -> Path:
    """The figures' folder, made when missing; refused when it cannot be."""
    folder = Path(figures_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError("is not a directory; give a folder for the figures", figures_dir) from None
    except OSError as exc:
        raise write_error(exc, figures_dir) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError("cannot write there; choose another folder for the figures", figures_dir)
    return folder


def _refuse_inputs(output: str, inputs: Sequence[str]) -> None:
    """Refuse to write the report over one of its own inputs."""
    try:
        mine = os.stat(output)
    except OSError:
        return
    for given in inputs:
        if not given:
            continue
        try:
            theirs = os.stat(given)
        except OSError:
            continue
        if (theirs.st_dev, theirs.st_ino) == (mine.st_dev, mine.st_ino):
            raise InputError(
                f"is one of the report's inputs ({quoted(given)}); choose another output file",
                output,
            )


def _workspace_parts(ws: Workspace) -> WorkspaceParts:
    """Agreement (or why there is none) and progress, read while it is open."""
    # late: the page's modules (0.1 s) for a page only, these services for a
    # workspace only: a command pays only for what it runs
    from judgepool.cli.report_html import WorkspaceParts
    from judgepool.services import agreement, assignments

    try:
        found = agreement.workspace_agreement(ws)
        reason = None
    except InputError as exc:
        found, reason = None, str(exc)
    return WorkspaceParts(found, reason, assignments.progress(ws))


def _figure_data(
    spec: FigureSpec, compared: ComparedRuns, parts: WorkspaceParts | None
) -> FigureData:
    match spec.stem:
        case "per-query-differences":
            return per_query_differences(compared)
        case "forest":
            return forest(compared)
        case "judged-share":
            return judged_share(compared)
        case "agreement":
            assert parts is not None  # workspace_only
            overall = None if parts.agreement is None else parts.agreement.overall
            return agreement_matrix(overall, parts.agreement_reason)
        case "progress":
            assert parts is not None
            rows = [ProgressRow(p.annotator, p.graded, p.unsure, p.remaining)
                    for p in parts.progress]  # fmt: skip
            return progress_bars(rows)
    raise KeyError(spec.stem)


def _page(
    compared: ComparedRuns,
    qrels_label: str,
    labels: dict[str, str],
    options: CompareOptions,
    parts: WorkspaceParts | None,
    figures_dir: str | None,
) -> str:
    # matplotlib's import (half a second) is paid only here
    from judgepool.cli import figure_draw
    from judgepool.cli.report_html import DrawnFigure, ReportPage, render_report

    folder = None if figures_dir is None else _figures_folder(figures_dir)
    drawn = []
    with figure_draw.figure_style():
        for spec in figures_for(parts is not None):
            data = _figure_data(spec, compared, parts)
            figure = figure_draw.draw(data, labels)
            svg = figure_draw.file_bytes(figure, "svg")
            drawn.append(DrawnFigure(spec, data, figure_draw.inline_svg(svg, f"{spec.stem}-")))
            if folder is not None:
                try:
                    figure_draw.write_files(figure, folder, spec.stem)
                except OSError as exc:
                    raise write_error(exc, str(folder / spec.stem)) from None
    page = ReportPage(compared, qrels_label, labels, caption_facts(compared, labels), drawn, parts)
    return render_report(page)
