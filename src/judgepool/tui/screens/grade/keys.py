"""The grade screen's keys: a digit grades, the rest move, note, undo and read,
and open the guidelines and the annotator's own items.

Kept beside `judgepool.tui.screens.grade.screen` so that module holds the
screen's behaviour; the footer, the help screen and the palette list these
bindings with their tooltips.
"""

from __future__ import annotations

from typing import Final

from textual.binding import Binding, BindingType

from judgepool.tui.digit_keys import digit_bindings
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.widgets.grading_panels import PAGING_BINDINGS

_DOCUMENT: Final = Binding.Group("doc")
_QUERY: Final = Binding.Group("query")

GRADE_BINDINGS: Final[list[BindingType]] = [
    *HELP_AND_QUIT,
    *digit_bindings("grade", "Grade {digit} and go to the next document"),
    Binding("u", "unsure", "unsure", tooltip="Unsure: defer this document without a grade"),
    Binding("z", "undo", "undo", tooltip="Undo the last judgment of this session"),
    Binding("e", "note", "note", tooltip="Add a note to the current judgment"),
    Binding(
        "r",
        "raw_text",
        "raw",
        show=False,
        tooltip="Show the text raw, as stored, or repaired for reading (mojibake fixed)",
    ),
    Binding(
        "f",
        "search",
        "find",
        show=False,
        tooltip="Find documents by full-text search (the query's words or yours) and grade them",
    ),
    # "unjudged": by anyone in the pool; by you in your queue of an assignment
    Binding("n", "next_unjudged", "unjudged", tooltip="Jump to the next unjudged document"),
    Binding(
        "ctrl+g,slash",  # / too: a browser keeps ctrl+g (judgepool serve)
        "goto_query",
        "go to query",
        show=False,
        tooltip="Go to a query of your queue by its ID or words of its text",
    ),
    Binding(
        "t",
        "settle_order",
        "settle order",
        # not in the footer, which has no room for it at 120 columns: the
        # status line and the audit and scores screens' pairs say it instead
        show=False,
        # the same words for every role (help and the palette read them): a
        # blind grader must not read that documents decide between runs
        tooltip=(
            "Settle order: grade first the documents most needed, ranked again after "
            "each grade (t again or n: back to the pool order)"
        ),
    ),
    # not in the footer, which has no room for them at 80 columns: help lists them
    Binding(
        "i",
        "guidelines",
        "guidelines",
        show=False,
        tooltip="The team's grading guidelines, with the labels of the grades",
    ),
    Binding(
        "m",
        "own_items",
        "my items",
        show=False,
        tooltip="My unsure and noted items, to go back to one (enter)",
    ),
    Binding("j,down", "next_document", "document", group=_DOCUMENT, tooltip="Next document"),
    Binding("k,up", "previous_document", "document", group=_DOCUMENT, tooltip="Previous document"),
    Binding(
        "right_square_bracket",
        "next_query",
        "query",
        key_display="]",
        group=_QUERY,
        tooltip="Next query",
    ),
    Binding(
        "left_square_bracket",
        "previous_query",
        "query",
        key_display="[",
        group=_QUERY,
        tooltip="Previous query",
    ),
    *PAGING_BINDINGS,
]
