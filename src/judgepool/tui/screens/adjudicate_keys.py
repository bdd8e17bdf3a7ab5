"""The adjudication screen's keys: a digit settles, ``e`` notes, the rest move
through the queue, read the document and choose what the queue lists.

Kept beside `judgepool.tui.screens.adjudicate` so that module holds the
screen's behaviour; the footer, the help screen and the palette list these
bindings with their tooltips. Moving and reading are the grade screen's keys
(``j``/``k``, ``space``/``b``, ``home``/``end``), so an adjudicator who grades
too reads the same way on both.
"""

from __future__ import annotations

from typing import Final

from textual.binding import Binding, BindingType

from judgepool.tui.digit_keys import digit_bindings
from judgepool.tui.footer_keys import HELP_AND_QUIT
from judgepool.tui.widgets.grading_panels import PAGING_BINDINGS

_ITEM: Final = Binding.Group("item")
_GAP: Final = Binding.Group("gap", compact=True)

ADJUDICATE_BINDINGS: Final[list[BindingType]] = [
    *HELP_AND_QUIT,
    *digit_bindings("settle", "Settle the highlighted disagreement with grade {digit}"),
    Binding(
        "e",
        "note",
        "note",
        tooltip="Add a note to your settling grade (before you settle: kept until you do)",
    ),
    # in the footer in this order, which at 80 columns cuts what comes last
    *PAGING_BINDINGS,
    Binding("r", "toggle_resolved", "resolved", tooltip="Show or hide the resolved disagreements"),
    Binding("j,down", "move(1)", "item", group=_ITEM, tooltip="Next disagreement of the queue"),
    Binding("k,up", "move(-1)", "item", group=_ITEM, tooltip="Previous disagreement of the queue"),
    Binding("plus", "gap(1)", "gap", key_display="+", group=_GAP, tooltip="Raise the minimum gap"),
    Binding(
        "minus", "gap(-1)", "gap", key_display="-", group=_GAP, tooltip="Lower the minimum gap"
    ),
    Binding("f5,R", "reload", "reload", show=False, tooltip="Read the disagreements again"),
]
