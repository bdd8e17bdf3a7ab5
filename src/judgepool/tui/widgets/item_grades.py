"""Every grade of a disagreement, as the adjudication screen shows it in the
document's head: who gave it, the grade and its label, when, and the note.

An adjudication (`GradeDetail.adjudication`) is named the adjudicator's
settling grade: it is not one of the grades that disagree. Names and labels
are data, shown literally (`judgepool.tui.widgets.highlight.literal_text`); a
note is text to read, on one line (`label_text`).
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from judgepool.core.team.raters import kind_of_name
from judgepool.services.disagreements import ListedDisagreement
from judgepool.tui.widgets.highlight import label_text, literal_text


def every_grade(
    found: ListedDisagreement, labels: Mapping[int, str], *, models: bool = False
) -> Text:
    """One line per grade of ``found``'s item, in the order they were given,
    the adjudications last. A model's label (``model:NAME``) is listed only
    with ``models`` (a lead's view), and said to be a model's."""
    text = Text()
    shown = [grade for grade in found.details if models or kind_of_name(grade.annotator) != "model"]
    for index, grade in enumerate(shown):
        if index:
            text.append("\n")
        text.append_text(literal_text(grade.annotator, style="bold"))
        if kind_of_name(grade.annotator) == "model" and not grade.adjudication:
            text.append(" (a model's label)", style="italic magenta")
        if grade.adjudication:
            text.append("'s settling grade", style="bold green")
        text.append(f" {grade.grade}", style="bold green" if grade.adjudication else "bold")
        label = labels.get(grade.grade)
        if label:
            text.append(" ")
            text.append_text(literal_text(label))
        # the stored UTC time to the second: the note has more use for the room
        text.append(f"  {grade.graded_at[:19].replace('T', ' ')} UTC", style="dim")
        if grade.note:
            text.append("  note: ", style="italic")
            text.append_text(label_text(grade.note))
    return text
