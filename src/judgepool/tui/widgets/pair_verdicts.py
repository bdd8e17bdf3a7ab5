"""`PairVerdicts`: per pair of runs, whether the unjudged documents could still
change which one is better, and how many of them stand in the way.

One row per pair (A, B): the mean difference A − B, its exact bounds over
every grade the unjudged documents of the two runs' top k could get, the
verdict (`settled`: the sign cannot change; `could flip`; `tied`) and the
holes, the distinct unjudged documents of the two runs' top k, which are
what stands between the pair and a verdict. The audit and scores screens
show it; ``p`` on either opens the full comparison (`VerdictsScreen`).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from judgepool.core.verdicts import PairStats
from judgepool.services.verdicts import ComparedRuns
from judgepool.tui.widgets.score_format import data, fill_table, signed

VERDICT_STYLE = {"settled": "bold green", "could flip": "bold yellow", "tied": "bold"}


def verdict_cell(verdict: str | None) -> Text:
    """A verdict in its colour (``-`` when the contract gives no bounds)."""
    if verdict is None:
        return Text("-", style="dim")
    return Text(verdict, style=VERDICT_STYLE.get(verdict, ""))


def bounds_cell(bounds: tuple[float, float] | None) -> Text:
    """[low, high] of a mean difference, with signs."""
    if bounds is None:
        return Text("-", style="dim", justify="right")
    return Text(f"[{bounds[0]:+.4f}, {bounds[1]:+.4f}]", justify="right")


def holes_cell(pair: PairStats) -> Text:
    """The holes between the pair and a verdict (none count once it is settled)."""
    style = "yellow" if pair.verdict == "could flip" and pair.holes else "dim"
    return Text(str(pair.holes), style=style, justify="right")


def tally(compared: ComparedRuns) -> Text:
    """One line: how many pairs are settled and could flip (and tied, if any)."""
    verdicts = [pair.verdict for pair in compared.report.pairs]
    text = Text()
    for verdict in ("settled", "could flip", "tied"):
        if verdict == "tied" and not verdicts.count(verdict):
            continue
        if text.plain:
            text.append("  ")
        text.append(f"{verdicts.count(verdict)} {verdict}", style=VERDICT_STYLE[verdict])
    text.append(
        f"  ({len(verdicts)} pairs, {len(compared.report.population)} common queries)",
        style="dim",
    )
    return text


class PairVerdicts(DataTable[Text]):
    """Every pair of runs with its verdict and the holes that stand in its way."""

    DEFAULT_CSS = """
    PairVerdicts {
        height: auto;
        max-height: 8;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.compared: ComparedRuns | None = None

    def show(self, compared: ComparedRuns | None) -> None:
        """Show the pairs of ``compared`` (None: nothing to compare)."""
        self.compared = compared
        k = compared.contract.k if compared is not None else 10
        columns = [
            ("a", Text("run A", style="bold")),
            ("b", Text("run B", style="bold")),
            ("diff", Text(f"A − B nDCG@{k}", style="bold")),
            ("bounds", Text("bounds under the holes", style="bold")),
            ("verdict", Text("verdict", style="bold")),
            ("holes", Text("holes", style="bold")),
        ]
        pairs = compared.report.pairs if compared is not None else ()
        rows = [
            (
                f"{index}",
                [
                    data(pair.a),
                    data(pair.b),
                    signed(pair.mean_diff),
                    bounds_cell(pair.diff_bounds),
                    verdict_cell(pair.verdict),
                    holes_cell(pair),
                ],
            )
            for index, pair in enumerate(pairs)
        ]
        fill_table(self, columns, rows)

    def verdict_of(self, a: str, b: str) -> str | None:
        """The verdict shown for the pair (a, b), in either order (None: not shown)."""
        if self.compared is None:
            return None
        for pair in self.compared.report.pairs:
            if {pair.a, pair.b} == {a, b}:
                return pair.verdict
        return None
