"""The panels of the grade screen: the query, the document, the grade scale,
the progress bars and the info line.

Each panel is told what to show through one method (``show``) and renders
data text through `judgepool.tui.widgets.highlight`, so a document holding
``[bold]`` or an escape sequence shows those characters and nothing else.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, ProgressBar, Static

from judgepool.services.app_queries import ItemJudgment
from judgepool.store.corpus import Document
from judgepool.tui.widgets.highlight import highlighted, literal_text


class InfoBar(Static):
    """One line: who grades which workspace, and where they are in it."""

    _shown: object = None

    def show(
        self,
        annotator: str,
        workspace: str,
        query_at: tuple[int, int] | None,
        doc_at: tuple[int, int] | None,
    ) -> None:
        key = (annotator, workspace, query_at, doc_at)
        if key == self._shown:
            return
        self._shown = key
        line = Text()
        line.append("annotator ", style="dim")
        line.append_text(literal_text(annotator, style="bold"))
        line.append("  workspace ", style="dim")
        line.append_text(literal_text(workspace))
        if query_at is not None:
            line.append(f"  query {query_at[0]:,}/{query_at[1]:,}", style="dim")
        if doc_at is not None:
            line.append(f"  document {doc_at[0]:,}/{doc_at[1]:,}", style="dim")
        self.update(line, layout=False)  # always one line


class QueryPanel(Static):
    """The query's ID, its text with its terms highlighted, and its narrative."""

    _shown: object = None

    def show(self, query_id: str, text: str, narrative: str | None, terms: Collection[str]) -> None:
        key = (query_id, text, narrative)
        if key == self._shown:
            return
        self._shown = key
        shown = literal_text(query_id, style="dim")
        shown.append("  ")
        if text:
            shown.append_text(highlighted(text, terms))
        else:
            shown.append("(the workspace has no text for this query)", style="italic dim")
        if narrative:
            shown.append("\n")
            shown.append_text(literal_text(narrative, style="italic"))
        self.update(shown)


def judgment_line(judgment: ItemJudgment, labels: Mapping[int, str]) -> Text:
    """Who holds which grade for the document, the grading annotator first."""
    line = Text()
    if judgment.own_grade is not None:
        line.append(f"your grade {judgment.own_grade}", style="bold green")
        label = labels.get(judgment.own_grade)
        if label is not None:
            line.append(" (")
            line.append_text(literal_text(label))
            line.append(")")
    elif judgment.own_unsure:
        line.append("you marked it unsure", style="bold yellow")
    else:
        line.append("not graded by you", style="dim")
    if judgment.others:
        line.append("  · also graded: ", style="dim")
        for index, (annotator, grade) in enumerate(judgment.others):
            if index:
                line.append(", ", style="dim")
            line.append_text(literal_text(annotator, style="dim"))
            line.append(f" {grade}")
    return line


class DocumentView(VerticalScroll, can_focus=False):
    """The document being graded: its ID, title, judgments and text."""

    def compose(self) -> ComposeResult:
        yield Static(id="document-head", markup=False)
        yield Static(id="document-text", markup=False)

    def show(
        self,
        doc_id: str,
        document: Document | None,
        judgment: ItemJudgment,
        labels: Mapping[int, str],
        terms: Collection[str],
    ) -> None:
        head = literal_text(doc_id, style="bold")
        if document is not None and document.title:
            head.append("  ")
            head.append_text(highlighted(document.title, terms))
        head.append("\n")
        head.append_text(judgment_line(judgment, labels))
        self.query_one("#document-head", Static).update(head)
        if document is None:
            body = Text("(the workspace has no text for this document)", style="italic dim")
        else:
            body = highlighted(document.text, terms)
        self.query_one("#document-text", Static).update(body)
        self.scroll_home(animate=False)

    def clear(self, message: str) -> None:
        self.query_one("#document-head", Static).update(Text(""))
        self.query_one("#document-text", Static).update(Text(message, style="italic"))


class GradeScale(Static):
    """The grades of the scale with their labels; the document's grade stands out."""

    _shown: object = None

    def show(self, labels: Mapping[int, str], current: int | None) -> None:
        key = (tuple(labels.items()), current)
        if key == self._shown:
            return
        # Only the highlight moves when the labels stay: the size does not change.
        same_labels = isinstance(self._shown, tuple) and self._shown[0] == key[0]
        self._shown = key
        line = Text()
        for index, (grade, label) in enumerate(sorted(labels.items())):
            if index:
                line.append("   ")
            chosen = grade == current
            key_style = "bold reverse green" if chosen else "bold reverse"
            shown_key = f" {grade} " if 0 <= grade <= 9 else f" ({grade}) "
            line.append(shown_key, style=key_style)
            line.append(" ")
            line.append_text(literal_text(label, style="bold green" if chosen else ""))
        line.append("   ")
        line.append(" u ", style="bold reverse")
        line.append(" unsure")
        self.update(line, layout=not same_labels)


class GradingProgress(Vertical):
    """Two bars: judged documents of the current query, and of the whole plan."""

    def compose(self) -> ComposeResult:
        with Horizontal(classes="progress-row"):
            yield Label("query  ", classes="progress-name")
            yield ProgressBar(id="query-bar", show_eta=False)
            yield Label("", id="query-count", classes="progress-count")
        with Horizontal(classes="progress-row"):
            yield Label("overall", classes="progress-name")
            yield ProgressBar(id="overall-bar", show_eta=False)
            yield Label("", id="overall-count", classes="progress-count")

    _shown: object = None

    def show(self, query: tuple[int, int], overall: tuple[int, int]) -> None:
        if (query, overall) == self._shown:
            return
        self._shown = (query, overall)
        for name, (done, total) in (("query", query), ("overall", overall)):
            self.query_one(f"#{name}-bar", ProgressBar).update(total=max(total, 1), progress=done)
            self.query_one(f"#{name}-count", Label).update(
                Text(f" {done:,} of {total:,} judged"), layout=False
            )
