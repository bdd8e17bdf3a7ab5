"""`DataPlot`: the base of the app's plots, a textual-plotext widget that
draws its data again at every size and gives way when too small.

A plot keeps the data it was given (the tests read it back) and draws it in
`draw` at each render, for the size it has then: plotext lays a figure out
for one size. Below ``MIN_WIDTH`` × ``MIN_HEIGHT`` cells axes, ticks and a
legend leave no room for the data, so the plot says it needs more room
instead of drawing a garbled figure. Colours are plotext's named ones (the
terminal's palette) and there is no random state: the same data draws the
same cells every time.

Text from data (run names, annotators) reaches plotext through `plot_label`:
`judgepool.display.literal` (a terminal escape is drawn as ``\\x1b``, never
sent) and cut to a length. plotext's output is ANSI, read back with Rich's
`Text.from_ansi`, which parses no markup: ``[bold]`` in a name stays as typed.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import Plot, PlotextPlot

from judgepool.display import literal

# a name in a label, title or legend: longer ones end in "…"
LABEL_LENGTH = 16


def plot_label(text: str, length: int = LABEL_LENGTH) -> str:
    """``text`` safe and short enough for a plot's tick, title or legend."""
    shown = literal(text)
    return shown if len(shown) <= length else shown[: length - 1] + "…"


class DataPlot(PlotextPlot):
    """A plot of data given by the screen; subclasses draw it in `draw`."""

    MIN_WIDTH: ClassVar[int] = 30
    MIN_HEIGHT: ClassVar[int] = 8

    def draw(self, plt: Plot) -> str | None:
        """Draw the data on ``plt`` (a cleared figure); or say why there is
        nothing to draw (the text is shown instead of a plot)."""
        raise NotImplementedError

    def fit(self, text: str) -> str:
        """``text`` cut to the plot's width: plotext leaves out a title or an
        axis label wider than the plot, rather than cutting it."""
        room = max(self.size.width - 2, 1)
        return text if len(text) <= room else text[: room - 1] + "…"

    def render(self) -> RenderResult:
        width, height = self.size
        if width < self.MIN_WIDTH or height < self.MIN_HEIGHT:
            return Text(f"(the plot needs {self.MIN_WIDTH} × {self.MIN_HEIGHT} cells)", style="dim")
        plt = self.plt
        plt.clear_figure()
        empty = self.draw(plt)
        if empty is not None:
            return Text(empty, style="dim")
        return super().render()
