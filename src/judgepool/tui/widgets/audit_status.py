"""The audit's per-query ``status`` column: what the query's score stands on.

`judgepool.core.auditing.query_audit.QueryAudit.status` says whether the judgments and
the run know the query; the column adds whether its top k is fully judged, so
each word says what to do. The help screen lists these meanings.
"""

from __future__ import annotations

from typing import Final

from rich.text import Text

from judgepool.core.auditing.query_audit import QueryAudit

STATUS_MEANINGS: Final[tuple[tuple[str, str], ...]] = (
    ("complete", "judged query, every document of the run's top k judged: its score is final"),
    ("holes", "judged query with unjudged documents in the top k: h or j judge them"),
    ("no qrels", "the run returned it, the judgments know nothing of it: every document a hole"),
    ("not run", "judged, but the run returned nothing for it (missing=zero or skip decides)"),
)

_STYLES: Final = {
    "complete": "green",
    "holes": "yellow",
    "no qrels": "bold red",
    "not run": "bold yellow",
}


def status_word(query: QueryAudit) -> str:
    """The column's word for the query (see `STATUS_MEANINGS`)."""
    if query.status == "unknown":
        return "no qrels"
    if query.status == "missing":
        return "not run"
    return "holes" if query.holes else "complete"


def status_cell(query: QueryAudit) -> Text:
    """The status word, coloured by how far the query's score is from final."""
    word = status_word(query)
    return Text(word, style=_STYLES[word])
