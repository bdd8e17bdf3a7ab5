"""How far to trust a model's grades: the person-by-model confusion table.

On every item a model (``model:NAME``) and a person both graded, the pair
(person's grade, model's grade) counts once per person: rows are the
people's grades, columns the model's. A row's shares are its counts over
its total. Per row (a grade people gave), the model is *too generous* where
it gave more and *too strict* where it gave less; the mean gap is the mean
of model minus person there. People are the reference here because they
are what the model's labels stand in for, not because they never err.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GradeLean:
    """One row: how the model graded the items people gave ``grade``."""

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
    """The table of one model against the people (see the module)."""

    model: str
    grades: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]
    people: tuple[str, ...]
    items: int

    @property
    def pairs(self) -> int:
        return sum(sum(row) for row in self.counts)

    def row_shares(self) -> tuple[tuple[float | None, ...], ...]:
        """Each count over its row's total (None for an empty row)."""
        return tuple(
            tuple(count / sum(row) if sum(row) else None for count in row) for row in self.counts
        )

    def leanings(self) -> tuple[GradeLean, ...]:
        found = []
        for i, person in enumerate(self.grades):
            row = self.counts[i]
            found.append(
                GradeLean(
                    person,
                    sum(row),
                    row[i],
                    sum(row[i + 1 :]),
                    sum(row[:i]),
                    sum(
                        count * (model - person)
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
        """The table in one line: how often the model agrees, leans up or down,
        and the grade where each leaning is worst."""
        if not self.pairs:
            return f"{self.model} vs people: no item graded by both"
        same, generous, strict = self.totals()
        pairs = self.pairs
        text = (
            f"{self.model} vs people on {self.items:,} {'item' if self.items == 1 else 'items'} "
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
        return {
            "model": self.model,
            "people": list(self.people),
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
) -> Confusion:
    """The table from (person's grade, model's grade) pairs, on the scale's
    ``grades``; ``items``: how many distinct items the pairs are of."""
    index = {grade: i for i, grade in enumerate(grades)}
    counts = [[0] * len(grades) for _ in grades]
    for person, labelled in pairs:
        counts[index[person]][index[labelled]] += 1
    return Confusion(
        model, tuple(grades), tuple(tuple(row) for row in counts), tuple(people), items
    )
