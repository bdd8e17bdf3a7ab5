"""`ConfusionHeatMap`: two annotators' confusion table as a heat map (the
agreement screen, for the highlighted pair).

A cell per (A's grade, B's grade), A's grades down and B's across, coloured
by its count on one ramp from the fewest to the most (the same count, the
same colour, in every picture) and labelled with the count; the diagonal is
where the two agree (`judgepool.core.team.pair_confusion`).
"""

from __future__ import annotations

from typing import Any, cast

from textual_plotext import Plot

from judgepool.core.team.pair_confusion import PairConfusion
from judgepool.tui.widgets.data_plot import DataPlot, plot_label

# the ramp's ends: a dim blue for the fewest, a bright one for the most;
# white counts read on both
FEWEST = (38, 52, 80)
MOST = (30, 120, 220)


def cell_color(count: int, most: int) -> tuple[int, int, int]:
    """The colour of a cell of ``count`` in a table whose largest is ``most``."""
    share = count / most if most else 0.0
    red, green, blue = (
        round(low + (high - low) * share) for low, high in zip(FEWEST, MOST, strict=True)
    )
    return (red, green, blue)


class ConfusionHeatMap(DataPlot):
    """The highlighted pair's confusion table."""

    MIN_WIDTH = 24
    MIN_HEIGHT = 8

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.table: PairConfusion | None = None

    def show(self, table: PairConfusion | None) -> None:
        """Plot ``table`` (None: no pair highlighted)."""
        self.table = table
        self.refresh()

    def draw(self, plt: Plot) -> str | None:
        table = self.table
        if table is None:
            return "no pair of annotators"
        if not table.items:
            return "no item graded by both"
        most = max(max(row) for row in table.counts)
        # textual-plotext types rectangle()'s corners as numbers; plotext takes
        # the [low, high] of each side
        figure = cast(Any, plt)
        for row, counts in enumerate(table.counts):
            for column, count in enumerate(counts):
                color = cell_color(count, most)
                figure.rectangle(
                    [column - 0.5, column + 0.5], [row - 0.5, row + 0.5], color=color, fill=True
                )
                plt.text(
                    str(count), column, row, color="white", background=color, alignment="center"
                )
        positions = [float(p) for p in range(len(table.grades))]
        labels = [str(grade) for grade in table.grades]
        plt.xticks(positions, labels)
        plt.yticks(positions, labels)
        plt.xlim(-0.5, len(positions) - 0.5)
        plt.ylim(-0.5, len(positions) - 0.5)
        plt.yreverse(True)
        plt.title(self.fit(f"{plot_label(table.a, 12)} ↓ × {plot_label(table.b, 12)} →"))
        plt.xlabel(self.fit(f"{table.items} items graded by both"))
        return None
