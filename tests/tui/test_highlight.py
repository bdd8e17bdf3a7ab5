"""Data text as Rich Text: shown literally (markup and control characters
included), with the query's terms highlighted by style spans."""

from __future__ import annotations

import io
import time

from rich.console import Console

from judgepool.display import literal
from judgepool.tui.widgets.highlight import HIGHLIGHT, highlighted, literal_text, query_terms


def test_query_terms_drop_stopwords_and_stem() -> None:
    assert query_terms("how do I brew a good cup of green tea") == {
        "brew",
        "good",
        "cup",
        "green",
        "tea",
    }
    assert query_terms("do goldfish grow") == {"goldfish", "grow"}


def test_terms_light_up_inflected_words_only() -> None:
    text = highlighted("Brewing teas: the brewer grows tea.", query_terms("brew tea grow"))
    lit = {text.plain[span.start : span.end] for span in text.spans if span.style == HIGHLIGHT}
    assert lit == {"Brewing", "teas", "grows", "tea"}


def test_markup_stays_characters() -> None:
    text = highlighted("[bold]not bold[/bold] [link=https://x]x[/link] :warning:", ["bold"])
    assert text.plain == "[bold]not bold[/bold] [link=https://x]x[/link] :warning:"
    console = Console(width=200, file=io.StringIO(), force_terminal=True)
    console.print(literal_text("[red]x[/red] :warning:"))
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert output == "[red]x[/red] :warning:\n"  # no colour code, no emoji


def test_control_characters_become_visible_escapes() -> None:
    raw = "a\x1b[31mb\x07c\x08d\x9b32me\x85f\x7f"
    assert literal(raw) == "a\\x1b[31mb\\x07c\\x08d\\x9b32me\\x85f\\x7f"
    text = highlighted(raw, ["b"])
    assert text.plain == literal(raw)
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in text.plain)


def test_highlighting_takes_linear_time() -> None:
    """Every shape of text, 200,000 characters of it, in well under the bound
    (about 0.6 s for the slowest, control characters; a quadratic pass over
    200,000 characters would take hours). The app gives it 20,000 at most."""
    terms = query_terms("how do I brew a good cup of green tea")
    shapes = {
        "matching words": "brewing tea ",
        "other words": "water leaf ",
        "one word": "x",
        "control characters": "\x1b",
        "long matching words": "brewing" * 50 + " ",
    }
    for name, unit in shapes.items():
        text = (unit * (200_000 // len(unit) + 1))[:200_000]
        started = time.perf_counter()
        shown = highlighted(text, terms)
        seconds = time.perf_counter() - started
        assert seconds < 10, f"{name}: {seconds:.1f} s"
        assert shown.plain == literal(text)
        if name == "matching words":
            assert len(shown.spans) == len(text.split())  # every word, once


def test_a_passage_keeps_its_line_breaks_and_escapes_the_rest() -> None:
    shown = highlighted("first line\r\nsecond \x1b[2J line\nthird\rend", frozenset())
    assert shown.plain == "first line\nsecond \\x1b[2J line\nthird\\x0dend"
    # names and IDs stay on one line: a line break there is shown as an escape
    assert literal_text("a\nb").plain == "a\\x0ab"
