"""The grade screen (`GradeScreen`), a package of the parts it is made of.

- `screen`: the screen itself: it holds the grading session, shows the current
  document across its panels and hands each key to the part that does the work.
- `keys`: its bindings, as the footer, the help screen and the palette list them.
- `judging`: what the screen writes (a grade, unsure, a note, an undo), the
  session's tally of it, and the notes waiting for a grade.
- `holes`: the holes sent from the audit, graded one after another.
- `goto`: going to a query of the queue by its ID or words.
- `search`: search and judge, the document found joining the pool.
- `reading`: the text raw or repaired, and paging through a long document.
- `status`: the status line and what it says; `clock`: the time on the
  document and the annotator's rate, at the line's end.

None of the parts sees the screen: each is given what it uses and gives back
what the status line says. `GradeScreen` is this package's entry point (the
app and the tests import it from here).
"""

from judgepool.tui.screens.grade.screen import GradeScreen

__all__ = ["GradeScreen"]
