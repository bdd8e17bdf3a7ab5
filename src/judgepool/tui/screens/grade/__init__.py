"""The grade screen, as a package of its parts (see `screen`)."""

from judgepool.tui.screens.grade.screen import GradeScreen

__all__ = ["GradeScreen"]
