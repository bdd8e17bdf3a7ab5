"""`JudgedSharePlot`: the audited run's judged share at each rank 1..k, as
bars (the audit screen).

One bar per rank, its height the share of the run's judged queries whose
document at that rank is judged (`judgepool.core.auditing.judged_share`); a rank no
list reaches has no bar. Where the holes sit reads at a glance: a run whose
rank 1 is often unjudged looks nothing like one whose holes are at rank 9,
though both may have the same judged@k.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual_plotext import Plot

from judgepool.tui.widgets.data_plot import DataPlot, plot_label

BAR_COLOR = "cyan"


class JudgedSharePlot(DataPlot):
    """One run's judged share by rank."""

    MIN_WIDTH = 24

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.run = ""
        self.shares: tuple[float | None, ...] = ()

    def show(self, run: str, shares: Sequence[float | None]) -> None:
        """Plot ``run``'s ``shares`` (element r − 1: rank r)."""
        self.run, self.shares = run, tuple(shares)
        self.refresh()

    def clear(self) -> None:
        self.show("", ())

    def draw(self, plt: Plot) -> str | None:
        bars = [(rank, share) for rank, share in enumerate(self.shares, 1) if share is not None]
        if not bars:
            return "no judged query to plot"
        ranks, shares = zip(*bars, strict=True)
        plt.bar(list(ranks), list(shares), color=BAR_COLOR, width=0.6)
        k = len(self.shares)
        # every rank labelled where there is room for it, else a few
        step = 1 if k <= 12 else 5
        plt.xticks([r for r in range(1, k + 1) if r == 1 or r % step == 0])
        plt.ylim(0, 1)
        plt.yticks([0, 0.5, 1], ["0", ".5", "1"])
        plt.title(self.fit(f"judged share by rank: {plot_label(self.run)}"))
        return None
