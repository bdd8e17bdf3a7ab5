"""The grade screen's ``f``: search and judge.

`search_dialog` is `judgepool.tui.dialogs.search.SearchDialog` on the current
query's words (`search_off`: the workspace's setting refuses it); `add_found`
puts the document chosen there into the pool with source ``search``, or
proposes it to a lead, as the workspace's setting says
(`judgepool.services.search_judge`), and says whether the grade screen shows
it as the current document, graded like any other (not when it is only
proposed, nor when it is judged already).
"""

from __future__ import annotations

from functools import partial
from typing import Final

from judgepool.services.app_queries import PlanQuery
from judgepool.services.search_judge import add_found_document, search_for_query, search_refusal
from judgepool.tui.dialogs.search import Found, SearchDialog
from judgepool.tui.hosts import GradingHost
from judgepool.tui.screens.grade.status import Words

NO_QUERY: Final[Words] = ("nothing to search for: no query to grade", "yellow")
_SAID: Final[dict[str, str]] = {
    "added": "found by search, added to the pool: ",
    "pooled": "found by search: ",
    "proposed": "found by search, proposed to a lead (it joins the pool once accepted): ",
    "judged": "found by search, already judged: not added to your queue: ",
}


def search_off(host: GradingHost) -> Words | None:
    """Why ``f`` does not search here (None: it does)."""
    why = search_refusal(host.ws)
    return None if why is None else (why, "yellow")


def search_dialog(host: GradingHost, query: PlanQuery) -> SearchDialog:
    """The search dialog on ``query``'s words, searching on the app's
    connection; it dismisses with the document chosen (or None)."""
    return SearchDialog(query.id, query.text.text, partial(search_for_query, host.ws, query.id))


def add_found(host: GradingHost, query_id: str, found: Found) -> tuple[tuple[Words, ...], bool]:
    """Put the ``found`` document into ``query_id``'s pool (or propose it, as
    the workspace's setting says), and say so; True when the grade screen
    shows it to grade. Raises the refusal (`JudgepoolError`, `StorageError`)
    when it cannot be added."""
    doc_id, words = found
    outcome = add_found_document(host.ws, query_id, doc_id, words=words, annotator=host.annotator)
    style = "bold" if outcome in ("added", "pooled") else "yellow"
    return ((_SAID[outcome], style), (doc_id, "")), outcome in ("added", "pooled")
