"""``--fail-on``: which audit findings fail the gate, decided in the core."""

from __future__ import annotations

import pytest

from judgepool.core.auditing.audit import FINDING_KINDS, AuditReport, audit_run
from judgepool.core.auditing.audit_gate import FailOn, UnknownFindingKinds
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry

JUDGMENTS = {"q1": {"a": 1, "b": 0}}


def report(run: str, docs: list[str]) -> AuditReport:
    entries = [RunEntry("q1", doc, rank, 10.0 - rank, rank) for rank, doc in enumerate(docs, 1)]
    contract = Contract(k=2, unjudged="zero")
    return audit_run(entries, JUDGMENTS, 2, contract, run=run, lines=len(entries))


def test_names_are_parsed_blanks_and_empty_names_ignored() -> None:
    assert FailOn.parse("") == FailOn(())
    assert FailOn.parse(" unjudged , ,duplicates,") == FailOn(("unjudged", "duplicates"))


def test_unknown_kinds_are_named_with_the_known_ones() -> None:
    with pytest.raises(UnknownFindingKinds) as caught:
        FailOn.parse("unjudged,holes,typo")
    assert caught.value.unknown == ("holes", "typo")
    assert str(caught.value) == (
        f"unknown finding kind(s) holes, typo; known: {', '.join(FINDING_KINDS)}"
    )


def test_failures_name_each_run_and_kind_present_in_order() -> None:
    clean, holed = report("clean", ["a", "b"]), report("holed", ["a", "x"])
    gate = FailOn.parse("duplicates,unjudged")
    assert gate.failures([clean, holed]) == ["holed: unjudged"]
    assert FailOn.parse("unjudged,unjudged").failures([holed, holed]) == [
        "holed: unjudged", "holed: unjudged",
    ]  # fmt: skip
    assert FailOn().failures([holed]) == []
