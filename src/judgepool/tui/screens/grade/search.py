"""The grade screen's ``f``: search and judge.

Opens `judgepool.tui.dialogs.search.SearchDialog` on the current query's
words; the document chosen joins the pool with source ``search``
(`judgepool.services.search_judge`) and becomes the current document, to be
graded like any other.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.screen import Screen

from judgepool.core.errors import JudgepoolError
from judgepool.services.search_judge import add_found_document, search_for_query
from judgepool.services.workspace import StorageError
from judgepool.tui.dialogs.search import Found, SearchDialog

if TYPE_CHECKING:
    from judgepool.tui.screens.grade.parts import GradeScreenParts


class SearchAndJudge(Screen[None]):
    """The search key of the grade screen."""

    def action_search(self: GradeScreenParts) -> None:
        """Search the documents for the current query and grade what is found."""
        query = self.session.current_query
        if query is None:
            self._say(("nothing to search for: no query to grade", "yellow"))
            self._update_status()
            return
        host = self.host
        query_id = query.id

        def chosen(found: Found | None) -> None:
            if found is None:
                return
            doc_id, words = found
            try:
                added = add_found_document(
                    host.ws, query_id, doc_id, words=words, annotator=host.annotator
                )
            except (JudgepoolError, StorageError) as exc:
                self._error(f"not added to the pool: {exc}")
                self._update_status()
                return
            self._bring(query_id, doc_id)
            how = "found by search, added to the pool: " if added else "found by search: "
            self._say((how, "bold"), (doc_id, ""))
            self._show()

        search = partial(search_for_query, host.ws, query_id)
        self.app.push_screen(SearchDialog(query_id, query.text.text, search), chosen)
