"""`RankedColumn`: one run's top k for a query, beside another run's, as DiffIR shows them.

Each row is a document of the run's ranked list (within the contract's k,
after duplicates and ties are handled as the measures see them): its rank,
its ID, its grade (``unjudged`` for a hole) and where the other run has it —
``#3`` (its rank there, with an arrow saying whether it is higher or lower
here), or ``only here``. Documents only one run found are what a comparison
turns on: they are set in bold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widgets import DataTable

from judgepool.core.auditing.drilldown import Drilldown
from judgepool.tui.widgets.score_format import data, fill_table, grade


def other_cell(rank: int, other_rank: int | None) -> Text:
    """Where the other run has the document, compared with ``rank`` here."""
    if other_rank is None:
        return Text("only here", style="bold cyan")
    if other_rank == rank:
        return Text(f"#{other_rank} =", style="dim")
    arrow = "↑" if rank < other_rank else "↓"
    return Text(f"#{other_rank} {arrow}", style="")


def model_cell(labels: Sequence[tuple[str, int]]) -> Text:
    """The models' labels of a document: ``2 model:NAME``, each; ``-`` for none."""
    if not labels:
        return Text("-", style="dim")
    text = Text()
    for index, (rater, given) in enumerate(labels):
        if index:
            text.append(", ")
        text.append(f"{given} ", style="magenta")
        text.append_text(data(rater, "italic magenta"))
    return text


def top_k(drilldown: Drilldown) -> list[tuple[int, str, int | None]]:
    """(rank, document, grade) of the run's top k."""
    k = drilldown.contract.k
    return [(row.position, row.doc_id, row.grade) for row in drilldown.ranked[:k]]


class RankedColumn(DataTable[Text]):
    """One run's top k for one query, each document placed against the other run."""

    DEFAULT_CSS = """
    RankedColumn {
        width: 1fr;
        height: 1fr;
        border: round $primary;
    }
    RankedColumn:focus {
        border: round $accent;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.docs: list[str] = []

    def show(
        self,
        mine: Drilldown,
        other: Drilldown,
        models: Mapping[str, Sequence[tuple[str, int]]] | None = None,
    ) -> None:
        """Fill with ``mine``'s top k, placed against ``other``'s (the cursor stays
        on the document it was on); ``models``: the models' labels by document,
        a column of their own (a lead's view: a model's label is said to be one)."""
        keep = self.current_doc
        theirs = {doc: rank for rank, doc, _ in top_k(other)}
        rows = []
        self.docs = []
        for rank, doc, grade_of in top_k(mine):
            only = doc not in theirs
            self.docs.append(doc)
            rows.append(
                (
                    doc,
                    [
                        Text(str(rank), justify="right"),
                        data(doc, "bold" if only else ""),
                        grade(grade_of),
                        other_cell(rank, theirs.get(doc)),
                        *([model_cell(models.get(doc, ()))] if models else []),
                    ],
                )
            )
        columns = [
            ("rank", Text("#", style="bold")),
            ("doc", Text("document", style="bold")),
            ("grade", Text("grade", style="bold")),
            ("other", Text("other run", style="bold")),
            *([("model", Text("model's label", style="bold"))] if models else []),
        ]
        fill_table(self, columns, rows)
        if keep in self.docs:
            self.move_cursor(row=self.docs.index(keep))

    @property
    def current_doc(self) -> str | None:
        """The highlighted document's ID."""
        if not self.docs or not 0 <= self.cursor_row < len(self.docs):
            return None
        return self.docs[self.cursor_row]
