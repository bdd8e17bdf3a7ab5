"""`NdcgHistogram`: per-query nDCG of one run in ten bins, drawn with text bars.

Each line is one bin (``0.0–0.1`` … ``0.9–1.0``, the last including 1.0) with
its count and a bar scaled to the largest bin; queries with no value (left out
of the mean) are counted on a line of their own.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import Static

from judgepool.core.histogram import Histogram, ndcg_histogram
from judgepool.core.measures import NDCG
from judgepool.display import literal

BAR_WIDTH = 20


def histogram_text(histogram: Histogram, title: str, width: int = BAR_WIDTH) -> Text:
    """The histogram as lines of text, highest bin at the top."""
    text = Text(title + "\n", style="bold")
    largest = max(histogram.counts, default=0)
    rows = list(zip(histogram.edges, histogram.edges[1:], histogram.counts, strict=False))
    for low, high, value in reversed(rows):
        length = round(value / largest * width) if largest else 0
        text.append(f"{low:.1f}–{high:.1f} ", style="dim")
        text.append("█" * length, style="cyan")
        text.append(" " * (width - length))
        text.append(f" {value}\n")
    text.append(f"no value (excluded) {histogram.undefined}", style="dim")
    return text


class NdcgHistogram(Static):
    """The distribution of one run's per-query nDCG."""

    DEFAULT_CSS = """
    NdcgHistogram {
        width: 38;
        height: auto;
        padding: 0 1;
        border: round $primary-darken-2;
    }
    """

    def show(self, values: Iterable[float | None], k: int, run: str | None = None) -> None:
        title = f"{NDCG.label(k)} per query"
        shown = histogram_text(ndcg_histogram(values), title)
        if run is not None:
            # the run's name is data: appended as plain text, never as markup
            heading = Text("run ", style="dim")
            heading.append_text(Text(literal(run)))
            heading.no_wrap = True
            heading.overflow = "ellipsis"
            heading.append("\n")
            heading.append_text(shown)
            shown = heading
        self.update(shown)

    def clear(self) -> None:
        self.update(Text("no scores", style="dim"))
