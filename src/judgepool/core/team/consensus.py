"""The consensus rules: how one grade per (query, document) is chosen from the
grades its raters currently hold, as plain rows (the store reads them; the
rules are here, so they can be read and tested without a database).

A rater's current grade of an item is a `HeldGrade`: who holds it, the grade,
when it was first given (``since``, a ledger position: an undo that brings a
grade back dates it from when it was given, not from the undo) and the
source of the event that gave it: ``human`` (a person), ``import:…``
(imported qrels) or ``model:NAME`` (a model's label). Unsure is never a
grade. An adjudication, a grade given to settle a disagreement, is not an
annotation: it is held apart (``adjudications``) and only the
``adjudicated`` rule reads it.

People, imports and adjudications are the judgments; a model's labels are
evidence (`judged_grades`). Before any rule runs, every model's grade is set
aside: it never enters the judged universe, never overrides and never fills
in for another grade. Only when asked (``with_model``, the command line's
``--with-model NAME``) does one model's label count, and then only for an
item nobody else graded nor settled: a hole that model labelled.

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
out, and what the universe rests on (`Provenance`: how many of its grades
came from people, imports, adjudications and each model, and the models'
labels left out); the store only reads the rows, and the services add the
digest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from judgepool.core.team.raters import IMPORT_PREFIX, MODEL_PREFIX

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


HUMAN: Final = "human"
"""The source of a grade a person gave (in the app, the command line or a browser)."""

GradeSource = Literal["people", "imports", "adjudications", "models"]


@dataclass(frozen=True)
class HeldGrade:
    """One rater's current grade of an item, and the source of the event that
    gave it (``human``, ``import:…`` or ``model:NAME``)."""

    rater: str
    grade: int
    since: int
    source: str = HUMAN

    @property
    def person(self) -> bool:
        return self.source == HUMAN

    @property
    def model(self) -> str | None:
        """The model's name (``NAME`` of ``model:NAME``); None for a person or an import."""
        return self.source[len(MODEL_PREFIX) :] if self.source.startswith(MODEL_PREFIX) else None

    @property
    def kind(self) -> GradeSource:
        if self.source.startswith(MODEL_PREFIX):
            return "models"
        if self.source.startswith(IMPORT_PREFIX):
            return "imports"
        return "people"


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


def judged_grades(item: ItemGrades, with_model: str | None = None) -> ItemGrades:
    """``item`` as the rules read it: every model's grade set aside; with
    ``with_model`` (a model's NAME), that model's grade kept where it is the
    only grade of the item (nobody else graded it, no adjudicator settled it)."""
    kept = tuple(held for held in item.grades if held.model is None)
    if len(kept) == len(item.grades):
        return item
    if not kept and not item.adjudications and with_model is not None:
        kept = tuple(held for held in item.grades if held.model == with_model)
    return ItemGrades(item.query_id, item.doc_id, kept, item.adjudications)


# Which holder of an agreed grade the provenance names: a person before an
# import before a model (a grade that people and NIST agree on rests on people).
_PRECEDENCE: Final[dict[GradeSource, int]] = {
    "people": 0,
    "imports": 1,
    "adjudications": 2,
    "models": 3,
}


def used_grade(item: ItemGrades, rule: Rule) -> HeldGrade | None:
    """The grade ``rule`` takes for ``item`` (as `judged_grades` left it),
    with who holds it: the adjudication that settles it, the latest grade, or
    (when the grade is agreed, or a median) its first holder in precedence
    people, imports, models; None when the rule leaves the item out."""
    grade = resolve(item, rule)
    if grade is None:
        return None
    if rule == "adjudicated" and item.adjudicated is not None:
        return max(item.adjudications, key=lambda held: held.since)
    if rule == "latest" and item.disagree:
        return item.ordered[-1]
    holders = [held for held in item.ordered if held.grade == grade]
    if rule == "adjudicated":
        holders = [held for held in holders if held.person] or holders
    return min(holders, key=lambda held: _PRECEDENCE[held.kind])


@dataclass(frozen=True)
class Provenance:
    """What a judged universe rests on: how many of its grades came from
    people, imports, adjudications and each model counted (``models``, empty
    unless one was asked for), and the models' labels that were not used:
    ``unused[NAME] = (labels, alone)``, its labels that are no grade of the
    universe, and how many of those are on items nobody else graded (what
    ``--with-model NAME`` would count). ``origin``: ``workspace`` or ``qrels
    file`` (a file's grades are all counted as imports)."""

    people: int = 0
    imports: int = 0
    adjudications: int = 0
    models: Mapping[str, int] = field(default_factory=dict)
    unused: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    with_model: str | None = None
    origin: str = "workspace"

    @property
    def grades(self) -> int:
        return self.people + self.imports + self.adjudications + sum(self.models.values())

    def to_dict(self) -> dict[str, Any]:
        """The ``judgments`` object of every JSON output: what the numbers rest
        on. The labels left out are not in it (`left_out_line` says them), so
        a model labelling holes leaves the JSON as it was."""
        return {
            "people": self.people,
            "imports": self.imports,
            "adjudications": self.adjudications,
            "models": dict(sorted(self.models.items())),
            "with_model": self.with_model,
            "origin": self.origin,
        }

    def line(self) -> str:
        """One line for people: what the numbers rest on."""
        if self.origin != "workspace":
            return f"{self.grades:,} grades from the {self.origin}"
        parts = [
            f"{self.people:,} people's",
            f"{self.imports:,} imported",
            f"{self.adjudications:,} "
            + ("adjudication" if self.adjudications == 1 else "adjudications"),
        ]
        parts += [
            f"{count:,} of model:{name}'s labels, on items nobody else graded"
            for name, count in sorted(self.models.items())
        ]
        return f"{self.grades:,} grades: " + ", ".join(parts)

    def left_out_line(self) -> str | None:
        """One line on the models' labels the numbers do not rest on (None:
        there are none). Commands print it apart from their results (on
        standard error), so labelling holes with a model leaves a command's
        default output exactly as it was."""
        parts = []
        for name, (labels, alone) in sorted(self.unused.items()):
            noun = "label" if labels == 1 else "labels"
            if name == self.with_model:
                parts.append(
                    f"model:{name}'s other {labels:,} {noun} not used "
                    "(on items someone else graded)"
                )
            elif alone:
                parts.append(
                    f"model:{name}'s {labels:,} {noun} not used ({alone:,} on items nobody else "
                    f"graded: --with-model {name} to count those)"
                )
            else:
                parts.append(f"model:{name}'s {labels:,} {noun} not used (on items graded)")
        return "; ".join(parts) if parts else None


def file_provenance(grades: int, origin: str = "qrels file") -> Provenance:
    """The provenance of judgments read from a file: every grade an import's."""
    return Provenance(imports=grades, origin=origin)


@dataclass(frozen=True)
class Disagreement:
    """An item whose raters hold different grades, and how each rule resolves it."""

    query_id: str
    doc_id: str
    grades: tuple[tuple[str, int], ...]  # (rater, grade), in the order they were given
    adjudicators: tuple[str, ...]  # who adjudicated it, in the order they did
    # each rule's grade, models' labels set aside (`judged_grades`); None: the
    # rule leaves the item out (or only models graded it)
    latest: int | None
    median: int | None
    adjudicated: int | None
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
    """``item`` as a disagreement: every rater's grade in the order given
    (models' too: the listing compares a model when it is named), who settled
    it, and its grade under each rule (`resolve`) with the models' labels set
    aside, as the judged universe takes it."""
    ordered = item.ordered
    judged = judged_grades(item)
    return Disagreement(
        query_id=item.query_id,
        doc_id=item.doc_id,
        grades=tuple((held.rater, held.grade) for held in ordered),
        adjudicators=tuple(
            held.rater for held in sorted(item.adjudications, key=lambda held: held.since)
        ),
        latest=resolve(judged, "latest"),
        median=resolve(judged, "median"),
        adjudicated=resolve(judged, "adjudicated"),
        people=tuple(held.rater for held in ordered if held.person),
    )


@dataclass(frozen=True)
class Consensus:
    """The judged universe under one rule, what it rests on (`Provenance`),
    and the disagreements: every one (between any raters, models included),
    and the ones the rule left out of the universe (``unresolved``)."""

    rule: Rule
    judgments: dict[str, dict[str, int]]
    disagreements: tuple[Disagreement, ...]
    unresolved: tuple[Disagreement, ...]
    provenance: Provenance = field(default_factory=Provenance)

    @property
    def judged(self) -> int:
        return sum(len(docs) for docs in self.judgments.values())


def consensus(items: Iterable[ItemGrades], rule: Rule, with_model: str | None = None) -> Consensus:
    """One grade per item under ``rule`` (items it leaves out have none), with
    the disagreements in the order of ``items``. Models' labels are evidence,
    not judgments (`judged_grades`): ``with_model`` names the one model whose
    labels count, on items nobody else graded."""
    judgments: dict[str, dict[str, int]] = {}
    disagreements: list[Disagreement] = []
    unresolved: list[Disagreement] = []
    used: Counter[GradeSource] = Counter()
    models: Counter[str] = Counter()
    unused: dict[str, list[int]] = {}
    for item in items:
        if len(item.grades) == 1 and not item.adjudications:
            (only,) = item.grades
            kind = only.kind
            if kind != "models":
                # one person's or one import's grade, the most common item by
                # far: what every step below gives it, without the steps (the
                # app's scores read every item when they open)
                judgments.setdefault(item.query_id, {})[item.doc_id] = only.grade
                used[kind] += 1
                continue
        judged = judged_grades(item, with_model)
        held = used_grade(judged, rule)
        if held is not None:
            judgments.setdefault(item.query_id, {})[item.doc_id] = held.grade
            used["adjudications" if held in item.adjudications else held.kind] += 1
            if held.model is not None:
                models[held.model] += 1
        nobody_else = not any(found.model is None for found in item.grades) and (
            not item.adjudications
        )
        for found in item.grades:
            if found.model is not None and found is not held:
                counts = unused.setdefault(found.model, [0, 0])
                counts[0] += 1
                counts[1] += nobody_else
        if item.disagree:
            found_disagreement = disagreement(item)
            disagreements.append(found_disagreement)
            if held is None and (judged.grades or judged.adjudications):
                unresolved.append(found_disagreement)
    provenance = Provenance(
        people=used["people"],
        imports=used["imports"],
        adjudications=used["adjudications"],
        models=dict(models),
        unused={name: (labels, alone) for name, (labels, alone) in unused.items()},
        with_model=with_model,
    )
    return Consensus(rule, judgments, tuple(disagreements), tuple(unresolved), provenance)
