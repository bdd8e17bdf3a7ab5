"""The grade scale of a workspace or an evaluation, and the gain of each grade.

`Scale` is the closed range of integer grades judgments may use (within
`judgepool.core.terms.limits.GRADE_LIMIT` of 0); `parse_gain` turns a gain
specification (``linear``, ``exponential`` or a map such as
``0=0,1=1,2=3,3=7``) into the gain of every grade of a scale. Numbers are
read with the one grammar of `judgepool.core.terms.tokens`: ASCII only.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgepool.core.terms.errors import ContractError
from judgepool.core.terms.limits import GRADE_LIMIT, NOT_AN_INTEGER, bounded_int
from judgepool.core.terms.tokens import parse_decimal


@dataclass(frozen=True)
class Scale:
    """The integer grades allowed, ``minimum..maximum`` inclusive, within
    ``-GRADE_LIMIT..GRADE_LIMIT`` (see `judgepool.core.terms.limits`)."""

    minimum: int = 0
    maximum: int = 3

    def __post_init__(self) -> None:
        for value in (self.minimum, self.maximum):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ContractError(f"scale bounds must be integers, got {value!r}")
        if self.minimum > self.maximum:
            raise ContractError(f"scale {self} is empty: its minimum exceeds its maximum")
        if self.minimum < -GRADE_LIMIT or self.maximum > GRADE_LIMIT:
            raise ContractError(
                f"scale {self} is too wide: grades must lie within {-GRADE_LIMIT}..{GRADE_LIMIT}"
            )

    def __str__(self) -> str:
        return f"{self.minimum}..{self.maximum}"

    def __contains__(self, grade: object) -> bool:
        return isinstance(grade, int) and self.minimum <= grade <= self.maximum

    @property
    def grades(self) -> range:
        return range(self.minimum, self.maximum + 1)

    @classmethod
    def parse(cls, text: str) -> Scale:
        """Read ``MIN..MAX`` (e.g. ``0..3`` or ``-1..4``; ASCII digits only)."""
        low, separator, high = text.partition("..")
        shape = f"scale must look like MIN..MAX (e.g. 0..3), got {text!r}"
        if not separator:
            raise ContractError(shape)
        try:
            bounds = [
                bounded_int(part.strip(" "), -GRADE_LIMIT, GRADE_LIMIT) for part in (low, high)
            ]
        except ValueError as exc:
            if str(exc) == NOT_AN_INTEGER:
                raise ContractError(shape) from None
            raise ContractError(
                f"scale {text!r} is too wide: grades must lie within {-GRADE_LIMIT}..{GRADE_LIMIT}"
            ) from None
        return cls(bounds[0], bounds[1])


def parse_gain(spec: str, scale: Scale) -> dict[int, float]:
    """The gain of every grade of the scale under ``spec``.

    Grades at or below zero always have gain 0: negative grades count as judged
    but never as relevant, as in trec_eval.
    """
    if spec == "linear":
        return {g: float(max(g, 0)) for g in scale.grades}
    if spec == "exponential":
        return {g: float(2**g - 1) if g > 0 else 0.0 for g in scale.grades}
    table: dict[int, float] = {}
    for part in spec.split(","):
        grade_text, separator, value_text = (piece.strip(" ") for piece in part.partition("="))
        if not separator:
            raise ContractError(
                f"gain must be 'linear', 'exponential' or a map like '0=0,1=1,2=3,3=7'; "
                f"cannot read {part!r} in {spec!r}"
            )
        try:
            grade = bounded_int(grade_text, -GRADE_LIMIT, GRADE_LIMIT)
        except ValueError as exc:
            raise ContractError(f"grade {grade_text!r} in the gain map {spec!r} {exc}") from None
        value = parse_decimal(value_text)
        if value is None or value < 0:
            raise ContractError(
                f"gain for grade {grade} must be a finite number ≥ 0 (like 3 or 0.5), "
                f"got {value_text!r}"
            )
        if grade in table:
            raise ContractError(f"gain map {spec!r} names grade {grade} twice")
        if grade <= 0 and value != 0:
            raise ContractError(f"grades ≤ 0 have gain 0; the map gives grade {grade} gain {value}")
        table[grade] = value
    missing = [g for g in scale.grades if g > 0 and g not in table]
    if missing:
        raise ContractError(
            f"gain map {spec!r} gives no gain for grade(s) {missing} of the scale {scale}"
        )
    return {g: table.get(g, 0.0) for g in scale.grades}
