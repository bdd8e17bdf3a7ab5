"""`PairDifferencePlot`: the highlighted pair's per-query differences, sorted,
the queries the holes could reverse marked (the pairs view).

One point per common query, lowest A − B on the left, at the query's rank in
that order; a query whose sign the holes could reverse
(`judgepool.core.comparing.query_differences`) is drawn with its own marker and colour,
and the legend names both kinds. A line marks 0: points above it are queries
A wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual_plotext import Plot

from judgepool.core.comparing.query_differences import QueryDifference
from judgepool.tui.widgets.data_plot import DataPlot, plot_label

SETTLED_COLOR = "cyan"
# plotext names ANSI yellow "orange"
REVERSIBLE_COLOR = "orange"
REVERSIBLE_LABEL = "the holes could reverse"
SETTLED_LABEL = "the holes cannot"


class PairDifferencePlot(DataPlot):
    """A pair's sorted per-query differences."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.a = ""
        self.b = ""
        self.rows: tuple[QueryDifference, ...] = ()

    def show(self, a: str, b: str, rows: Sequence[QueryDifference]) -> None:
        """Plot the pair (``a``, ``b``)'s ``rows`` (sorted, lowest first)."""
        self.a, self.b, self.rows = a, b, tuple(rows)
        self.refresh()

    def draw(self, plt: Plot) -> str | None:
        if not self.rows:
            return "no common query to plot"
        positions = range(1, len(self.rows) + 1)
        settled = [
            (x, r.diff) for x, r in zip(positions, self.rows, strict=True) if not r.reversible
        ]
        reversible = [
            (x, r.diff) for x, r in zip(positions, self.rows, strict=True) if r.reversible
        ]
        plt.hline(0.0, "gray")
        for points, color, marker, label in (
            (settled, SETTLED_COLOR, "•", SETTLED_LABEL),
            (reversible, REVERSIBLE_COLOR, "x", REVERSIBLE_LABEL),
        ):
            if points:
                xs, ys = zip(*points, strict=True)
                plt.scatter(list(xs), list(ys), color=color, marker=marker, label=label)
        # symmetric about 0, so the side a point is on reads at a glance
        highest = max(0.05, *(abs(r.diff) for r in self.rows))
        plt.ylim(-highest, highest)
        # ticks of our own: plotext's land between rows on a short plot
        plt.yticks([-highest, 0.0, highest], [f"{-highest:+.2f}", "0", f"{highest:+.2f}"])
        count = len(self.rows)
        plt.xlim(0.5, count + 0.5)
        plt.xticks([1, count] if count > 1 else [1], [str(1), str(count)][: min(count, 2)])
        plt.title(self.fit(f"A − B sorted: {plot_label(self.a)} − {plot_label(self.b)}"))
        # short: plotext leaves out a label wider than the plot
        plt.xlabel(self.fit(f"{len(reversible)} of {count} reversible"))
        return None
