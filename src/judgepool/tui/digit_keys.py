"""The digit keys of the screens that grade: one definition of the bindings
and of which of them are offered.

A digit grades on the grade screen and on the comparison's side-by-side
lists, and settles on the adjudication screen (each writes through
`judgepool.tui.grade_writer`). `digit_bindings` binds ``0``–``9`` to the
screen's action, grouped in the footer under one word; a screen's bindings
are its class's, the same for every workspace, so `GradesByDigit` (a base of
those screens) offers only the digits of the workspace's scale: the footer
shows those alone, a digit outside it is neither shown nor run, and help
names the scale's grades in one row (`judgepool.tui.screens.help`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding

from judgepool.services.judging import on_scale
from judgepool.tui.hosts import grading_host

if TYPE_CHECKING:
    from textual.dom import DOMNode as _Node
else:
    # A plain class at run time: Textual takes a node's CSS types (and so the
    # Screen and ModalScreen styles) from its first base that is a DOMNode,
    # which a DOMNode mixin listed first would be.
    _Node = object


def digit_bindings(action: str, tooltip: str) -> list[Binding]:
    """``0``–``9`` bound to ``action(digit)``, shown in the footer as one
    compact group named ``action``; ``tooltip``: with ``{digit}`` for the digit."""
    group = Binding.Group(action, compact=True)
    return [
        Binding(
            str(digit),
            f"{action}({digit})",
            action,
            group=group,
            tooltip=tooltip.format(digit=digit),
        )
        for digit in range(10)
    ]


class GradesByDigit(_Node):
    """A base of the screens whose digits grade, listed before the screen
    class they extend: offers the digit action for the scale's grades only."""

    DIGIT_ACTION: ClassVar[str] = "grade"
    """The action the digits are bound to (`digit_bindings`)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == self.DIGIT_ACTION:
            # the service refuses a grade off the scale anyway: this keeps it out of the footer
            grade = parameters[0] if parameters else None
            return isinstance(grade, int) and on_scale(grading_host(self.app).ws, grade)
        return super().check_action(action, parameters)
