"""The errors the engine raises, each carrying what a user needs to act on it.

Two families matter to callers: `InputError` (the input cannot be read or is
malformed: exit code 2) and `PolicyError` (the input is well formed but a
contract policy refuses it, e.g. duplicates under ``duplicates=reject``: exit
code 1). `ContractError` is an invalid parameter (exit code 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class JudgepoolError(Exception):
    """Base class of every error judgepool reports to a user without a traceback.

    It survives pickling whole (a run scored in a worker process raises it in
    the parent): its arguments and attributes are restored as they were,
    without calling a subclass's ``__init__`` again with the message."""

    exit_code = 2

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore_error, (type(self), self.args, self.__dict__))


def _restore_error(
    kind: type[JudgepoolError], args: tuple[Any, ...], state: dict[str, Any]
) -> JudgepoolError:
    """A pickled `JudgepoolError` as it was (see there)."""
    error = kind.__new__(kind, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class ContractError(JudgepoolError, ValueError):
    """An evaluation parameter is invalid."""


class InputError(JudgepoolError):
    """A file (or one of its lines) cannot be used; the message names file and line."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class EngineInconsistency(JudgepoolError):
    """A fast path's own check found it disagreeing with the exact answer: a bug
    in judgepool, reported instead of a number that could be wrong."""

    def __init__(self, finding: str) -> None:
        super().__init__(
            f"internal check failed: {finding}. This is a bug in judgepool; no number was "
            "reported. Score with --engine reference (the plain implementation) meanwhile, "
            "and please report the inputs."
        )


@dataclass(frozen=True)
class DuplicateEntry:
    """One (query, entity) that a run returned more than once, with every line."""

    query_id: str
    doc_id: str
    lines: tuple[int, ...]


@dataclass(frozen=True)
class UnjudgedEntry:
    """One returned document without a judgment, inside the top k."""

    query_id: str
    doc_id: str
    rank: int


class PolicyError(JudgepoolError):
    """Well-formed input that the chosen contract refuses."""

    exit_code = 1


class DuplicatesRejected(PolicyError):
    """``duplicates=reject`` and the run repeats a document within a query."""

    def __init__(self, entries: Sequence[DuplicateEntry], source: str | None = None) -> None:
        self.entries = tuple(entries)
        shown = "\n".join(
            f"  query {e.query_id!r} doc {e.doc_id!r} at lines {', '.join(map(str, e.lines))}"
            for e in self.entries[:20]
        )
        more = f"\n  … and {len(self.entries) - 20} more" if len(self.entries) > 20 else ""
        prefix = f"{source}: " if source else ""
        # what is refused, without the way out (the app names its own: the contract key)
        self.body = (
            f"{prefix}{len(self.entries)} duplicate document(s) within a query:\n{shown}{more}"
        )
        super().__init__(
            f"{self.body}\n"
            "Choose --duplicates first to keep the first copy (in the --ties order) "
            "and count the rest."
        )


class UnjudgedRejected(PolicyError):
    """``unjudged=reject`` and the top k holds documents without judgments.

    ``left_out`` names the documents that are not unjudged but were left out of
    the judged universe by its consensus rule (an unresolved disagreement under
    ``adjudicated``): they are listed as such, so the way out is named."""

    def __init__(
        self,
        entries: Sequence[UnjudgedEntry],
        source: str | None = None,
        left_out: Mapping[tuple[str, str], str] | None = None,
    ) -> None:
        self.entries = tuple(entries)
        self.source = source
        self.left_out = dict(left_out or {})

        def why(e: UnjudgedEntry) -> str:
            reason = self.left_out.get((e.query_id, e.doc_id))
            return "" if reason is None else f": {reason}"

        shown = "\n".join(
            f"  query {e.query_id!r} doc {e.doc_id!r} at rank {e.rank}{why(e)}"
            for e in self.entries[:20]
        )
        more = f"\n  … and {len(self.entries) - 20} more" if len(self.entries) > 20 else ""
        prefix = f"{source}: " if source else ""
        disputed = sum(1 for e in self.entries if (e.query_id, e.doc_id) in self.left_out)
        self.disputed = disputed
        # what is refused, without the way out (the app names its own: the contract key)
        self.body = f"{prefix}{len(self.entries)} unjudged document(s) in the top k:\n{shown}{more}"
        if not disputed:
            super().__init__(
                f"{self.body}\n"
                "Choose a policy: --unjudged zero (gain 0 at its position, as trec_eval), "
                "--unjudged condense (remove it, as trec_eval -J), or judge these documents."
            )
            return
        self.body = (
            f"{prefix}{len(self.entries)} document(s) in the top k without a judgment: "
            f"{len(self.entries) - disputed} unjudged, {disputed} left out by the consensus "
            f"rule:\n{shown}{more}"
        )
        super().__init__(
            f"{self.body}\n"
            "Adjudicate the disagreements (judgepool disagreements WS --unresolved; an "
            "adjudicator's grade settles each), choose another --consensus (latest, median), "
            "or a policy: --unjudged zero or --unjudged condense."
        )

    def explained(self, left_out: Mapping[tuple[str, str], str]) -> UnjudgedRejected:
        """The same refusal, naming the documents in ``left_out`` with their reason."""
        return UnjudgedRejected(self.entries, self.source, left_out)
