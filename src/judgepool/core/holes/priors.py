"""What a hole's grade probably is: the priors of the probable verdicts.

A *hole* is an unjudged document in some compared run's top k
(`judgepool.core.comparing.bounds`). The exact bounds let it take any grade; a probable
verdict weighs each grade by how likely it is, and this module says how
likely (docs/evaluation-contract.md, "Probable verdicts"):

- ``runs`` (the default): which compared runs retrieved the hole and at
  which ranks, and how relevant its query's judged documents are, in an
  ordinal model fitted on the judged documents of the runs' top k, its
  parameters drawn with the grades so the interval widens where the fit is
  unsure (`judgepool.core.holes.hole_prior`). Where the judged documents are too
  few to fit it, the rank prior stands in (and the comparison says so).
- ``rank``: the grades of the judged documents found at the same best rank
  in the compared runs' top k, on the comparison's queries. Deeper documents
  are less often relevant, and a run's own judged documents are the only
  evidence about its unjudged neighbours that needs nothing more.
- ``model:NAME``: a model graded the hole; the prior is what people gave the
  items the model graded the same way, so a generous model's 3 counts for
  what people make of its 3s. A hole the model did not grade takes the runs
  prior (the rank prior where that cannot be fitted).

The rank and model tables are add-one smoothed over the scale's grades, so no
grade is impossible however few documents were counted (a rank nobody judged
gives the uniform distribution).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import numpy as np

from judgepool.core.comparing.bounds import TopK
from judgepool.core.holes.hole_prior import PriorCheck, RunsPrior
from judgepool.core.team.agreement import cohen_kappa
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError

# fewer items with both a person's and the model's grade than this, and the
# model prior is refused: its table would be mostly the smoothing
MODEL_PRIOR_MINIMUM: Final = 30

PRIOR_KINDS: Final = ("runs", "rank", "model:NAME")
DEFAULT_PRIOR: Final = "runs"

Counts = dict[int, dict[int, int]]  # condition (a rank, or a model's grade) -> grade -> count


@dataclass(frozen=True)
class ModelLabels:
    """A model's grades (query -> document -> grade), by the model's name:
    evidence about the holes, never judgments."""

    name: str
    labels: Mapping[str, Mapping[str, int]]


@dataclass(frozen=True)
class RankPrior:
    """n[r][g]: the judged documents whose best rank among the compared runs'
    top k is r, by grade; and the scale's grades."""

    counts: Counts
    grades: tuple[int, ...]

    def probabilities(self, rank: int) -> tuple[float, ...]:
        """π(g | rank) for each grade of the scale, in scale order."""
        return smoothed(self.counts.get(rank, {}), self.grades)

    @property
    def items(self) -> int:
        return sum(sum(row.values()) for row in self.counts.values())


@dataclass(frozen=True)
class ModelPrior:
    """c[m][g]: the items that have both the model's grade m and a judgment g;
    the model's name, its grades of the holes' items, and its linear κ with
    the judgments on the items counted."""

    name: str
    counts: Counts
    grades: tuple[int, ...]
    labels: Mapping[str, Mapping[str, int]]
    kappa_linear: float | None

    def probabilities(self, model_grade: int) -> tuple[float, ...]:
        """π(g | m) for each grade of the scale, in scale order."""
        return smoothed(self.counts.get(model_grade, {}), self.grades)

    @property
    def items(self) -> int:
        return sum(sum(row.values()) for row in self.counts.values())

    def label(self, query_id: str, doc_id: str) -> int | None:
        return self.labels.get(query_id, {}).get(doc_id)


@dataclass(frozen=True)
class Prior:
    """The prior a comparison's draws use: the rank prior, the runs prior
    over it when asked for and it could be fitted, and a model prior over
    both when one is asked for."""

    rank: RankPrior
    model: ModelPrior | None = None
    # holes the model graded (the rest took the runs or rank prior); set by `hole_priors`
    model_holes: int = field(default=0, compare=False)
    runs: RunsPrior | None = field(default=None, compare=False)
    # the runs prior's check on the judged documents (`core.holes.prior_draws.check_prior`)
    check: PriorCheck | None = field(default=None, compare=False)

    @property
    def kind(self) -> str:
        if self.model is not None:
            return f"model:{self.model.name}"
        return "rank" if self.runs is None else "runs"

    def of(self, query_id: str, doc_id: str, best_rank: int) -> tuple[float, ...]:
        """The probabilities of a hole's grades, in scale order."""
        if self.model is not None:
            label = self.model.label(query_id, doc_id)
            if label is not None:
                return self.model.probabilities(label)
        if self.runs is not None:
            return self.runs.of(query_id, doc_id)
        return self.rank.probabilities(best_rank)

    def drawn(self, rng: np.random.Generator) -> Prior:
        """The prior with the runs prior's parameters drawn from their
        posterior (the same prior when it has none to draw)."""
        if self.runs is None:
            return self
        return replace(self, runs=self.runs.drawn(rng))

    def labelled(self, query_id: str, doc_id: str) -> bool:
        """Whether the hole's prior is the model's (it graded the hole)."""
        return self.model is not None and self.model.label(query_id, doc_id) is not None

    def to_dict(self) -> dict[str, Any]:
        """The ``prior`` of ``compare --format json`` (docs/evaluation-contract.md)."""
        chosen = self.rank if self.model is None else self.model
        data: dict[str, Any] = {
            "kind": self.kind,
            "counts": _counts_dict(chosen.counts),
            "items": chosen.items
            if self.runs is None or self.model is not None
            else self.runs.fit.documents,
            "model_kappa_linear": None if self.model is None else self.model.kappa_linear,
        }
        if self.model is not None:
            # the holes the model did not grade take the rank prior: its counts too
            data["rank_counts"] = _counts_dict(self.rank.counts)
            data["model_holes"] = self.model_holes
        if self.runs is not None:
            data["runs_fit"] = self.runs.fit.to_dict()
            data["check"] = None if self.check is None else self.check.to_dict()
        return data


def _counts_dict(counts: Counts) -> dict[str, dict[str, int]]:
    return {
        str(condition): {str(grade): n for grade, n in sorted(row.items())}
        for condition, row in sorted(counts.items())
    }


def prior_model(text: str) -> str | None:
    """The model a ``--prior`` names (``model:NAME``), None for ``runs`` or
    ``rank``; anything else refused."""
    if text in ("runs", "rank"):
        return None
    kind, separator, name = text.partition(":")
    if kind == "model" and separator and name.strip():
        return name
    raise ContractError(f"--prior must be runs, rank or model:NAME (a model's name); got {text!r}")


def smoothed(row: Mapping[int, int], grades: Sequence[int]) -> tuple[float, ...]:
    """(n[g] + 1) / (Σ n + G) for each grade g of ``grades``."""
    total = sum(row.get(g, 0) for g in grades) + len(grades)
    return tuple((row.get(g, 0) + 1) / total for g in grades)


def best_ranks(
    tops: Sequence[Mapping[str, TopK]], queries: Sequence[str], k: int
) -> dict[str, dict[str, tuple[int, int | None]]]:
    """Per query of ``queries``, each document of any run's top k with its
    best (smallest, 1-based) rank among the runs and its grade (None: a hole)."""
    found: dict[str, dict[str, tuple[int, int | None]]] = {}
    for query_id in queries:
        documents: dict[str, tuple[int, int | None]] = {}
        for top in tops:
            for rank, (doc, grade) in enumerate(top.get(query_id, ())[:k], start=1):
                seen = documents.get(doc)
                if seen is None or rank < seen[0]:
                    documents[doc] = (rank, grade)
        found[query_id] = documents
    return found


def rank_prior(
    tops: Sequence[Mapping[str, TopK]], queries: Sequence[str], contract: Contract
) -> RankPrior:
    """n[r][g] over the judged documents of the compared runs' top k on
    ``queries``, each counted once, at its best rank r."""
    counts: Counts = {}
    for documents in best_ranks(tops, queries, contract.k).values():
        for rank, grade in documents.values():
            if grade is not None:
                row = counts.setdefault(rank, {})
                row[grade] = row.get(grade, 0) + 1
    return RankPrior(counts, tuple(contract.scale.grades))


def model_prior(
    name: str,
    labels: Mapping[str, Mapping[str, int]],
    judgments: Mapping[str, Mapping[str, int]],
    contract: Contract,
) -> ModelPrior:
    """c[m][g] over every judged item the model graded too (``labels``: query
    -> document -> the model's grade); refused with fewer than
    `MODEL_PRIOR_MINIMUM` such items, or a model grade off the scale."""
    grades = tuple(contract.scale.grades)
    allowed = set(grades)
    counts: Counts = {}
    people: list[float] = []
    model: list[float] = []
    for query_id, documents in labels.items():
        for doc_id, label in documents.items():
            if label not in allowed:
                raise ContractError(
                    f"model:{name} graded {query_id!r} {doc_id!r} {label}, off the scale "
                    f"{contract.scale}"
                )
            judged = judgments.get(query_id, {}).get(doc_id)
            if judged is None:
                continue
            row = counts.setdefault(label, {})
            row[judged] = row.get(judged, 0) + 1
            people.append(float(judged))
            model.append(float(label))
    if len(people) < MODEL_PRIOR_MINIMUM:
        raise ContractError(
            f"--prior model:{name} needs at least {MODEL_PRIOR_MINIMUM} items graded by both "
            f"the model and the judgments to calibrate it; {len(people)} found "
            "(use --prior rank, or label more judged items)"
        )
    kappa = cohen_kappa(np.array(people), np.array(model), "linear").value
    return ModelPrior(name, counts, grades, labels, kappa)
