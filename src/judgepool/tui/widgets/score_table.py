"""`PerQueryTable`: one run's per-query records, sortable by any column.

Columns: query, nDCG@k, DCG, IDCG, candidate-only nDCG, inflation
(candidate-only minus nDCG), judged@k and the zero-IDCG flag, plus whether the
query was missing from the run or left out of the mean. `cycle_sort` moves the
sort to the next column, `reverse_sort` flips its direction, and clicking a
header sorts by it (clicking it again flips). Undefined values sort last in
either direction; the sort column's header carries an arrow.
"""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.widgets import DataTable

from judgepool.core.auditing.result_order import SORT_KEYS, inflation, sort_results
from judgepool.core.terms.measures import CANDIDATE_NDCG, DCG, IDCG, JUDGED_AT_K, NDCG, ZERO_IDCG
from judgepool.core.terms.types import Evaluation, QueryResult
from judgepool.tui.widgets.score_format import data, fill_table, flag, number, signed

# Every sortable column: the key of `SORT_KEYS` (the record's field) and its
# label, ``{k}`` for the cutoff (`judgepool.core.terms.measures`).
COLUMNS: Final[tuple[tuple[str, str], ...]] = (
    ("query", "query"),
    *((measure.field, measure.template) for measure in (NDCG, DCG, IDCG, CANDIDATE_NDCG)),
    ("inflation", "inflation"),
    (JUDGED_AT_K.field, JUDGED_AT_K.template),
    (ZERO_IDCG.field, ZERO_IDCG.template),
)
NOTE_COLUMN: Final = "note"


def row_cells(result: QueryResult) -> list[Text]:
    """One query's cells in `COLUMNS` order, then its note."""
    notes = []
    if result.missing:
        notes.append("missing from run")
    if result.excluded:
        notes.append("excluded from mean")
    if result.unjudged_at_k:
        notes.append(f"{result.unjudged_at_k} unjudged in top k")
    return [
        data(result.query_id),
        number(result.ndcg, style="bold"),
        number(result.dcg),
        number(result.idcg),
        number(result.candidate_ndcg, style="italic"),
        signed(inflation(result)),
        number(result.judged_at_k),
        flag(result.zero_idcg, ZERO_IDCG.name),
        Text(", ".join(notes), style="dim"),
    ]


class PerQueryTable(DataTable[Text]):
    """The per-query records of the run the scores screen details."""

    DEFAULT_CSS = """
    PerQueryTable {
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.sort_key = "ndcg"
        self.descending = False
        self._results: tuple[QueryResult, ...] = ()
        self._k = 10

    def show(self, evaluation: Evaluation | None) -> None:
        """Show ``evaluation``'s queries (an empty table for None), keeping the
        sort and the highlighted query."""
        self._results = evaluation.per_query if evaluation is not None else ()
        self._k = evaluation.contract.k if evaluation is not None else self._k
        self._refill()

    @property
    def current_query(self) -> str | None:
        """The highlighted query's ID."""
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return None if key.value is None else str(key.value)

    @property
    def shown_order(self) -> list[str]:
        """The query IDs in the order they are shown."""
        return [str(key.value) for key in self.rows]

    def sort_by(self, key: str, descending: bool | None = None) -> None:
        """Sort by the column ``key`` (one of `SORT_KEYS`)."""
        if key not in SORT_KEYS:
            raise ValueError(f"cannot sort by {key!r}")
        self.sort_key = key
        if descending is not None:
            self.descending = descending
        self._refill()

    def cycle_sort(self) -> None:
        """Sort by the next column (ascending), wrapping around."""
        keys = [key for key, _ in COLUMNS]
        following = keys[(keys.index(self.sort_key) + 1) % len(keys)]
        self.sort_by(following, descending=False)

    def reverse_sort(self) -> None:
        self.sort_by(self.sort_key, descending=not self.descending)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        key = event.column_key.value
        if key is None or key not in SORT_KEYS:
            return
        event.stop()
        if key == self.sort_key:
            self.reverse_sort()
        else:
            self.sort_by(key, descending=False)

    def _refill(self) -> None:
        keep = self.current_query
        columns = []
        for key, label in COLUMNS:
            title = Text(label.format(k=self._k), style="bold")
            if key == self.sort_key:
                title.append(" ▼" if self.descending else " ▲", style="bold yellow")
            columns.append((key, title))
        columns.append((NOTE_COLUMN, Text("note", style="bold")))
        ordered = sort_results(self._results, self.sort_key, descending=self.descending)
        fill_table(self, columns, [(result.query_id, row_cells(result)) for result in ordered])
        if keep is not None:
            ids = [r.query_id for r in ordered]
            if keep in ids:
                self.move_cursor(row=ids.index(keep), scroll=True)
