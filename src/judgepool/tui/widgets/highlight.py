"""Data text as Rich `Text`, shown literally, with query terms highlighted.

Everything that comes from data (queries, documents, IDs) reaches the screen
through `literal_text`: control characters become visible escapes (see
`judgepool.display.literal`) and the result is a `Text` object, which Textual
never parses as markup, so ``[bold]`` shows as ``[bold]``. Highlights are
styles applied to character spans computed here, never markup.

Both take time linear in the text's length (one pass of a regular expression,
one stem per word) and are given bounded texts only: the grade screen shows a
document a part at a time (`judgepool.services.text_parts`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

from rich.style import Style
from rich.text import Text

from judgepool.display import literal, literal_lines

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
    """``text`` as a `Text` that shows every character as it is: a control
    character as a visible escape; with ``lines`` (a passage in a view of its
    own), a line break as a line break."""
    return Text(literal_lines(text) if lines else literal(text), style=style, no_wrap=False)


def highlighted(text: str, terms: Iterable[str], style: Style = HIGHLIGHT) -> Text:
    """``text`` shown literally, with every word whose stem is a query term styled."""
    shown = literal_text(text, lines=True)
    wanted = frozenset(terms)
    if wanted:
        for match in _WORD.finditer(shown.plain):
            if _stem(match.group()) in wanted:
                shown.stylize(style, match.start(), match.end())
    return shown
