"""The report's figures drawn from values given by hand: what each artist
holds, read back from matplotlib (`judgepool.cli.figure_draw`), apart from any
comparison; and the inline SVG's IDs kept apart per figure."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from judgepool.cli import figure_draw
from judgepool.cli.figure_data import (
    AgreementMatrix,
    Forest,
    ForestRow,
    JudgedShare,
    PairDifferences,
    PerQueryDifferences,
    ProgressBars,
    ProgressRow,
    QueryDifference,
    RunShare,
)


def _artist(figure: Any, gid: str) -> Any:
    for axes in figure.axes:
        for artist in [*axes.lines, *axes.patches, *axes.images]:
            if artist.get_gid() == gid:
                return artist
    raise AssertionError(gid)


def test_forest_rows_are_points_intervals_and_bounds_coloured_by_verdict() -> None:
    rows = (
        ForestRow("a", "base", 0.2, (0.1, 0.3), (0.15, 0.25), "settled"),
        ForestRow("$x$", "base", -0.05, (-0.2, 0.1), (-0.3, 0.2), "could flip"),
        ForestRow("c", "base", None, None, None, None),
    )
    with figure_draw.figure_style():
        figure = figure_draw.draw(Forest(10, rows))
        svg = figure_draw.file_bytes(figure, "svg").decode()
    for i, row in enumerate(rows[:2]):
        assert row.interval is not None and row.bounds is not None
        colour = figure_draw.VERDICT_COLOURS[str(row.verdict)]
        interval = _artist(figure, f"forest-interval-{i}")
        assert list(interval.get_xdata()) == list(row.interval)
        assert interval.get_color() == colour
        bounds = _artist(figure, f"forest-bounds-{i}")
        assert list(bounds.get_xdata()) == list(row.bounds)
        mean = _artist(figure, f"forest-mean-{i}")
        assert mean.get_xdata()[0] == row.mean_diff
    with pytest.raises(AssertionError):
        _artist(figure, "forest-mean-2")  # nothing to draw for a pair without a difference
    # a name with $ is text, not mathtext: its label is kept as given
    labels = [tick.get_text() for tick in figure.axes[0].get_yticklabels()]
    assert "$x$ − base" in labels and "<text" not in svg


def test_per_query_bars_are_the_differences_in_order_and_open_ones_hatched() -> None:
    queries = (
        QueryDifference("q1", 0.4, 0.3, 0.5, False),
        QueryDifference("q2", 0.0, -0.1, 0.2, True),
        QueryDifference("q3", -0.2, -0.3, 0.1, True),
    )
    data = PerQueryDifferences(10, (PairDifferences("a", "b", queries),))
    with figure_draw.figure_style():
        figure = figure_draw.draw(data)
    for i, query in enumerate(queries):
        bar = _artist(figure, f"pqd-0-{i}")
        assert bar.get_height() == query.diff
        assert bool(bar.get_hatch()) == query.could_flip


def test_judged_share_lines_leave_unreached_ranks_empty() -> None:
    data = JudgedShare(3, (RunShare("a", (1.0, 0.5, None)), RunShare("b", (0.0, 1.0, 1.0))))
    with figure_draw.figure_style():
        figure = figure_draw.draw(data)
    first = list(_artist(figure, "share-0").get_ydata())
    assert first[:2] == [1.0, 0.5] and math.isnan(first[2])
    assert list(_artist(figure, "share-1").get_xdata()) == [1, 2, 3]


def test_agreement_and_progress_figures() -> None:
    matrix = AgreementMatrix(("ann", "bob"), ((None, 0.5), (0.5, None)))
    bars = ProgressBars((ProgressRow("ann", 3, 1, 6), ProgressRow("bob", 0, 0, 10)))
    with figure_draw.figure_style():
        heat = figure_draw.draw(matrix)
        progress = figure_draw.draw(bars)
        empty = figure_draw.draw(AgreementMatrix((), (), "needs two annotators"))
    values = _artist(heat, "kappa").get_array()
    assert values[0, 1] == 0.5 and values[1, 0] == 0.5 and bool(values.mask[0, 0])
    patches: Any = progress.axes[0].patches
    widths = [patch.get_width() for patch in patches]
    assert widths == [3, 0, 1, 0, 6, 10]  # graded, unsure, remaining; per annotator
    assert "needs two annotators" in [text.get_text() for text in empty.axes[0].texts]


def test_inline_svgs_never_share_an_id() -> None:
    with figure_draw.figure_style():
        svg = figure_draw.file_bytes(figure_draw.draw(Forest(10, ())), "svg")
    one = figure_draw.inline_svg(svg, "one-")
    two = figure_draw.inline_svg(svg, "two-")
    assert one.startswith("<svg") and "<?xml" not in one
    ids = {match for match in re.findall(r'id="([^"]+)"', one)}
    assert ids and all(identifier.startswith("one-") for identifier in ids)
    assert not ids & set(re.findall(r'id="([^"]+)"', two))
    for reference in re.findall(r'(?:href="#|url\(#)([^")]+)', one):
        assert reference in ids
