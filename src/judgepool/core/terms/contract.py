"""The evaluation contract: every choice behind a score, as one frozen, validated value.

`Contract` holds the parameters of docs/evaluation-contract.md. It validates itself
on construction (so an invalid contract cannot exist), serialises to a plain dict
for JSON and storage, and takes part in the fingerprint that ties a result to
the judgments and the run it was computed from.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Final, Literal, get_args

from judgepool.core.terms.entity_pattern import EntityPattern
from judgepool.core.terms.errors import ContractError
from judgepool.core.terms.grades import Scale, parse_gain
from judgepool.core.terms.limits import GRADE_LIMIT, MAX_K

__all__ = [
    "DUPLICATE_POLICIES",
    "MISSING_POLICIES",
    "PARAMETERS",
    "PRESETS",
    "SCORE_PRECISIONS",
    "TIE_POLICIES",
    "UNIVERSES",
    "UNJUDGED_POLICIES",
    "ZERO_IDCG_POLICIES",
    "Contract",
    "DuplicatePolicy",
    "MissingPolicy",
    "Parameter",
    "Scale",
    "ScorePrecision",
    "TiePolicy",
    "Universe",
    "UnjudgedPolicy",
    "ZeroIdcgPolicy",
    "preset",
]

# The policies, each a closed set of names: code that branches on one matches
# every case (`typing.assert_never` after the last), so mypy finds a branch a
# new value would miss.
Universe = Literal["judged", "candidates"]
UnjudgedPolicy = Literal["reject", "zero", "condense"]
DuplicatePolicy = Literal["reject", "first"]
TiePolicy = Literal["trec_eval", "docid", "rank", "input"]
ScorePrecision = Literal["double", "single"]
ZeroIdcgPolicy = Literal["zero", "one", "exclude"]
MissingPolicy = Literal["zero", "skip"]

UNIVERSES: Final[tuple[Universe, ...]] = get_args(Universe)
UNJUDGED_POLICIES: Final[tuple[UnjudgedPolicy, ...]] = get_args(UnjudgedPolicy)
DUPLICATE_POLICIES: Final[tuple[DuplicatePolicy, ...]] = get_args(DuplicatePolicy)
TIE_POLICIES: Final[tuple[TiePolicy, ...]] = get_args(TiePolicy)
SCORE_PRECISIONS: Final[tuple[ScorePrecision, ...]] = get_args(ScorePrecision)
ZERO_IDCG_POLICIES: Final[tuple[ZeroIdcgPolicy, ...]] = get_args(ZeroIdcgPolicy)
MISSING_POLICIES: Final[tuple[MissingPolicy, ...]] = get_args(MissingPolicy)

ParameterKind = Literal["integer", "scale", "gain", "choice", "pattern"]


@dataclass(frozen=True)
class Parameter:
    """How one parameter of the contract is offered to people.

    Every field of `Contract` carries one (``field(metadata=...)``), and
    everything that shows or asks for a contract is made from them: the
    command line's options, the app's contract dialog, and the contract's
    renderings. A new parameter is one field with its `Parameter`.
    """

    name: str
    kind: ParameterKind
    summary: str  # one sentence for help texts and the app
    default_text: str  # how the default is shown
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    metavar: str | None = None
    short: str | None = None  # a one-letter option, as -k
    editable: bool = True  # in the app: the scale is the workspace's and stays

    @property
    def option(self) -> str:
        """The command line's option, ``--zero-idcg`` for ``zero_idcg``."""
        return "--" + self.name.replace("_", "-")


def _about(**described: Any) -> dict[str, Parameter]:
    """A `Contract` field's metadata: its `Parameter` (the name is filled in below)."""
    return {"parameter": Parameter(name="", **described)}


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
    """Every parameter of an evaluation, in the order they are shown. Defaults
    are the first value of each row of the contract's table; `preset` builds
    the named presets."""

    k: int = field(
        default=10,
        metadata=_about(
            kind="integer",
            summary="Cutoff; missing positions add zero gain.",
            default_text="10",
            minimum=1,
            maximum=MAX_K,
            short="-k",
        ),
    )
    gain: str = field(
        default="linear",
        metadata=_about(
            kind="gain",
            summary="Gain of a grade: linear (r), exponential (2^r-1) or a map like "
            "0=0,1=1,2=3,3=7.",
            default_text="linear",
            metavar="linear|exponential|MAP",
        ),
    )
    universe: Universe = field(
        default="judged",
        metadata=_about(
            kind="choice",
            summary="Where the ideal ranking comes from: every judged document, or only the "
            "run's own candidates (candidate-only).",
            default_text="judged",
            choices=UNIVERSES,
        ),
    )
    unjudged: UnjudgedPolicy = field(
        default="reject",
        metadata=_about(
            kind="choice",
            summary="An unjudged document in the top k: refuse, gain 0, or remove it.",
            default_text="reject",
            choices=UNJUDGED_POLICIES,
        ),
    )
    duplicates: DuplicatePolicy = field(
        default="reject",
        metadata=_about(
            kind="choice",
            summary="A document repeated within a query: refuse, or keep the first.",
            default_text="reject",
            choices=DUPLICATE_POLICIES,
        ),
    )
    ties: TiePolicy = field(
        default="trec_eval",
        metadata=_about(
            kind="choice",
            summary="How the list is ordered: score then docid descending (trec_eval), "
            "score then docid ascending, the rank column, or file order.",
            default_text="trec_eval",
            choices=TIE_POLICIES,
        ),
    )
    score_precision: ScorePrecision = field(
        default="double",
        metadata=_about(
            kind="choice",
            summary="How scores are compared (to order the list and find ties): as read "
            "(double, as trec_eval 10), or each rounded to a 32-bit float first (single, as "
            "trec_eval up to 9.0.8, pytrec_eval and ir_measures).",
            default_text="double",
            choices=SCORE_PRECISIONS,
        ),
    )
    zero_idcg: ZeroIdcgPolicy = field(
        default="zero",
        metadata=_about(
            kind="choice",
            summary="Score of a query whose ideal DCG is 0: 0, 1, or left out of the mean "
            "(always counted).",
            default_text="zero",
            choices=ZERO_IDCG_POLICIES,
        ),
    )
    missing: MissingPolicy = field(
        default="zero",
        metadata=_about(
            kind="choice",
            summary="A judged query absent from the run: scored 0, or left out and counted.",
            default_text="zero",
            choices=MISSING_POLICIES,
        ),
    )
    relevant_from: int = field(
        default=1,
        metadata=_about(
            kind="integer",
            summary="Lowest grade counted relevant by recall, precision and RR.",
            default_text="1",
            minimum=-GRADE_LIMIT,
            maximum=GRADE_LIMIT,
        ),
    )
    scale: Scale = field(
        default_factory=Scale,
        metadata=_about(
            kind="scale",
            summary="Integer grades allowed in the judgments.",
            default_text="0..3",
            metavar="MIN..MAX",
            editable=False,
        ),
    )
    entity: str | None = field(
        default=None,
        metadata=_about(
            kind="pattern",
            summary="Map run document IDs to judged entities: the first group (or whole "
            "match) of REGEX matched at the start of the ID, e.g. '([^#]+)#'. RE2 syntax "
            "(no back-references or look-around), run in time linear in the ID.",
            default_text="identity",
            metavar="REGEX",
        ),
    )

    def __post_init__(self) -> None:
        for parameter in PARAMETERS:
            value = getattr(self, parameter.name)
            if parameter.kind == "integer":
                assert parameter.minimum is not None and parameter.maximum is not None
                lowest = (
                    "a positive integer"
                    if parameter.minimum == 1
                    else f"an integer of at least {parameter.minimum}"
                )
                _integer_within(parameter.name, value, parameter.minimum, parameter.maximum, lowest)
            elif parameter.kind == "choice":
                _choice(parameter.name, value, parameter.choices)
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
        if self.entity is not None:
            # compiled here so a pattern RE2 cannot run is refused with its reason
            self.__dict__["entity_pattern"] = EntityPattern(self.entity)

    # cached_property writes to __dict__, which a frozen dataclass still has.
    @cached_property
    def gains(self) -> dict[int, float]:
        """Gain of each grade of the scale."""
        return parse_gain(self.gain, self.scale)

    def gain_of(self, grade: int | None) -> float:
        """Gain of a grade; an unjudged document (None) and grades ≤ 0 give 0."""
        if grade is None or grade <= 0:
            return 0.0
        return self.gains[grade]

    @cached_property
    def entity_pattern(self) -> EntityPattern | None:
        """The ``entity`` pattern, compiled for RE2 (`judgepool.core.terms.entity_pattern`)."""
        return EntityPattern(self.entity) if self.entity else None

    def entity_of(self, doc_id: str) -> str:
        """The judged entity a run's document ID stands for.

        With an ``entity`` pattern matching at the start of the ID, the entity is
        its first group (or the whole match when it has no group); an ID the
        pattern does not match is its own entity.
        """
        pattern = self.entity_pattern
        return doc_id if pattern is None else pattern.entity_of(doc_id)

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
        same numbers, computed the same way, from the same inputs.

        ``score_precision=double`` is left out of the hash: every contract from
        before the parameter existed compared scores as doubles, so its stored
        evaluations keep their fingerprints, and they still mean the same numbers."""
        contract = self.to_dict()
        if contract["score_precision"] == "double":
            del contract["score_precision"]
        payload = json.dumps(
            {"contract": contract, "qrels_digest": qrels_digest, "run_digest": run_digest},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def shown(self) -> list[tuple[str, str]]:
        """Every parameter and its value as text, in order (an entity pattern
        is data: callers show it literally)."""
        values: list[tuple[str, str]] = []
        for parameter in PARAMETERS:
            value = getattr(self, parameter.name)
            values.append((parameter.name, parameter.default_text if value is None else str(value)))
        return values

    def describe(self) -> str:
        """One line naming every parameter, for people."""
        return " ".join(f"{name}={value}" for name, value in self.shown())


# Each field's `Parameter`, named, in the fields' order.
PARAMETERS: Final[tuple[Parameter, ...]] = tuple(
    replace(f.metadata["parameter"], name=f.name) for f in fields(Contract)
)


# trec_eval's ndcg_cut_k with -c: linear gain over every judged document,
# unjudged documents gain 0, score-then-docid-descending ties, absent judged
# queries score 0 (trec_eval refuses duplicate documents). The two versions
# differ in how they read a score: 9.0.8 and every version before it into a C
# float (so scores closer than single precision tells apart are a tie, broken
# by document ID), 10.0 into a double.
_TREC_EVAL: Final[dict[str, Any]] = {
    "gain": "linear",
    "universe": "judged",
    "unjudged": "zero",
    "duplicates": "reject",
    "ties": "trec_eval",
    "zero_idcg": "zero",
    "missing": "zero",
}

PRESETS: Final[dict[str, dict[str, Any]]] = {
    # `trec_eval` is 9.0.8: the version behind every TREC overview through
    # 2025 and behind pytrec_eval (so ir_measures), whose numbers are the ones
    # published; a number meant to match 10.0 asks for it by name.
    "trec_eval": {**_TREC_EVAL, "score_precision": "single"},
    "trec_eval9": {**_TREC_EVAL, "score_precision": "single"},
    "trec_eval10": {**_TREC_EVAL, "score_precision": "double"},
}


def preset(name: str, **overrides: Any) -> Contract:
    """The named preset, with any parameter given explicitly taking precedence."""
    if name not in PRESETS:
        raise ContractError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return Contract(**{**PRESETS[name], **overrides})
