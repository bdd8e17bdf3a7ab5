"""A scored run: an `Evaluation` plus where it came from.

The run's name, the digests of the run and of the judged universe, and the
fingerprint over both and the contract, so a number can always be traced to
its inputs; and which engine computed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.engines import Engine
from judgepool.core.terms.types import Evaluation


@dataclass(frozen=True)
class ScoredRun:
    """One run's evaluation, with the provenance that makes it comparable."""

    run: str
    evaluation: Evaluation
    qrels_digest: str
    run_digest: str
    engine: Engine = "fast"

    @property
    def contract(self) -> Contract:
        return self.evaluation.contract

    @property
    def fingerprint(self) -> str:
        return self.contract.fingerprint(self.qrels_digest, self.run_digest)

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """The JSON shape of ``--format json``: one object per run."""
        data: dict[str, Any] = {
            "run": self.run,
            "contract": self.contract.to_dict(),
            "qrels_digest": self.qrels_digest,
            "run_digest": self.run_digest,
            "fingerprint": self.fingerprint,
            "summary": self.evaluation.summary.to_dict(),
            "unknown_queries": list(self.evaluation.unknown_queries),
            "missing_queries": list(self.evaluation.missing_queries),
        }
        if per_query:
            data["per_query"] = [r.to_dict() for r in self.evaluation.per_query]
        return data
