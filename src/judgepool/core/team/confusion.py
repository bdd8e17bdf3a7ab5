"""How far to trust a model's grades: the reference-by-model confusion table.

The reference is chosen per item. Where people graded an item the model
graded, the pair (person's grade, model's grade) counts once per person;
where no person did, an imported grade (qrels such as NIST's, the rater
``import:FILE`` or the name they were imported as) counts once per import
instead, so a model labelling imported qrels can be calibrated without a
person grading them all again. ``against`` narrows it: ``people`` only (as
before imports counted), ``imports`` only (on every item an import graded,
whoever else did), or ``both`` (the default). The table says which reference
it used on how many items (`Confusion.by_people`, `Confusion.by_imports`).

Rows are the reference's grades, columns the model's. A row's shares are its
counts over its total. Per row (a grade the reference gave), the model is
*too generous* where it gave more and *too strict* where it gave less; the
mean gap is the mean of model minus reference there. People (and, where no
person graded, imports) are the reference because they are what the model's
labels stand in for, not because they never err.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

Against = Literal["both", "people", "imports"]
AGAINST: Final[tuple[Against, ...]] = ("both", "people", "imports")
ReferenceKind = Literal["people", "imports"]


@dataclass(frozen=True)
class Reference:
    """The grades of one kind the model was set against: who gave them (the
    people, or the imports), on how many items, in how many pairs (one per
    rater per item)."""

    kind: ReferenceKind
    raters: tuple[str, ...] = ()
    items: int = 0
    pairs: int = 0

    def words(self, *, only_where_no_person: bool = False) -> str:
        """``people on 120 items``; ``imports (import:nist) on 1,170 items where
        no person graded`` (the names as given: the caller shows them literally)."""
        names = f" ({', '.join(self.raters)})" if self.kind == "imports" and self.raters else ""
        where = " where no person graded" if only_where_no_person else ""
        return f"{self.kind}{names} on {self.items:,} {_items(self.items)}{where}"


def _items(count: int) -> str:
    return "item" if count == 1 else "items"


@dataclass(frozen=True)
class GradeLean:
    """One row: how the model graded the items its reference gave ``grade``."""

    grade: int
    pairs: int
    same: int
    generous: int
    strict: int
    gap_sum: int

    def share(self, count: int) -> float | None:
        return count / self.pairs if self.pairs else None

    @property
    def mean_gap(self) -> float | None:
        return self.gap_sum / self.pairs if self.pairs else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "grade": self.grade,
            "pairs": self.pairs,
            "same": self.share(self.same),
            "too_generous": self.share(self.generous),
            "too_strict": self.share(self.strict),
            "mean_gap": self.mean_gap,
        }


@dataclass(frozen=True)
class Confusion:
    """The table of one model against its reference (see the module)."""

    model: str
    grades: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]
    by_people: Reference
    by_imports: Reference = Reference("imports")
    against: Against = "both"

    @property
    def people(self) -> tuple[str, ...]:
        """The people whose grades are in the table."""
        return self.by_people.raters

    @property
    def imports(self) -> tuple[str, ...]:
        """The imports whose grades are in the table."""
        return self.by_imports.raters

    @property
    def items(self) -> int:
        """The items in the table, whatever their reference."""
        return self.by_people.items + self.by_imports.items

    @property
    def pairs(self) -> int:
        return sum(sum(row) for row in self.counts)

    def references(self) -> tuple[Reference, ...]:
        """The references the table holds items of, people first."""
        return tuple(ref for ref in (self.by_people, self.by_imports) if ref.items)

    def reference_words(self) -> str:
        """Which reference the table is against, each with its items:
        ``people on 120 items and imports (import:nist) on 1,170 items where no
        person graded``; with no item, what was looked for."""
        found = self.references()
        if not found:
            return {"both": "people or imports", "people": "people", "imports": "imports"}[
                self.against
            ]
        return " and ".join(
            ref.words(only_where_no_person=ref.kind == "imports" and self.against == "both")
            for ref in found
        )

    def row_shares(self) -> tuple[tuple[float | None, ...], ...]:
        """Each count over its row's total (None for an empty row)."""
        return tuple(
            tuple(count / sum(row) if sum(row) else None for count in row) for row in self.counts
        )

    def leanings(self) -> tuple[GradeLean, ...]:
        found = []
        for i, given in enumerate(self.grades):
            row = self.counts[i]
            found.append(
                GradeLean(
                    given,
                    sum(row),
                    row[i],
                    sum(row[i + 1 :]),
                    sum(row[:i]),
                    sum(
                        count * (model - given)
                        for model, count in zip(self.grades, row, strict=True)
                    ),
                )
            )
        return tuple(found)

    def totals(self) -> tuple[int, int, int]:
        """(same, too generous, too strict) over every pair."""
        rows = self.leanings()
        return (
            sum(r.same for r in rows),
            sum(r.generous for r in rows),
            sum(r.strict for r in rows),
        )

    def line(self) -> str:
        """The table in one line: against what, how often the model agrees,
        leans up or down, and the grade where each leaning is worst."""
        if not self.pairs:
            return f"{self.model} vs {self.reference_words()}: no item graded by both"
        same, generous, strict = self.totals()
        pairs = self.pairs
        text = (
            f"{self.model} vs {self.reference_words()} "
            f"({pairs:,} {'pair' if pairs == 1 else 'pairs'}): "
            f"same grade {same / pairs:.2f}, too generous {generous / pairs:.2f}, "
            f"too strict {strict / pairs:.2f}"
        )
        worst = []
        rows = [r for r in self.leanings() if r.pairs]
        up = max(rows, key=lambda r: (r.generous / r.pairs, -r.grade))
        if up.generous:
            worst.append(f"most generous on grade {up.grade} ({up.generous / up.pairs:.2f} higher)")
        down = max(rows, key=lambda r: (r.strict / r.pairs, r.grade))
        if down.strict:
            worst.append(
                f"most strict on grade {down.grade} ({down.strict / down.pairs:.2f} lower)"
            )
        return text + ("; " + ", ".join(worst) if worst else "")

    def to_dict(self) -> dict[str, Any]:
        """The table; ``reference``: the items of each reference (people, and
        imports where no person graded under ``against`` both)."""
        return {
            "model": self.model,
            "against": self.against,
            "people": list(self.people),
            "imports": list(self.imports),
            "reference": {"people": self.by_people.items, "imports": self.by_imports.items},
            "items": self.items,
            "pairs": self.pairs,
            "grades": list(self.grades),
            "counts": [list(row) for row in self.counts],
            "row_shares": [list(row) for row in self.row_shares()],
            "per_grade": [lean.to_dict() for lean in self.leanings()],
        }


def confusion(
    model: str,
    grades: Sequence[int],
    pairs: Iterable[tuple[int, int]],
    people: Sequence[str],
    items: int,
    *,
    imported: Iterable[tuple[int, int]] = (),
    imports: Sequence[str] = (),
    import_items: int = 0,
    against: Against = "both",
) -> Confusion:
    """The table on the scale's ``grades`` from (person's grade, model's grade)
    ``pairs`` on ``items`` distinct items graded by ``people``, and from
    (imported grade, model's grade) pairs ``imported`` on ``import_items``
    items graded by ``imports``; ``against``: the choice that made them."""
    index = {grade: i for i, grade in enumerate(grades)}
    counts = [[0] * len(grades) for _ in grades]

    def count(found: Iterable[tuple[int, int]]) -> int:
        total = 0
        for reference, labelled in found:
            counts[index[reference]][index[labelled]] += 1
            total += 1
        return total

    by_people = Reference("people", tuple(people), items, count(pairs))
    by_imports = Reference("imports", tuple(imports), import_items, count(imported))
    return Confusion(
        model,
        tuple(grades),
        tuple(tuple(row) for row in counts),
        by_people,
        by_imports,
        against,
    )
