"""Which audit findings fail a gate: ``judgepool audit --fail-on KIND,...``.

A CI job audits its runs and fails when a finding it cannot accept is present
(a bad line, an unjudged document in the top k). Which kinds are named, and
which reports have them, is decided here; the command line only turns the
answer into an exit code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from judgepool.core.auditing.audit import FINDING_KINDS, AuditReport, failed


class UnknownFindingKinds(ValueError):
    """``--fail-on`` named kinds of finding that an audit does not have."""

    def __init__(self, unknown: Sequence[str]) -> None:
        self.unknown = tuple(unknown)
        super().__init__(
            f"unknown finding kind(s) {', '.join(unknown)}; known: {', '.join(FINDING_KINDS)}"
        )


@dataclass(frozen=True)
class FailOn:
    """The finding kinds that fail the gate, in the order named (none: it never fails)."""

    kinds: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> FailOn:
        """The kinds of a comma-separated list (blanks around names and empty
        names ignored); `UnknownFindingKinds` names every kind not among
        `judgepool.core.auditing.audit.FINDING_KINDS`."""
        kinds = [kind.strip() for kind in text.split(",") if kind.strip()]
        unknown = [kind for kind in kinds if kind not in FINDING_KINDS]
        if unknown:
            raise UnknownFindingKinds(unknown)
        return cls(tuple(kinds))

    def failures(self, reports: Iterable[AuditReport]) -> list[str]:
        """``run: kind`` for each report, in order, and each of the kinds it
        has entries for: empty when the gate passes."""
        return [
            f"{report.run}: {kind}" for report in reports for kind in failed(report, self.kinds)
        ]
