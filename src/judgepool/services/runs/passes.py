"""The one path a run takes to its scores and its audit: `read`.

Whatever asks (``judgepool score`` or ``audit``, ``score --audit``, the app's
audit and scores screens, compare, a worker process), a run goes the same way,
``read(against, source, wanted)``: what every run is read against
(`Against`: the judgments, the contract, the engine), the run, and what to
compute from it (`Wanted`). All three are plain values, so a worker process
is handed them as they are (`parallel_runs`) and calls the same `read`:

1. read: from where the caller chose, once, when it named the run (a file or
   a stored run: `sources.RunSource`), the whole run at once or, for a large
   file on the fast engine, chunk by chunk (`streaming`): chosen here, once,
   in `_in_chunks`;
2. index: the fast engine groups, orders and hashes each chunk (a run read
   whole is one chunk) once and matches it against the judgments once
   (`core.fast.run_pass.RunPass`); the reference engine groups its lines by
   query (`_ReferencePass`);
3. score and/or audit, from that one index (`Wanted`);
4. summarise (`_summarise`): the `ScoredRun` with its digests (or the
   contract's refusal, kept so that an audit still comes back), the top k
   lists, the audit report with the reader's bad lines and line count, and
   the unknown queries' holes (`RunOutcome`).

Two engines compute the same numbers and findings on the same judgments and
contract (`judgepool.core.terms.engines`): ``fast`` (vectorised, over the run's
columns) and ``reference`` (the plain implementation the fast one is tested
against, over its lines); `read` is the one place that picks one.

A reading that scores refuses a bad line (its `InputError`, naming the first,
as ``judgepool score`` always has); one that only audits reads past them to
list them all. A run without a line is refused when scored: it would score 0
(or nothing) without a word. The contract's refusal of a run is raised as
well, unless it is kept beside the audit (`Wanted.refusal_kept`: the app's
audit screen shows both).

The engine's modules (numpy, pyarrow) and the chunked reader are imported in
the functions that use them: ``judgepool --help`` and the app's start import
this module without them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from judgepool.core.auditing.audit import AuditReport, BadLineLike, audit_run
from judgepool.core.auditing.query_audit import unknown_query_holes
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.engines import ENGINES, Engine
from judgepool.core.terms.errors import InputError, PolicyError, UnjudgedEntry
from judgepool.core.terms.types import Evaluation, Judgments, RunEntry
from judgepool.services.runs.sources import FileSource, RunSource

if TYPE_CHECKING:
    from judgepool.core.comparing.bounds import TopK
    from judgepool.core.fast.run_pass import RunPass
    from judgepool.formats.trec import BadLine
    from judgepool.services.judgments_source import JudgmentsSource


@dataclass(frozen=True)
class Against:
    """What a run is read against, the same for every run of a command: the
    judgments with their digest (``judged``), the contract and the engine.
    Pickled once for all the runs a pool of workers reads (`parallel_runs`)."""

    judged: JudgmentsSource
    contract: Contract
    engine: Engine = "fast"


@dataclass(frozen=True)
class Wanted:
    """What a reading of a run computes: its scores (``score``; with each
    judged query's top k when ``tops``: what compare and holes read), its
    audit at the contract's k (``audit``), or both from one reading.

    The contract's refusal of the run is raised (as scoring alone raises it,
    in the worker that read the run, so that the runs after it are stopped),
    unless ``refusal_kept``: then it is kept in the outcome beside the audit."""

    score: bool = True
    tops: bool = False
    audit: bool = False
    refusal_kept: bool = False

    def __post_init__(self) -> None:
        if not (self.score or self.audit) or (self.tops and not self.score):
            raise ValueError(f"a reading scores, audits or both (the tops with scores): {self}")
        if self.refusal_kept and not (self.score and self.audit):
            raise ValueError(f"a refusal is kept beside an audit of a scored run: {self}")

    @property
    def stage(self) -> str:
        """What the reading does, in the progress line."""
        if self.score and self.audit:
            return "scoring and auditing"
        return "auditing" if self.audit else "scoring"


@dataclass(frozen=True)
class RunOutcome:
    """What a reading of a run gave, as `Wanted` asked: the score (``scored``,
    or the contract's ``refusal`` when kept), the ``tops``, the audit
    ``report``, and the top k of each unknown query (every document a hole:
    the audit screen lists them)."""

    name: str
    scored: ScoredRun | None = None
    refusal: PolicyError | None = None
    tops: dict[str, TopK] = field(default_factory=dict)
    report: AuditReport | None = None
    unknown_holes: dict[str, tuple[UnjudgedEntry, ...]] = field(default_factory=dict)

    def scored_run(self) -> ScoredRun:
        """The score; the contract's refusal is raised, as scoring alone raises it."""
        if self.refusal is not None:
            raise self.refusal
        assert self.scored is not None, "the reading did not score"
        return self.scored

    def audit_report(self) -> AuditReport:
        assert self.report is not None, "the reading did not audit"
        return self.report


def check_engine(engine: Engine) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")


def read(
    against: Against,
    source: RunSource,
    wanted: Wanted,
    *,
    in_chunks: bool | None = None,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback | None = None,
) -> RunOutcome:
    """Read ``source`` once and compute what ``wanted`` asks, ``against``
    its judgments and contract with its engine.

    ``in_chunks`` None: a large run file is read in chunks on the fast engine
    (`_in_chunks`); True forces the chunked reading (of a file, in reads of
    ``chunk_bytes``: the tests hold it to the whole one). ``on_note`` says how
    a run that splits a query is read again (default: on stderr).
    """
    check_engine(against.engine)
    on_progress(f"reading {source.name}")
    if against.engine == "reference":
        return _read_reference(against, source, wanted, on_progress)
    chunked = _in_chunks(source) if in_chunks is None else in_chunks
    if chunked:
        return _read_fast_in_chunks(against, source, wanted, chunk_bytes, on_progress, on_note)
    return _read_fast_whole(against, source, wanted, on_progress)


def _in_chunks(source: RunSource) -> bool:
    """The size strategy, chosen here only: a run file large enough to be
    read in chunks (`streaming.streams`); a stored run is read whole."""
    if not isinstance(source, FileSource):
        return False
    from judgepool.services.runs.streaming import streams

    return streams(source.path)


class _Pass(Protocol):
    """A run computed (`RunPass`, `_ReferencePass`), ready to be summarised."""

    rows: int

    def evaluation(self, source: str | None = None) -> Evaluation: ...

    @property
    def tops(self) -> dict[str, TopK]: ...

    def report(
        self, run: str, *, bad_lines: Iterable[BadLineLike] = (), lines: int | None = None
    ) -> AuditReport: ...

    @property
    def unknown_holes(self) -> dict[str, tuple[UnjudgedEntry, ...]]: ...


def _read_fast_whole(
    against: Against, source: RunSource, wanted: Wanted, on_progress: StageCallback
) -> RunOutcome:
    name = source.name
    bad_lines: tuple[BadLine, ...] = ()
    lines = None
    if wanted.audit:
        collected = source.collected()
        if wanted.score:
            _refuse_bad_lines(collected.bad_lines, name)
        columns, bad_lines, lines = collected.columns, collected.bad_lines, collected.lines
    else:
        columns = source.columns()
    if wanted.score:
        _refuse_empty(len(columns), name)
    on_progress(f"{wanted.stage} {name}")
    run_pass = _fast_pass(against, wanted)
    run_pass.add(columns)
    return _summarise(run_pass, name, columns.digest, against, wanted, bad_lines, lines)


def _fast_pass(against: Against, wanted: Wanted) -> RunPass:
    from judgepool.core.fast.run_pass import RunPass

    judgments, contract = against.judged.judgments, against.contract
    return RunPass(judgments, contract, score=wanted.score, tops=wanted.tops, audit=wanted.audit)


def _read_fast_in_chunks(
    against: Against,
    source: RunSource,
    wanted: Wanted,
    chunk_bytes: int | None,
    on_progress: StageCallback,
    on_note: StageCallback | None,
) -> RunOutcome:
    from judgepool.services.runs import streaming

    name = source.name
    if not isinstance(source, FileSource):
        raise ValueError(f"{name} is no file: only a file is read in chunks")
    # a reading that scores refuses the first bad line; an audit lists them all
    bad_lines: list[BadLine] | None = None if wanted.score else []
    run_pass, blocks = streaming.read_in_chunks(
        source.path,
        name,
        lambda: _fast_pass(against, wanted),
        bad_lines=bad_lines,
        stage=wanted.stage,
        chunk_bytes=chunk_bytes,
        on_progress=on_progress,
        on_note=streaming.stderr_note if on_note is None else on_note,
    )
    if wanted.score:
        _refuse_empty(run_pass.rows, name)
    lines = blocks.physical_lines if wanted.audit else None
    return _summarise(run_pass, name, blocks.digest, against, wanted, bad_lines or (), lines)


class _ReferencePass:
    """The reference engine's pass: the run's lines grouped by query (its
    index), scored (`aggregate.evaluate`) and audited (`audit.audit_run`) by
    the plain implementation."""

    def __init__(self, judgments: Judgments, contract: Contract, entries: list[RunEntry]):
        self.judgments = judgments
        self.contract = contract
        self.entries = entries
        self.grouped = group_by_query(entries)
        self.rows = len(entries)
        # the unknown queries' holes are read from the report, once made
        self._report: AuditReport | None = None

    def evaluation(self, source: str | None = None) -> Evaluation:
        return evaluate(self.grouped, self.judgments, self.contract, source=source)

    @property
    def tops(self) -> dict[str, TopK]:
        from judgepool.core.scoring.top_k import reference_tops

        return reference_tops(self.grouped, self.judgments, self.contract)

    def report(
        self, run: str, *, bad_lines: Iterable[BadLineLike] = (), lines: int | None = None
    ) -> AuditReport:
        contract = self.contract
        self._report = audit_run(
            self.entries, self.judgments, contract.k, contract,
            run=run, bad_lines=bad_lines, lines=lines,
        )  # fmt: skip
        return self._report

    @property
    def unknown_holes(self) -> dict[str, tuple[UnjudgedEntry, ...]]:
        if self._report is None:
            return {}
        return unknown_query_holes(self._report, self.grouped, self.contract)


def _read_reference(
    against: Against, source: RunSource, wanted: Wanted, on_progress: StageCallback
) -> RunOutcome:
    # a reading that scores refuses the first bad line; an audit lists them all
    run = source.entries(not wanted.score)
    name = source.name
    if wanted.score:
        _refuse_empty(len(run.entries), name)
    on_progress(f"{wanted.stage} {name}")
    run_pass = _ReferencePass(against.judged.judgments, against.contract, run.entries)
    return _summarise(run_pass, name, run.digest, against, wanted, run.bad_lines, run.lines)


def _summarise(
    run_pass: _Pass,
    name: str,
    digest: str,
    against: Against,
    wanted: Wanted,
    bad_lines: Iterable[BadLineLike],
    lines: int | None,
) -> RunOutcome:
    """What ``wanted`` asked of the computed run, with the reader's digest,
    bad lines and line count; a refusal raised, or kept in place of the score."""
    scored = refusal = None
    tops: dict[str, TopK] = {}
    if wanted.score:
        qrels_digest = against.judged.digest
        try:
            evaluation = run_pass.evaluation(name)
            scored = ScoredRun(name, evaluation, qrels_digest, digest, against.engine)
        except PolicyError as exc:
            if not wanted.refusal_kept:
                raise
            refusal = exc
        else:
            tops = run_pass.tops if wanted.tops else {}
    report = run_pass.report(name, bad_lines=bad_lines, lines=lines) if wanted.audit else None
    holes = run_pass.unknown_holes  # after the report: the reference pass finds them there
    return RunOutcome(name, scored, refusal, tops, report, holes)


def _refuse_bad_lines(bad_lines: Iterable[BadLine], name: str) -> None:
    """Scoring refuses a bad line: the first, as ``judgepool score`` refuses it."""
    for first in bad_lines:
        raise InputError(first.message, name, first.line)


def _refuse_empty(lines: int, name: str) -> None:
    if lines == 0:
        raise InputError("has no run lines (qid Q0 docid rank score tag)", name)
