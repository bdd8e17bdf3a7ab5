"""`PairVerdicts` and `PairWords`: per pair of runs, whether the unjudged
documents could still change which one is better, in a line and in words.

`PairVerdicts` has one line per pair (A, B): the mean difference A − B, the
verdict (`settled`: the sign cannot change; `probable`: the draws of the
holes' grades put one run ahead in at least the confidence asked for;
`could flip`; `tied`), the holes
(the distinct unjudged documents of the two runs' top k, what stands between
the pair and a verdict) and, where the table has the room, the exact bounds
of the difference over every grade the holes could get. It scrolls when
there are more pairs than lines. `PairWords` says the highlighted pair in one
sentence (`judgepool.core.comparing.verdict_words`): who is ahead, whether that is
significant, and what the holes can still do. The audit and scores screens
show both; ``p`` on either opens the full comparison (`VerdictsScreen`).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import DataTable, Static

from judgepool.core.comparing.verdict_words import sentence_of
from judgepool.core.comparing.verdicts import PairStats
from judgepool.core.terms.measures import NDCG
from judgepool.display import literal
from judgepool.services.verdicts import ComparedRuns
from judgepool.tui.widgets.score_format import MAX_COLUMN_WIDTH, data, fill_table, signed

VERDICT_STYLE = {
    "settled": "bold green",
    "probable": "bold cyan",
    "could flip": "bold yellow",
    "tied": "bold",
}
# a DataTable cell's padding, each side; a vertical scrollbar's width
_CELL_PADDING = 1
_SCROLLBAR = 2


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


def ahead_cell(pair: PairStats) -> Text:
    """P(A ahead) over the draws of the holes' grades (``-`` without draws)."""
    if pair.p_a_ahead is None:
        return Text("-", style="dim", justify="right")
    return Text(f"{pair.p_a_ahead:.3f}", justify="right")


def holes_cell(pair: PairStats) -> Text:
    """The holes between the pair and a verdict (none count once it is settled)."""
    style = "yellow" if pair.verdict == "could flip" and pair.holes else "dim"
    return Text(str(pair.holes), style=style, justify="right")


def words_text(pair: PairStats) -> Text:
    """The pair's sentence as the screens say it (`PairSentence.short`: the
    line above already shows the p-value, the verdict and P(A ahead)), the
    runs' names shown literally: the answer in the verdict's colour, bold
    when the test calls the difference significant, then the next step."""
    sentence = sentence_of(pair, literal(pair.a), literal(pair.b))
    text = Text()
    if sentence.answer:
        style = VERDICT_STYLE.get(pair.verdict or "", "")
        text.append(sentence.answer, style=f"{style} bold" if sentence.significant else style)
        text.append(": ")
    text.append(sentence.standing)
    step = sentence.next_step.partition(" (")[0]  # as `PairSentence.short` has it
    if step:
        text.append("; next: " + step, style="italic")
    return text


def tally(compared: ComparedRuns) -> Text:
    """One line: how many pairs are settled, probable and could flip (and
    tied, if any; probable only where the draws were made)."""
    verdicts = [pair.verdict for pair in compared.report.pairs]
    text = Text()
    for verdict in ("settled", "probable", "could flip", "tied"):
        if verdict == "tied" and not verdicts.count(verdict):
            continue
        if verdict == "probable" and compared.report.prior is None:
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
    """Every pair of runs with its verdict and the holes that stand in its way,
    a line each; the bounds too where the table is wide enough for them."""

    DEFAULT_CSS = """
    PairVerdicts {
        height: auto;
        max-height: 8;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.compared: ComparedRuns | None = None
        # whether the bounds column is shown (it goes first when room is short)
        self.with_bounds = False

    def show(self, compared: ComparedRuns | None) -> None:
        """Show the pairs of ``compared`` (None: nothing to compare)."""
        self.compared = compared
        self._fill(self._bounds_fit(self.size.width))

    def on_resize(self, event: events.Resize) -> None:
        fits = self._bounds_fit(event.size.width)
        if fits != self.with_bounds:
            self._fill(fits)

    @property
    def current_pair(self) -> PairStats | None:
        """The highlighted pair (None: no pairs)."""
        pairs = self.compared.report.pairs if self.compared is not None else ()
        row = self.cursor_row
        return pairs[row] if 0 <= row < len(pairs) else None

    def _columns(self, with_bounds: bool) -> list[tuple[str, Text]]:
        k = self.compared.contract.k if self.compared is not None else 10
        columns = [
            ("a", Text("run A", style="bold")),
            ("b", Text("run B", style="bold")),
            ("diff", Text(f"A − B {NDCG.label(k)}", style="bold")),
            ("bounds", Text("bounds under the holes", style="bold")),
            ("verdict", Text("verdict", style="bold")),
            ("holes", Text("holes", style="bold")),
        ]
        return columns if with_bounds else [c for c in columns if c[0] != "bounds"]

    def _rows(self, with_bounds: bool) -> list[tuple[str, list[Text]]]:
        pairs = self.compared.report.pairs if self.compared is not None else ()
        rows = []
        for index, pair in enumerate(pairs):
            cells = [data(pair.a), data(pair.b), signed(pair.mean_diff)]
            if with_bounds:
                cells.append(bounds_cell(pair.diff_bounds))
            cells += [verdict_cell(pair.verdict), holes_cell(pair)]
            rows.append((f"{index}", cells))
        return rows

    def _bounds_fit(self, width: int) -> bool:
        """Whether every column, the bounds included, fits in ``width`` cells
        (a scrollbar's room kept: the pairs may be more than the lines)."""
        columns = self._columns(True)
        widths = [label.cell_len for _, label in columns]
        for _, cells in self._rows(True):
            widths = [max(w, cell.cell_len) for w, cell in zip(widths, cells, strict=True)]
        needed = sum(min(w, MAX_COLUMN_WIDTH) + 2 * _CELL_PADDING for w in widths)
        return width >= needed + _SCROLLBAR

    def _fill(self, with_bounds: bool) -> None:
        row = self.cursor_row
        self.with_bounds = with_bounds
        fill_table(self, self._columns(with_bounds), self._rows(with_bounds))
        if 0 <= row < self.row_count:
            self.move_cursor(row=row)

    def verdict_of(self, a: str, b: str) -> str | None:
        """The verdict shown for the pair (a, b), in either order (None: not shown)."""
        if self.compared is None:
            return None
        for pair in self.compared.report.pairs:
            if {pair.a, pair.b} == {a, b}:
                return pair.verdict
        return None


class PairWords(Static):
    """The highlighted pair in one sentence."""

    DEFAULT_CSS = """
    PairWords {
        height: auto;
        padding: 0 1;
    }
    """

    def show(self, pair: PairStats | None) -> None:
        """Say ``pair`` (None: nothing)."""
        self.update(Text() if pair is None else words_text(pair))
