"""The consensus rules: how one grade per (query, document) is chosen from the
grades its raters currently hold, as plain rows (the store reads them; the
rules are here, so they can be read and tested without a database).

A rater's current grade of an item is a `HeldGrade`: who holds it, the grade,
when it was first given (``since``, a ledger position: an undo that brings a
grade back dates it from when it was given, not from the undo) and whether a
person gave it (an event with source ``human``; imported qrels and a model's
labels are not people). Unsure is never a grade. An adjudication, a grade
given to settle a disagreement, is not an annotation: it is held apart
(``adjudications``) and only the ``adjudicated`` rule reads it.

When every grade of an item is the same (in particular when only one rater
graded it), that grade, under every rule. Otherwise:

- ``latest``: the grade given most recently (largest ``since``).
- ``median``: the median of the grades. With an even count the two middle
  grades may differ; the lower one is taken (the "low median"): grades are
  integers, and the lower choice never makes a document look more relevant
  than half of its raters said.
- ``adjudicated``: the latest adjudication of the item, when there is one.
  Without one, people's grades stand over imported and model grades: when the
  people who graded the item agree (or one person graded it), their grade;
  when they disagree, the item is unresolved and left out of the judged
  universe; when no person graded it, its grades must agree to stand.

A *disagreement* is an item whose grades differ (what the rules resolve); it
is one *between people* when the people's grades differ, which is what the
adjudication queue lists and agreement measures. It is *settled* once an
adjudicator has given it a grade.

`consensus` applies a rule to every item the store read (`ItemGrades`), and
gives the judged universe with the disagreements and what the rule left
out; the store only reads the rows, and the services add the digest.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

CONSENSUS_RULES: Final = ("latest", "median", "adjudicated")
Rule = Literal["latest", "median", "adjudicated"]


def low_median(grades: Sequence[int]) -> int:
    """The median of integer grades; with an even count, the lower middle grade."""
    ordered = sorted(grades)
    return ordered[(len(ordered) - 1) // 2]


def differ(grades: Iterable[int]) -> bool:
    """Whether the grades are not all the same (what makes a disagreement)."""
    return len(set(grades)) > 1


def gap(grades: Collection[int]) -> int:
    """How far apart one grade or more are: the highest less the lowest (0:
    none differ)."""
    return max(grades) - min(grades)


@dataclass(frozen=True)
class HeldGrade:
    """One rater's current grade of an item."""

    rater: str
    grade: int
    since: int
    person: bool = True


@dataclass(frozen=True)
class ItemGrades:
    """Every current grade of one item, and its current adjudications."""

    query_id: str
    doc_id: str
    grades: tuple[HeldGrade, ...]
    adjudications: tuple[HeldGrade, ...] = ()

    @property
    def ordered(self) -> tuple[HeldGrade, ...]:
        """The grades in the order they were given."""
        return tuple(sorted(self.grades, key=lambda held: held.since))

    @property
    def people(self) -> tuple[HeldGrade, ...]:
        return tuple(held for held in self.ordered if held.person)

    @property
    def disagree(self) -> bool:
        """The grades differ."""
        return differ(held.grade for held in self.grades)

    @property
    def adjudicated(self) -> int | None:
        """The latest adjudication's grade; None when nobody settled the item."""
        if not self.adjudications:
            return None
        return max(self.adjudications, key=lambda held: held.since).grade


def resolve(item: ItemGrades, rule: Rule) -> int | None:
    """The item's grade under ``rule``; None when the rule leaves it out (an
    ``adjudicated`` disagreement nobody settled, or no grade at all)."""
    if rule == "adjudicated":
        settled = item.adjudicated
        if settled is not None:
            return settled
        standing = item.people or item.grades
        grades = {held.grade for held in standing}
        return grades.pop() if len(grades) == 1 else None
    if not item.grades:
        return None
    if not item.disagree:
        return item.grades[0].grade
    if rule == "latest":
        return item.ordered[-1].grade
    if rule == "median":
        return low_median([held.grade for held in item.grades])
    raise ValueError(f"unknown consensus rule {rule!r}")


@dataclass(frozen=True)
class Disagreement:
    """An item whose raters hold different grades, and how each rule resolves it."""

    query_id: str
    doc_id: str
    grades: tuple[tuple[str, int], ...]  # (rater, grade), in the order they were given
    adjudicators: tuple[str, ...]  # who adjudicated it, in the order they did
    latest: int
    median: int
    adjudicated: int | None  # the adjudicated rule's grade; None: it leaves the item out
    people: tuple[str, ...] = ()  # the raters who are people (not imports or models)

    def resolved(self, rule: Rule) -> int | None:
        """The item's grade under ``rule`` (None: the rule leaves it out)."""
        return {"latest": self.latest, "median": self.median, "adjudicated": self.adjudicated}[rule]

    @property
    def settled(self) -> bool:
        """An adjudicator has given the item a grade."""
        return bool(self.adjudicators)

    @property
    def between_people(self) -> bool:
        """The people who graded it hold different grades."""
        return differ(grade for rater, grade in self.grades if rater in self.people)


def disagreement(item: ItemGrades) -> Disagreement:
    """``item`` as a disagreement: its grades in the order given, who settled
    it, and its grade under each rule (`resolve`)."""
    ordered = item.ordered
    latest = resolve(item, "latest")
    median = resolve(item, "median")
    # an item with a grade always has one under latest and median
    assert latest is not None and median is not None
    return Disagreement(
        query_id=item.query_id,
        doc_id=item.doc_id,
        grades=tuple((held.rater, held.grade) for held in ordered),
        adjudicators=tuple(
            held.rater for held in sorted(item.adjudications, key=lambda held: held.since)
        ),
        latest=latest,
        median=median,
        adjudicated=resolve(item, "adjudicated"),
        people=tuple(held.rater for held in ordered if held.person),
    )


@dataclass(frozen=True)
class Consensus:
    """The judged universe under one rule, and the disagreements: every one,
    and the ones the rule left out (``unresolved``)."""

    rule: Rule
    judgments: dict[str, dict[str, int]]
    disagreements: tuple[Disagreement, ...]
    unresolved: tuple[Disagreement, ...]

    @property
    def judged(self) -> int:
        return sum(len(docs) for docs in self.judgments.values())


def consensus(items: Iterable[ItemGrades], rule: Rule) -> Consensus:
    """One grade per item under ``rule`` (items it leaves out have none), with
    the disagreements in the order of ``items``."""
    judgments: dict[str, dict[str, int]] = {}
    disagreements: list[Disagreement] = []
    unresolved: list[Disagreement] = []
    for item in items:
        grade = resolve(item, rule)
        if grade is not None:
            judgments.setdefault(item.query_id, {})[item.doc_id] = grade
        if item.disagree:
            found = disagreement(item)
            disagreements.append(found)
            if grade is None:
                unresolved.append(found)
    return Consensus(rule, judgments, tuple(disagreements), tuple(unresolved))
