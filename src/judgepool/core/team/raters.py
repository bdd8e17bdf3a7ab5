"""Who the team reports compare, and what they leave out: the kinds of rater
and the one line that says what was left out and why.

A *rater* holds current grades of items: a person (an annotator grading by
hand), an import (qrels imported into the workspace, the rater
``import:FILE`` or the name given to the import) or a model (``model:NAME``,
whoever recorded its labels). Agreement, the disagreements and the
adjudication queue compare the people by default; an import or a model is
compared only when named. An adjudication, a grade given to settle a
disagreement, is no rater's annotation: agreement leaves every one out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

RaterKind = Literal["person", "import", "model"]

IMPORT_PREFIX: Final = "import:"
MODEL_PREFIX: Final = "model:"

_WHY: Final[dict[RaterKind, str]] = {
    "import": "imported judgments",
    "model": "a model's labels",
    "person": "not in --annotators",
}


def kind_of_name(name: str) -> RaterKind:
    """The kind a rater's name says (``import:…``, ``model:…``); any other name
    is a person's unless the grades it holds say otherwise (an import recorded
    under a name of its own)."""
    if name.startswith(MODEL_PREFIX):
        return "model"
    if name.startswith(IMPORT_PREFIX):
        return "import"
    return "person"


@dataclass(frozen=True)
class LeftOutRater:
    """A rater with grades that a report does not compare."""

    rater: str
    kind: RaterKind
    items: int

    @property
    def reason(self) -> str:
        return _WHY[self.kind]

    def to_dict(self) -> dict[str, Any]:
        return {"rater": self.rater, "kind": self.kind, "items": self.items, "reason": self.reason}


@dataclass(frozen=True)
class LeftOut:
    """What a report left out: raters, and (agreement only: None where the
    report uses them) the current adjudications."""

    raters: tuple[LeftOutRater, ...] = ()
    adjudications: int | None = None

    @property
    def nothing(self) -> bool:
        return not self.raters and not self.adjudications

    def line(self, shown: Callable[[str], str] = str, *, hint: bool = True) -> str:
        """One line for people: ``left out: NAME (why, N items), …``; ``shown``
        renders a name (the command line's `judgepool.display.literal`);
        ``hint``: say how to compare a rater left out (on the command line)."""
        parts = [
            f"{shown(found.rater)} ({found.reason}, {found.items:,} "
            f"{'item' if found.items == 1 else 'items'})"
            for found in self.raters
        ]
        if self.adjudications:
            many = "adjudication" if self.adjudications == 1 else "adjudications"
            parts.append(f"{self.adjudications:,} {many} (not annotations)")
        if not parts:
            return "left out: nothing"
        text = "left out: " + ", ".join(parts)
        if hint and any(found.kind != "person" for found in self.raters):
            text += "; name an import or a model in --annotators to compare it"
        return text

    def to_dict(self) -> dict[str, Any]:
        """``{raters: [{rater, kind, items, reason}], adjudications}`` (the
        adjudications only where the report leaves them out)."""
        data: dict[str, Any] = {"raters": [found.to_dict() for found in self.raters]}
        if self.adjudications is not None:
            data["adjudications"] = self.adjudications
        return data


def left_out(
    kinds: dict[str, RaterKind],
    items: dict[str, int],
    compared: Sequence[str],
    adjudications: int | None = None,
) -> LeftOut:
    """The raters of ``kinds`` not in ``compared`` (imports, then models, then
    people not named, each by name), with the items each holds a grade of."""
    order: dict[RaterKind, int] = {"import": 0, "model": 1, "person": 2}
    rest = sorted(
        (name for name in kinds if name not in compared),
        key=lambda name: (order[kinds[name]], name),
    )
    found = tuple(LeftOutRater(name, kinds[name], items.get(name, 0)) for name in rest)
    return LeftOut(found, adjudications)
