"""`RunSummaryTable`: one row per run with the summary line of its evaluation.

The columns follow ``judgepool score``'s table: the macro mean nDCG@k, the
pooled ratio beside it (ΣDCG/ΣIDCG, never called the mean), the candidate-only
mean labelled as such, mean judged@k, and the counts of queries, scored,
zero-IDCG, excluded, missing, unknown and unjudged in the top k. A run the
contract refuses shows "refused" and the reason in its last column.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from judgepool.core.terms.measures import (
    CANDIDATE_NDCG,
    EXCLUDED,
    JUDGED_AT_K,
    MISSING,
    NDCG,
    POOLED_NDCG,
    QUERIES,
    SCORED,
    UNJUDGED_AT_K,
    UNKNOWN,
    ZERO_IDCG,
)
from judgepool.services.review import RunScore, Scoreboard
from judgepool.tui.widgets.score_format import count, data, fill_table, number, plain

# the counts of queries, between the means and the unjudged documents
COUNTS = (QUERIES, SCORED, ZERO_IDCG, EXCLUDED, MISSING, UNKNOWN)


def summary_columns(k: int) -> list[tuple[str, str]]:
    """(key, label) of every column, labels naming the cutoff (`judgepool.core.terms.measures`)."""
    return [
        ("run", "run"),
        ("ndcg", f"{NDCG.label(k)} (mean)"),
        ("pooled", POOLED_NDCG.label(k)),
        ("candidate", CANDIDATE_NDCG.label(k)),
        ("judged", JUDGED_AT_K.label(k)),
        *((measure.field, measure.label(k)) for measure in COUNTS),
        ("unjudged", UNJUDGED_AT_K.label(k)),
        ("note", "note"),
    ]


def summary_cells(score: RunScore) -> list[Text]:
    """The cells of one run's row, in `summary_columns` order."""
    evaluation = score.evaluation
    if evaluation is None:
        reason = score.reason or "refused"
        blanks = [Text("")] * 10
        return [
            data(score.run),
            Text("refused", style="bold red", justify="right"),
            *blanks,
            plain(reason, "red"),
        ]
    s = evaluation.summary
    return [
        data(score.run),
        number(s.ndcg, style="bold"),
        number(s.ndcg_pooled),
        number(s.candidate_ndcg, style="italic"),
        number(s.judged_at_k),
        count(s.queries, warn=False),
        count(s.scored, warn=False),
        count(s.zero_idcg),
        count(s.excluded),
        count(s.missing),
        count(s.unknown),
        count(s.unjudged_at_k),
        Text(""),
    ]


class RunSummaryTable(DataTable[Text]):
    """Every run's summary; the highlighted row is the run the screen details."""

    DEFAULT_CSS = """
    RunSummaryTable {
        height: auto;
        max-height: 12;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def show(self, board: Scoreboard, keep: str | None = None) -> None:
        """Fill the table from ``board``, keeping the cursor on the run ``keep``."""
        fill_table(
            self,
            [(key, Text(label, style="bold")) for key, label in summary_columns(board.contract.k)],
            [(score.run, summary_cells(score)) for score in board.runs],
        )
        if keep is not None and keep in board.names:
            self.move_cursor(row=board.names.index(keep))

    @property
    def current_run(self) -> str | None:
        """The highlighted run's name."""
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return None if key.value is None else str(key.value)
