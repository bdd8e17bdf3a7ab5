"""Data text as Rich `Text`, one function per kind, with query terms highlighted.

Everything that comes from data reaches the screen through one of these, each
the `Text` of a function of `judgepool.display` (which says what every
character becomes, and why):

- `id_text`: a query or document ID (`shown_id`: never repaired, no two alike);
- `body_text`: text to read, a document's or a query's (`reading`: repaired,
  what draws nothing left out, line breaks kept), or raw (`literal_lines`) on
  the grade screen's ``r``; `highlighted` is it with the query's words styled;
- `label_text`: a label made from such text, on one line (`one_line`): a
  title, a note, the start of a document in a list;
- `literal_text`: a name or a message (`literal`).

A `Text` object is never parsed as markup by Textual, so ``[bold]`` shows as
``[bold]``. Highlights are styles applied to character spans computed here,
never markup.

All take time linear in the text's length (a pass over its characters, one
of a regular expression, one stem per word) and are given bounded texts only:
the grade screen shows a document a part at a time
(`judgepool.services.text_parts`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

from rich.style import Style
from rich.text import Text

from judgepool.display import literal, literal_lines, one_line, reading, shown_id

_WORD: Final = re.compile(r"\w+")

# Words too common to be worth highlighting in a passage.
_STOPWORDS: Final = frozenset(
    _WORD.findall(
        """a an and are as at be by can do does did for from how i in is it its me my of
        on or that the their there this to was were what when where which who why will
        with you your vs"""
    )
)

_SUFFIXES: Final = ("ing", "es", "ed", "s")

HIGHLIGHT: Final = Style(bold=True, underline=True, color="yellow")


def _stem(word: str) -> str:
    """A crude stem, enough for "brew" to light up "brewing" and "grows"."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@functools.lru_cache(maxsize=1024)
def query_terms(query: str) -> frozenset[str]:
    """The stems of a query's words worth highlighting (remembered for the
    queries last asked: the grade screen asks again at every document)."""
    return frozenset(
        _stem(w) for w in _WORD.findall(query) if w.lower() not in _STOPWORDS and len(w) > 1
    )


def literal_text(text: str, style: str | Style = "", *, lines: bool = False) -> Text:
    """A name or a message as a `Text` that shows every character as it is: a
    control character, one that draws nothing or of uncertain width as a
    visible escape; with ``lines``, a line break as a line break."""
    return Text(literal_lines(text) if lines else literal(text), style=style, no_wrap=False)


def id_text(text: str, style: str | Style = "") -> Text:
    """A query or document ID (`judgepool.display.shown_id`)."""
    return Text(shown_id(text), style=style, no_wrap=False)


def body_text(text: str, style: str | Style = "", *, raw: bool = False) -> Text:
    """Text to read, repaired for reading (`judgepool.display.reading`), or as
    stored with ``raw`` (`judgepool.display.literal_lines`); line breaks kept."""
    return Text(literal_lines(text) if raw else reading(text), style=style, no_wrap=False)


def label_text(text: str, style: str | Style = "", *, raw: bool = False) -> Text:
    """A label made from text to read, on one line (`judgepool.display.one_line`),
    or as stored with ``raw`` (`judgepool.display.literal`)."""
    return Text(literal(text) if raw else one_line(text), style=style, no_wrap=False)


def highlight(shown: Text, terms: Iterable[str], style: Style = HIGHLIGHT) -> Text:
    """``shown`` with every word whose stem is a query term styled (in place)."""
    wanted = frozenset(terms)
    if wanted:
        for match in _WORD.finditer(shown.plain):
            if _stem(match.group()) in wanted:
                shown.stylize(style, match.start(), match.end())
    return shown


def highlighted(
    text: str, terms: Iterable[str], style: Style = HIGHLIGHT, *, raw: bool = False
) -> Text:
    """Text to read (`body_text`), every word whose stem is a query term styled."""
    return highlight(body_text(text, raw=raw), terms, style)
