"""The figures of ``judgepool report`` drawn with matplotlib, from the plain
values of `judgepool.cli.figure_data`, and written as SVG, PDF and PNG.

matplotlib is imported by this module only, and this module only by the
report: the app and every other command start without it. Figures are made
with `matplotlib.figure.Figure` (no pyplot, so no global figure state) on
the Agg canvas, under one style (`STYLE`) that makes the files reproducible:
SVG text as paths (no font needed to view it), a fixed hash salt for the
SVG's IDs, no dates in the files' metadata. The same values give the same
bytes. Text from data (run names, query IDs, annotators) is never read as
mathtext (``text.parse_math`` off): a name with ``$`` in it shows as given.

Each drawn element a test reads back carries a ``gid`` (see `draw`).
"""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, cast

import matplotlib

matplotlib.use("Agg")  # no display, ever: the report runs over SSH and in CI

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from judgepool.cli.figure_data import (
    AgreementMatrix,
    FigureData,
    Forest,
    JudgedShare,
    PerQueryDifferences,
    ProgressBars,
)
from judgepool.display import literal

STYLE: Final[dict[str, Any]] = {
    "svg.fonttype": "path",
    "svg.hashsalt": "judgepool",
    "text.parse_math": False,
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
}
FORMATS: Final = ("svg", "pdf", "png")
METADATA: Final[dict[str, dict[str, Any]]] = {
    "svg": {"Date": None},
    "pdf": {"CreationDate": None, "ModDate": None},
    "png": {"Software": None},
}
PNG_DPI: Final = 150
WIDTH: Final = 6.4  # inches: a page's text width, near enough
VERDICT_COLOURS: Final = {
    "settled": "#1b7837",
    "probable": "#2166ac",
    "could flip": "#e08214",
    "tied": "#777777",
}
NO_VERDICT: Final = "#000000"
BOUNDS_OFFSET: Final = 0.25  # of a row's height
BAR: Final = "#4c72b0"
OPEN_BAR: Final = "#e08214"
# past these, a figure of many runs changes its layout to stay readable:
# panels of per-query differences in one column, forest rows at full height,
# judged-share lines each in a colour of its own with its own legend entry
MANY_PANELS: Final = 6
MANY_ROWS: Final = 20
MANY_LINES: Final = 10


@contextmanager
def figure_style() -> Iterator[None]:
    """`STYLE` in force for the block (drawing and saving both read it)."""
    # cast: matplotlib types the keys as a Literal of every rc name
    with matplotlib.rc_context(cast(Any, STYLE)):
        yield


def draw(data: FigureData, labels: Mapping[str, str] | None = None) -> Figure:
    """The figure of ``data``; runs named by ``labels`` (run name -> label)
    where given. Call it inside `figure_style`."""
    named = dict(labels or {})

    def name(run: str) -> str:
        return literal(named.get(run, run))

    match data:
        case PerQueryDifferences():
            return _per_query(data, name)
        case Forest():
            return _forest(data, name)
        case JudgedShare():
            return _judged_share(data, name)
        case AgreementMatrix():
            return _agreement(data)
        case ProgressBars():
            return _progress(data)


def _new(height: float, rows: int = 1, *, constrained: bool = True) -> tuple[Figure, Any]:
    figure = Figure(figsize=(WIDTH, height), layout="constrained" if constrained else None)
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, 1, squeeze=False)[:, 0]
    return figure, axes


def _nothing(figure: Figure, axes: Any, text: str) -> Figure:
    axes.text(0.5, 0.5, text, ha="center", va="center", transform=axes.transAxes, wrap=True)
    axes.set_axis_off()
    return figure


def _grid(count: int) -> tuple[int, float]:
    """Columns of panels and each panel's height (inches) for ``count`` pairs:
    one tall panel a pair for a few, small multiples sharing their y axis for
    many (sixty-two panels one above the other made a figure three metres
    tall)."""
    if count <= MANY_PANELS:
        return 1, 1.9
    return (2, 1.4) if count <= 2 * MANY_PANELS else (4, 1.1)


def _per_query(data: PerQueryDifferences, name: Any) -> Figure:
    count = max(len(data.pairs), 1)
    columns, panel = _grid(count)
    rows = math.ceil(count / columns)
    height = 0.6 + panel * rows
    # margins fixed in inches rather than a layout engine: the panels' labels
    # are short and known, and each file saved then costs one draw, not two
    # in small multiples against one baseline, each panel is named by its run
    # alone and the figure says, above them, what is subtracted
    short = columns > 1 and len({pair.b for pair in data.pairs}) == 1
    height += 0.25 if short else 0.0
    figure = Figure(figsize=(WIDTH, height))
    FigureCanvasAgg(figure)
    grid = figure.subplots(rows, columns, squeeze=False, sharey=columns > 1)
    panels = list(grid.ravel())
    figure.subplots_adjust(left=0.8 / WIDTH, right=1 - 0.1 / WIDTH,
                           top=1 - (0.55 if short else 0.3) / height, bottom=0.4 / height,
                           hspace=0.45, wspace=0.12)  # fmt: skip
    if not data.pairs:
        return _nothing(figure, panels[0], "no pair compared")
    for unused in panels[count:]:
        unused.set_axis_off()
    if short:
        figure.suptitle(f"each run − {name(data.pairs[0].b)}", x=0.8 / WIDTH, ha="left",
                        y=1 - 0.08 / height, va="top")  # fmt: skip
    for p, (pair, axes) in enumerate(zip(data.pairs, panels[:count], strict=True)):
        xs = list(range(len(pair.queries)))
        bars = axes.bar(
            xs,
            [query.diff for query in pair.queries],
            color=[OPEN_BAR if query.could_flip else BAR for query in pair.queries],
            width=0.8,
        )
        for i, (bar, query) in enumerate(zip(bars.patches, pair.queries, strict=True)):
            bar.set_gid(f"pqd-{p}-{i}")
            if query.could_flip:
                bar.set_hatch("////")
                bar.set_edgecolor("white")
                bar.set_linewidth(0)
        axes.axhline(0, color="black", linewidth=0.6)
        axes.set_title(name(pair.a) if short else f"{name(pair.a)} − {name(pair.b)}", loc="left")
        if p % columns == 0:
            axes.set_ylabel(f"ΔnDCG@{data.k}")
        axes.set_xlim(-0.6, max(len(xs), 1) - 0.4)
        # no query ID under each bar: hundreds of rotated labels cost seconds
        # to lay out and cannot be read at a paper's size; they are in the
        # table under the figure, in this order
        axes.set_xticks([])
    panels[count - 1].set_xlabel("queries, by difference")
    panels[count - 1].legend(
        handles=[
            Patch(facecolor=BAR, label="the holes cannot reverse it"),
            Patch(facecolor=OPEN_BAR, hatch="////", edgecolor="white", label="could flip"),
        ],
        loc="upper right",
        fontsize=6,
        frameon=False,
    )
    return figure


def _forest(data: Forest, name: Any) -> Figure:
    count = max(len(data.rows), 1)
    many = count > MANY_ROWS
    # many pairs: rows closer together, and the scale above as well as below,
    # so that a tall figure reads without scrolling to its foot
    figure, (axes,) = _new(0.9 + (0.22 if many else 0.32) * count)
    if not data.rows:
        return _nothing(figure, axes, "no pair compared")
    ticks, labels = [], []
    for i, row in enumerate(data.rows):
        y = len(data.rows) - 1 - i
        colour = VERDICT_COLOURS.get(row.verdict or "", NO_VERDICT)
        if row.bounds is not None:
            # just above the interval: bounds often lie inside it, and would vanish there
            axes.plot(row.bounds, [y + BOUNDS_OFFSET] * 2, color=colour, linewidth=1,
                      marker="|", markersize=5, gid=f"forest-bounds-{i}")  # fmt: skip
        if row.interval is not None:
            axes.plot(row.interval, [y, y], color=colour, linewidth=4,
                      gid=f"forest-interval-{i}", solid_capstyle="butt")  # fmt: skip
        if row.mean_diff is not None:
            axes.plot([row.mean_diff], [y], "o", color=colour, markersize=5,
                      markeredgecolor="white", gid=f"forest-mean-{i}")  # fmt: skip
        ticks.append(y)
        labels.append(f"{name(row.a)} − {name(row.b)}")
    axes.axvline(0, color="black", linewidth=0.6)
    axes.set_yticks(ticks, labels)
    axes.set_ylim(-0.7, len(data.rows) - 0.3)
    axes.set_xlabel(f"mean difference of nDCG@{data.k} (A − B)")
    if many:
        axes.tick_params(axis="x", top=True, labeltop=True)
        axes.grid(axis="x", color="#dddddd", linewidth=0.5)
    used = sorted({row.verdict for row in data.rows if row.verdict is not None})
    if used and many:
        # above the scale drawn on top: the layout makes room for it there
        figure.legend(
            handles=[Patch(facecolor=VERDICT_COLOURS[v], label=v) for v in used],
            loc="outside upper right",
            ncol=len(used),
            fontsize=6,
            frameon=False,
        )
    elif used:
        axes.legend(
            handles=[Patch(facecolor=VERDICT_COLOURS[v], label=v) for v in used],
            # above the axes: inside, it would cover the intervals
            loc="lower right",
            bbox_to_anchor=(1.0, 1.0),
            ncol=len(used),
            fontsize=6,
            frameon=False,
        )
    return figure


def _judged_share(data: JudgedShare, name: Any) -> Figure:
    figure, (axes,) = _new(2.6)
    ranks = list(range(1, data.k + 1))
    # many runs: one colour and one legend entry each cannot be told apart,
    # so the baseline is drawn in colour and the others as thin grey lines
    many = len(data.runs) > MANY_LINES
    others = 0
    rest = f"the {'other ' if data.baseline else ''}{len(data.runs) - bool(data.baseline):,} runs"
    for i, run in enumerate(data.runs):
        values = [math.nan if share is None else share for share in run.shares]
        if not many:
            axes.plot(ranks, values, marker="o", markersize=3, linewidth=1.2,
                      label=name(run.run), gid=f"share-{i}")  # fmt: skip
        elif run.run == data.baseline:
            axes.plot(ranks, values, marker="o", markersize=3, linewidth=1.8, color=BAR,
                      label=f"{name(run.run)} (baseline)", gid=f"share-{i}", zorder=3)  # fmt: skip
        else:
            others += 1
            axes.plot(ranks, values, linewidth=0.7, color="#999999", alpha=0.6, gid=f"share-{i}",
                      label=rest if others == 1 else "_")  # fmt: skip
    axes.set_ylim(0, 1.05)
    axes.set_xlim(0.5, data.k + 0.5)
    axes.set_xlabel("rank")
    axes.set_ylabel("judged share")
    if data.k <= 20:
        axes.set_xticks(ranks)
    if data.runs:
        axes.legend(fontsize=6, frameon=False, loc="lower left")
    return figure


def _agreement(data: AgreementMatrix) -> Figure:
    size = len(data.annotators)
    figure, (axes,) = _new(max(2.2, 0.9 + 0.45 * size))
    if data.reason is not None or size < 2:
        return _nothing(figure, axes, literal(data.reason or "fewer than two annotators"))
    values = [[math.nan if v is None else v for v in row] for row in data.kappa]
    image = axes.imshow(values, cmap="RdBu", vmin=-1, vmax=1, aspect="equal", gid="kappa")
    names = [literal(n) for n in data.annotators]
    axes.set_xticks(range(size), names, rotation=45, ha="right")
    axes.set_yticks(range(size), names)
    for i, row in enumerate(data.kappa):
        for j, value in enumerate(row):
            if value is not None:
                axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                          color="white" if abs(value) > 0.6 else "black")  # fmt: skip
    figure.colorbar(image, ax=axes, label="Cohen's kappa", shrink=0.8)
    axes.spines[:].set_visible(False)
    return figure


def _progress(data: ProgressBars) -> Figure:
    count = max(len(data.rows), 1)
    figure, (axes,) = _new(0.9 + 0.3 * count)
    if not data.rows:
        return _nothing(figure, axes, "no annotators yet")
    ys = [len(data.rows) - 1 - i for i in range(len(data.rows))]
    graded = [row.graded for row in data.rows]
    unsure = [row.unsure for row in data.rows]
    remaining = [row.remaining for row in data.rows]
    axes.barh(ys, graded, color="#1b7837", label="graded", gid="graded")
    axes.barh(ys, unsure, left=graded, color="#fdb863", label="unsure", gid="unsure")
    starts = [g + u for g, u in zip(graded, unsure, strict=True)]
    axes.barh(ys, remaining, left=starts, color="#d9d9d9", label="remaining", gid="remaining")
    axes.set_yticks(ys, [literal(row.annotator) for row in data.rows])
    axes.set_xlabel("items")
    axes.legend(fontsize=6, frameon=False, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=3)
    return figure


def file_bytes(figure: Figure, kind: str) -> bytes:
    """The figure as a file of ``kind`` (svg, pdf, png), without dates: the
    same figure gives the same bytes. Call it inside `figure_style`."""
    buffer = io.BytesIO()
    dpi = PNG_DPI if kind == "png" else None
    figure.savefig(buffer, format=kind, metadata=METADATA[kind], dpi=dpi)
    # laid out once: the next format reuses the positions (constrained layout
    # would lay every file out again, a draw of its own each time)
    figure.set_layout_engine("none")
    return buffer.getvalue()


_SVG_START: Final = re.compile(r"<svg\b")
_SVG_ID: Final = re.compile(r'\bid="([^"]+)"')
_SVG_REFERENCE: Final = re.compile(r'(href="#|url\(#)([^")]+)')


def inline_svg(svg: bytes, prefix: str) -> str:
    """An SVG file as an element to put inside HTML: the XML prolog and
    DOCTYPE dropped, each ID (and each reference to one) given ``prefix``, so
    that the several figures of one page never share an ID."""
    text = svg.decode("utf-8")
    match = _SVG_START.search(text)
    body = text[match.start() :] if match else text
    body = _SVG_ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', body)
    return _SVG_REFERENCE.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", body)


def write_files(figure: Figure, directory: Path, stem: str) -> list[Path]:
    """``directory/<stem>.svg``, ``.pdf`` and ``.png``; the paths written. Each
    file is written beside its name and renamed over it, so a paper's build
    never reads half a figure."""
    written = []
    for kind in FORMATS:
        path = directory / f"{stem}.{kind}"
        temporary = directory / f".{stem}.{kind}.{os.getpid()}.tmp"
        try:
            temporary.write_bytes(file_bytes(figure, kind))
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
        written.append(path)
    return written
