"""`NdcgBoxPlot`: every run's per-query nDCG as a box plot, a row per run
(the scores screen).

Each run's box spans its quartiles with the median marked, and its whiskers
reach the lowest and highest query (`judgepool.core.auditing.ndcg_spread`); the runs
read top to bottom in the runs table's order, the highlighted one in its own
colour. A run with no value (every query excluded, or refused) has no box and
is counted under the axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from textual_plotext import Plot

from judgepool.core.auditing.ndcg_spread import NdcgSpread
from judgepool.core.terms.measures import NDCG
from judgepool.tui.widgets.data_plot import DataPlot, plot_label

BOX_COLOR = "cyan"
# plotext names ANSI yellow "orange"
CURRENT_COLOR = "orange"
MEDIAN_COLOR = "red"


class NdcgBoxPlot(DataPlot):
    """The distribution of every run's per-query nDCG."""

    MIN_HEIGHT = 7

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.spreads: tuple[NdcgSpread, ...] = ()
        self.k = 10
        self.current: str | None = None

    def show(self, spreads: Sequence[NdcgSpread], k: int, current: str | None = None) -> None:
        """Plot ``spreads`` (one per run, in order), ``current`` highlighted."""
        self.spreads = tuple(spreads)
        self.k = k
        self.current = current
        self.refresh()

    def clear(self) -> None:
        self.show((), self.k)

    def draw(self, plt: Plot) -> str | None:
        boxed = [spread for spread in self.spreads if spread.five is not None]
        if not boxed:
            return "no scores"
        # plotext's first row is at the bottom: the first run gets the highest
        positions = [float(p) for p in range(len(boxed), 0, -1)]
        # textual-plotext's typing of the figure leaves out plotext's box()
        figure = cast(Any, plt)
        for position, spread in zip(positions, boxed, strict=True):
            assert spread.five is not None
            low, q1, median, q3, high = spread.five
            color = CURRENT_COLOR if spread.run == self.current else BOX_COLOR
            figure.box(
                [position],
                # plotext reads a box's five numbers highest first
                [[high, q3, median, q1, low]],
                quintuples=True,
                orientation="horizontal",
                width=0.3,
                colors=[color, MEDIAN_COLOR],
                reset_ticks=False,
            )
        plt.yticks(positions, [plot_label(spread.run, 12) for spread in boxed])
        plt.xlim(0, 1)
        plt.ylim(0.5, len(boxed) + 0.5)
        plt.xticks([0, 0.25, 0.5, 0.75, 1], ["0", ".25", ".5", ".75", "1"])
        plt.title(self.fit(f"{NDCG.label(self.k)} per query"))
        missing = len(self.spreads) - len(boxed)
        if missing:
            # under the axis: plotext leaves out a title wider than the plot
            plt.xlabel(self.fit(f"{missing} run{'' if missing == 1 else 's'} without a value"))
        return None
