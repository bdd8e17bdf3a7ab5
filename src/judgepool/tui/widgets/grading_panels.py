"""The panels of the grade screen: the query, the document, the grade scale,
the progress bars and the info line.

Each panel is told what to show through one method (``show``) and renders
data text through `judgepool.tui.widgets.highlight` (IDs as IDs, text to read
repaired, or raw on ``r``), so a document holding ``[bold]`` or an escape
sequence shows those characters and nothing else.
Texts arrive as bounded parts (`judgepool.services.text_parts.TextPart`): a
panel says how much of a text it shows when that is not the whole of it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Final, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, ProgressBar, Static

from judgepool.display import literal_lines, reading
from judgepool.services.app_queries import DocumentPart, ItemJudgment
from judgepool.services.text_parts import PartWhere, TextPart
from judgepool.tui.widgets.highlight import (
    body_text,
    highlight,
    highlighted,
    id_text,
    label_text,
    literal_text,
)

_PAGE: Final = Binding.Group("page")
# The keys that page through the document, bound by the grade screen (the
# panel never has focus), and how the panel names them.
PAGING_BINDINGS: Final[list[BindingType]] = [
    Binding(
        "space,pagedown",
        "read(1)",
        "page",
        group=_PAGE,
        tooltip="Read on: scroll down, then the next part of a long document",
    ),
    Binding(
        "b,pageup",
        "read(-1)",
        "page",
        group=_PAGE,
        tooltip="Read back: scroll up, then the previous part of a long document",
    ),
    Binding("home", "part('first')", "first part", show=False, tooltip="First part"),
    Binding("end", "part('last')", "last part", show=False, tooltip="Last part"),
]
PAGING_KEYS: Final = "space/b read on/back, home/end first/last part"


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
    raw = False  # True: the stored text as it is, mojibake and all (key r)

    def show(
        self,
        query_id: str,
        text: TextPart,
        narrative: TextPart | None,
        terms: Collection[str],
    ) -> None:
        key = (query_id, text, narrative, self.raw)
        if key == self._shown:
            return
        self._shown = key
        shown = id_text(query_id, style="dim")
        shown.append("  ")
        if text.text:
            shown.append_text(preview(text, highlighted(text.text, terms, raw=self.raw)))
        else:
            shown.append("(the workspace has no text for this query)", style="italic dim")
        if narrative is not None and narrative.text:
            shown.append("\n")
            shown.append_text(
                preview(narrative, body_text(narrative.text, style="italic", raw=self.raw))
            )
        self.update(shown)


def preview(part: TextPart, shown: Text) -> Text:
    """``shown``, the rendered text of a preview, and, first (the panel may cut
    off its end), how much of the whole text it is when that is not all of it."""
    if part.is_whole:
        return shown
    line = Text(f"(the first {len(part.text):,} of {part.length:,} characters) ", "dim italic")
    line.append_text(shown)
    line.append(" …", style="dim")
    return line


def part_line(part: TextPart) -> Text:
    """Which characters of a long text a part shows, and the keys to page through it."""
    if part.is_first:
        where = f"showing the first {len(part.text):,} of {part.length:,} characters"
    elif part.is_last:
        where = f"showing the last {len(part.text):,} of {part.length:,} characters"
    else:
        where = f"showing characters {part.start + 1:,}–{part.end:,} of {part.length:,}"
    line = Text(where, style="bold yellow")
    line.append(f"  ({PAGING_KEYS})", style="dim")
    return line


def judgment_line(judgment: ItemJudgment, labels: Mapping[int, str]) -> Text:
    """Who holds which grade for the document, the grading annotator first, and
    the notes: theirs, then the others' (listed only when grading is open)."""
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
    if judgment.own_note is not None:
        line.append("\nyour note: ", style="italic")
        line.append_text(label_text(judgment.own_note, style="italic"))
    for annotator, note in judgment.others_notes:
        line.append("\n")
        line.append_text(literal_text(annotator, style="dim italic"))
        line.append("'s note: ", style="dim italic")
        line.append_text(label_text(note, style="italic"))
    return line


Scroll = Literal["home", "end", "keep"]
PartReader = Callable[[str, PartWhere, TextPart], DocumentPart | None]
"""Reads a part of a document's text: (document ID, which part, the part shown)."""


class DocumentView(VerticalScroll, can_focus=False):
    """A document: its ID, title, what is said of its judgments and one part of its text.

    ``shown`` is the document part on screen (None: no document, or no text
    for it); the screen showing it (grade, adjudicate) reads the next part
    from it when paging. What the head says of the judgments is the screen's:
    the grading annotator's grade on the grade screen (`judgment_line`), every
    grade on the adjudication screen."""

    shown: DocumentPart | None = None
    raw = False  # True: the stored text as it is, mojibake and all
    # the key that shows the text raw, named in the head (None: the screen has none)
    raw_key: str | None = "r"
    _shown_with: tuple[Text, Collection[str]] = (Text(""), ())

    def compose(self) -> ComposeResult:
        yield Static(id="document-head", markup=False)
        yield Static(id="document-text", markup=False)

    def part_of(self, doc_id: str) -> TextPart | None:
        """The part of ``doc_id``'s text on screen, if it is the document shown."""
        shown = self.shown
        return shown.text if shown is not None and shown.id == doc_id else None

    def page(self, direction: int) -> bool:
        """Scroll a screen down (``direction`` 1) or up (-1); False when the bottom
        or the top is shown already."""
        if direction > 0 and not self.is_vertical_scroll_end:
            self.scroll_page_down(animate=False)
            return True
        if direction < 0 and self.scroll_y > 0:
            self.scroll_page_up(animate=False)
            return True
        return False

    def turn(self, where: PartWhere, read: PartReader) -> str | None:
        """Show the ``where`` part of the shown document's text, read with ``read``
        (from its end when going back); "end" or "start" when there is no such part."""
        shown = self.shown
        if shown is None:
            return None
        if where == "next" and shown.text.is_last:
            return "end"
        if where == "previous" and shown.text.is_first:
            return "start"
        scroll: Scroll = "end" if where in ("previous", "last") else "home"
        self.show(shown.id, read(shown.id, where, shown.text), *self._shown_with, scroll)
        return None

    def on_resize(self) -> None:
        self._update_pageable()  # the view may now hold all of the text, or not

    def _update_pageable(self) -> None:
        """Mark the view ``-pageable`` when its text is longer than the view or than
        one part: the paging keys show in the footer only then."""
        shown = self.shown
        pageable = shown is not None and (not shown.text.is_whole or self.max_scroll_y > 0)
        if pageable != self.has_class("-pageable"):
            self.set_class(pageable, "-pageable")
            self.screen.refresh_bindings()

    def show(
        self,
        doc_id: str,
        document: DocumentPart | None,
        judgments: Text,
        terms: Collection[str],
        scroll: Scroll | None = None,
    ) -> None:
        """Show a document part, ``judgments`` (what to say of them) under its ID;
        ``scroll``: to its top, its end, or where it was (by default: where it
        was if it is the document shown, else its top)."""
        if scroll is None:
            scroll = "home" if self.part_of(doc_id) is None else "keep"
        self.shown = document
        self._shown_with = (judgments, terms)
        head = id_text(doc_id, style="bold")
        if document is not None and document.title is not None and document.title.text:
            head.append("  ")
            title = highlight(label_text(document.title.text, raw=self.raw), terms)
            head.append_text(preview(document.title, title))
        if judgments.plain:
            head.append("\n")
            head.append_text(judgments)
        if document is not None and not document.text.is_whole:
            head.append("\n")
            head.append_text(part_line(document.text))
        key = self.raw_key
        if self.raw:
            toggle = "" if key is None else f": {key} shows it repaired"
            head.append(f"\nraw text, as stored{toggle}", style="italic magenta")
        elif document is not None and _repaired(document):
            toggle = "" if key is None else f": {key} shows it raw"
            head.append(f"\ntext repaired for reading{toggle}", style="italic dim")
        self.query_one("#document-head", Static).update(head)
        if document is None:
            body = Text("(the workspace has no text for this document)", style="italic dim")
        else:
            body = part_body(document.text, terms, self.raw)
        self.query_one("#document-text", Static).update(body)
        if scroll == "home":
            self.scroll_home(animate=False)
        elif scroll == "end":
            self.scroll_end(animate=False)
        self.call_after_refresh(self._update_pageable)  # once the new text is laid out

    def clear(self, message: str) -> None:
        self.shown = None
        self.query_one("#document-head", Static).update(Text(""))
        self.query_one("#document-text", Static).update(Text(message, style="italic"))
        self.call_after_refresh(self._update_pageable)


def _repaired(document: DocumentPart) -> bool:
    """True when the text shown for reading differs from the raw one: mojibake
    repaired, or characters that draw nothing left out."""
    texts = [document.text.text] + ([document.title.text] if document.title else [])
    return any(reading(text) != literal_lines(text) for text in texts)


def part_body(part: TextPart, terms: Collection[str], raw: bool = False) -> Text:
    """A part of a document's text, highlighted (repaired for reading unless
    ``raw``), with what comes before and after it."""
    body = Text()
    if not part.is_first:
        body.append(
            f"… {part.start:,} characters before this part: b at the top goes back\n\n",
            style="italic dim",
        )
    body.append_text(highlighted(part.text, terms, raw=raw))
    if not part.is_last:
        body.append(
            f"\n\n… {part.length - part.end:,} more characters: space at the bottom goes on",
            style="italic dim",
        )
    return body


class GradeScale(Static):
    """Every grade of the scale beside its label (a grade whose label is only its
    own number, as on a scale made without labels, shows its key alone); the
    document's grade stands out."""

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
            if label != str(grade):  # a grade the workspace did not name: its key alone
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
            yield ProgressBar(id="query-bar", show_eta=False, show_percentage=False)
            yield Label("", id="query-count", classes="progress-count")
        with Horizontal(classes="progress-row"):
            yield Label("overall", classes="progress-name")
            yield ProgressBar(id="overall-bar", show_eta=False, show_percentage=False)
            yield Label("", id="overall-count", classes="progress-count")

    _shown: object = None

    def show(self, query: tuple[int, int], overall: tuple[int, int]) -> None:
        if (query, overall) == self._shown:
            return
        self._shown = (query, overall)
        for name, (done, total) in (("query", query), ("overall", overall)):
            self.query_one(f"#{name}-bar", ProgressBar).update(total=max(total, 1), progress=done)
            self.query_one(f"#{name}-count", Label).update(
                Text(f" {floored_percent(done, total):>3}% {done:,} of {total:,} judged"),
                layout=False,
            )


def floored_percent(done: int, total: int) -> int:
    """The whole percent of ``total`` that ``done`` is, rounded down: 1,455 of
    1,456 is 99 %, never 100 % before every document is judged (Textual's own
    percentage rounds)."""
    return 0 if total <= 0 else done * 100 // total
