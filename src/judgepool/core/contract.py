"""The evaluation contract: every choice behind a score, as one frozen, validated value.

`Contract` holds the parameters of ``evaluation-contract.md``. It validates itself
on construction (so an invalid contract cannot exist), serialises to a plain dict
for JSON and storage, and takes part in the fingerprint that ties a result to
the judgments and the run it was computed from.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Final

from judgepool.core.errors import ContractError
from judgepool.core.limits import GRADE_LIMIT, MAX_K, NOT_AN_INTEGER, bounded_int
from judgepool.core.tokens import parse_decimal

UNIVERSES: Final = ("judged", "candidates")
UNJUDGED_POLICIES: Final = ("reject", "zero", "condense")
DUPLICATE_POLICIES: Final = ("reject", "first")
TIE_POLICIES: Final = ("trec_eval", "docid", "rank", "input")
ZERO_IDCG_POLICIES: Final = ("zero", "one", "exclude")
MISSING_POLICIES: Final = ("zero", "skip")


@dataclass(frozen=True)
class Scale:
    """The integer grades allowed, ``minimum..maximum`` inclusive, within
    ``-GRADE_LIMIT..GRADE_LIMIT`` (see `judgepool.core.limits`)."""

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


def _parse_gain(spec: str, scale: Scale) -> dict[int, float]:
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


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ContractError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def _integer_within(name: str, value: object, low: int, high: int, kind: str) -> None:
    """``value`` is an int of ``low..high`` (``kind`` names the lower end for people)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ContractError(f"{name} must be {kind}, got {value!r}")
    if value > high:
        raise ContractError(f"{name} must be at most {high}, got {value}")


@dataclass(frozen=True)
class Contract:
    """Every parameter of an evaluation. Defaults are the first value of each row
    of the contract's table; `preset` builds the named presets."""

    k: int = 10
    scale: Scale = field(default_factory=Scale)
    gain: str = "linear"
    universe: str = "judged"
    unjudged: str = "reject"
    duplicates: str = "reject"
    entity: str | None = None
    ties: str = "trec_eval"
    zero_idcg: str = "zero"
    missing: str = "zero"
    relevant_from: int = 1

    def __post_init__(self) -> None:
        _integer_within("k", self.k, 1, MAX_K, "a positive integer")
        if not isinstance(self.scale, Scale):
            raise ContractError(f"scale must be a Scale, got {self.scale!r}")
        if not isinstance(self.gain, str):
            raise ContractError(f"gain must be a string, got {self.gain!r}")
        largest = max(self.gains.values())  # also validates the gain spec against the scale
        if not math.isfinite(largest * self.k):
            # DCG at k is at most the largest gain times k: it must stay a finite double
            raise ContractError(
                f"gains this large overflow: the largest gain ({largest:g}) times k ({self.k}) "
                "is not a finite number; choose smaller gains or a smaller k"
            )
        _choice("universe", self.universe, UNIVERSES)
        _choice("unjudged", self.unjudged, UNJUDGED_POLICIES)
        _choice("duplicates", self.duplicates, DUPLICATE_POLICIES)
        _choice("ties", self.ties, TIE_POLICIES)
        _choice("zero_idcg", self.zero_idcg, ZERO_IDCG_POLICIES)
        _choice("missing", self.missing, MISSING_POLICIES)
        _integer_within(
            "relevant_from",
            self.relevant_from,
            -GRADE_LIMIT,
            GRADE_LIMIT,
            f"an integer of at least {-GRADE_LIMIT}",
        )
        if self.entity is not None:
            if not isinstance(self.entity, str) or not self.entity:
                raise ContractError("entity must be a non-empty regular expression or absent")
            try:
                re.compile(self.entity)
            except re.error as exc:
                raise ContractError(f"entity is not a valid regular expression: {exc}") from None

    # cached_property writes to __dict__, which a frozen dataclass still has.
    @cached_property
    def gains(self) -> dict[int, float]:
        """Gain of each grade of the scale."""
        return _parse_gain(self.gain, self.scale)

    def gain_of(self, grade: int | None) -> float:
        """Gain of a grade; an unjudged document (None) and grades ≤ 0 give 0."""
        if grade is None or grade <= 0:
            return 0.0
        return self.gains[grade]

    @cached_property
    def entity_pattern(self) -> re.Pattern[str] | None:
        return re.compile(self.entity) if self.entity else None

    def entity_of(self, doc_id: str) -> str:
        """The judged entity a run's document ID stands for.

        With an ``entity`` pattern matching at the start of the ID, the entity is
        its first group (or the whole match when it has no group); an ID the
        pattern does not match is its own entity.
        """
        pattern = self.entity_pattern
        if pattern is None:
            return doc_id
        match = pattern.match(doc_id)
        if match is None:
            return doc_id
        return match.group(1) if pattern.groups else match.group(0)

    def with_changes(self, **changes: Any) -> Contract:
        """A copy with some parameters changed (validated like any contract)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain values, as stored and printed: the scale as ``MIN..MAX``."""
        data = asdict(self)
        data["scale"] = str(self.scale)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Contract:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ContractError(f"unknown contract parameter(s): {', '.join(sorted(unknown))}")
        values = dict(data)
        if isinstance(values.get("scale"), str):
            values["scale"] = Scale.parse(values["scale"])
        return cls(**values)

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def fingerprint(self, qrels_digest: str, run_digest: str) -> str:
        """sha256 over the contract and both digests: equal fingerprints mean the
        same numbers, computed the same way, from the same inputs."""
        payload = json.dumps(
            {"contract": self.to_dict(), "qrels_digest": qrels_digest, "run_digest": run_digest},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def describe(self) -> str:
        """One line naming every parameter, for people."""
        entity = self.entity if self.entity else "identity"
        return (
            f"k={self.k} gain={self.gain} universe={self.universe} unjudged={self.unjudged} "
            f"duplicates={self.duplicates} ties={self.ties} zero_idcg={self.zero_idcg} "
            f"missing={self.missing} relevant_from={self.relevant_from} scale={self.scale} "
            f"entity={entity}"
        )


PRESETS: Final[dict[str, dict[str, Any]]] = {
    # trec_eval's ndcg_cut_k with -c: linear gain over every judged document,
    # unjudged documents gain 0, score-then-docid-descending ties, absent
    # judged queries score 0. trec_eval refuses duplicate documents.
    "trec_eval": {
        "gain": "linear",
        "universe": "judged",
        "unjudged": "zero",
        "duplicates": "reject",
        "ties": "trec_eval",
        "zero_idcg": "zero",
        "missing": "zero",
    },
}


def preset(name: str, **overrides: Any) -> Contract:
    """The named preset, with any parameter given explicitly taking precedence."""
    if name not in PRESETS:
        raise ContractError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return Contract(**{**PRESETS[name], **overrides})
