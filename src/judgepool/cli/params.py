"""Command-line option types that read numbers with judgepool's one grammar.

click's ``int`` takes what Python's ``int()`` takes: full-width digits
(``１０``), Arabic-Indic digits and ``1_0`` among them, and any size. Every
integer option reads with `AsciiInteger` instead, so ``-k １０`` is refused as
the run readers refuse such a rank, and a bound (see `judgepool.core.terms.limits`)
is said in the message rather than overflowing later. Every option that takes
a fraction or seconds reads with `AsciiDecimal`: click's ``float`` and
``FloatRange`` take ``nan`` (which every comparison with a bound lets
through), ``inf`` and ``１``.
"""

from __future__ import annotations

from typing import Any

import click

from judgepool.core.terms.limits import bounded_int
from judgepool.core.terms.tokens import parse_decimal


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


# click >= 8.2 makes ParamType generic; 8.1, which pyproject allows, does not
class AsciiDecimal(click.ParamType):  # type: ignore[type-arg]
    """A finite decimal number in ASCII (`judgepool.core.terms.tokens.parse_decimal`)
    within ``low..high``, either end open (excluded) when said."""

    name = "number"

    def __init__(
        self, low: float, high: float, *, low_open: bool = False, high_open: bool = False
    ) -> None:
        self.low = low
        self.high = high
        self.low_open = low_open
        self.high_open = high_open

    def _bounds(self) -> str:
        above = f"more than {self.low:g}" if self.low_open else f"at least {self.low:g}"
        below = f"less than {self.high:g}" if self.high_open else f"at most {self.high:g}"
        return f"{above} and {below}"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            text = repr(value)  # a default given as a number
        elif isinstance(value, str):
            text = value.strip(" ")
        else:
            self.fail(f"{value!r} is not a number", param, ctx)
        number = parse_decimal(text)
        if number is None:
            self.fail(
                f"{value!r} is not a finite number in ASCII digits (such as 0.9 or 2e-3)",
                param,
                ctx,
            )
        too_low = number <= self.low if self.low_open else number < self.low
        too_high = number >= self.high if self.high_open else number > self.high
        if too_low or too_high:
            self.fail(f"{value!r} is not a number {self._bounds()}", param, ctx)
        return number

    def __repr__(self) -> str:
        return f"AsciiDecimal({self.low}, {self.high})"


def name_list(text: str, option: str) -> list[str]:
    """Names separated by commas (``--annotators a,b``), each stripped; an empty
    one is a usage error naming ``option``."""
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise click.BadParameter(
            f"an empty name in {text!r}; list names separated by commas", param_hint=option
        )
    return names
