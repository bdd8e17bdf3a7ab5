"""Command-line option types that read numbers with judgepool's one grammar.

click's ``int`` takes what Python's ``int()`` takes: full-width digits
(``１０``), Arabic-Indic digits and ``1_0`` among them, and any size. Every
integer option reads with `AsciiInteger` instead, so ``-k １０`` is refused as
the run readers refuse such a rank, and a bound (see `judgepool.core.limits`)
is said in the message rather than overflowing later.
"""

from __future__ import annotations

from typing import Any

import click

from judgepool.core.limits import bounded_int


# click >= 8.2 makes ParamType generic; 8.1, which pyproject allows, does not
class AsciiInteger(click.ParamType):  # type: ignore[type-arg]
    """An integer in ASCII digits with an optional sign, within ``low..high``."""

    name = "integer"

    def __init__(self, low: int, high: int) -> None:
        self.low = low
        self.high = high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            text = str(value)  # a default given as a number
        elif isinstance(value, str):
            text = value.strip(" ")
        else:
            self.fail(f"{value!r} is not an integer", param, ctx)
        try:
            return bounded_int(text, self.low, self.high)
        except ValueError as exc:
            self.fail(f"{value!r} {exc}", param, ctx)

    def __repr__(self) -> str:
        return f"AsciiInteger({self.low}, {self.high})"


def name_list(text: str, option: str) -> list[str]:
    """Names separated by commas (``--annotators a,b``), each stripped; an empty
    one is a usage error naming ``option``."""
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise click.BadParameter(
            f"an empty name in {text!r}; list names separated by commas", param_hint=option
        )
    return names
