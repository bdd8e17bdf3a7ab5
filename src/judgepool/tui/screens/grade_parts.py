"""What the grade screen's mixins (`grade_reading`, `grade_search`, `grade_holes`) use of
the screen, as a protocol: the mixins live in their own modules, and the grade
screen provides all of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.text import Text
    from textual.app import App
    from textual.dom import DOMNode

    from judgepool.tui.grading import GradingSession
    from judgepool.tui.hosts import GradingHost


class GradeScreenParts(Protocol):
    """The grade screen as its key mixins see it."""

    session: GradingSession
    _status: Text
    holes: tuple[tuple[str, str], ...]

    @property
    def app(self) -> App[Any]: ...

    @property
    def host(self) -> GradingHost: ...

    def query_one(self, selector: str, expect_type: type[DOMNode]) -> Any: ...

    def _show(self) -> None: ...

    def _say(self, *parts: tuple[str, str]) -> None: ...

    def _error(self, message: str) -> None: ...

    def _update_status(self) -> None: ...

    def _bring(self, query_id: str, doc_id: str) -> None: ...
