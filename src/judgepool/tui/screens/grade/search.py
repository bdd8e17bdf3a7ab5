"""The grade screen's ``f``: search and judge.

`search_dialog` is `judgepool.tui.dialogs.search.SearchDialog` on the current
query's words; `add_found` puts the document chosen there into the pool with
source ``search`` (`judgepool.services.search_judge`), and the grade screen
shows it as the current document, graded like any other.
"""

from __future__ import annotations

from functools import partial
from typing import Final

from judgepool.services.app_queries import PlanQuery
from judgepool.services.search_judge import add_found_document, search_for_query
from judgepool.tui.dialogs.search import Found, SearchDialog
from judgepool.tui.hosts import GradingHost
from judgepool.tui.screens.grade.status import Words

NO_QUERY: Final[Words] = ("nothing to search for: no query to grade", "yellow")


def search_dialog(host: GradingHost, query: PlanQuery) -> SearchDialog:
    """The search dialog on ``query``'s words, searching on the app's
    connection; it dismisses with the document chosen (or None)."""
    return SearchDialog(query.id, query.text.text, partial(search_for_query, host.ws, query.id))


def add_found(host: GradingHost, query_id: str, found: Found) -> tuple[Words, ...]:
    """Put the ``found`` document into ``query_id``'s pool (unless it is there
    already), and say so; raises the refusal (`JudgepoolError`,
    `StorageError`) when it cannot be added."""
    doc_id, words = found
    added = add_found_document(host.ws, query_id, doc_id, words=words, annotator=host.annotator)
    how = "found by search, added to the pool: " if added else "found by search: "
    return (how, "bold"), (doc_id, "")
