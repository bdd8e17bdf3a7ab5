"""Auditing a large run file in chunks of whole queries, in bounded memory:
`audit_in_chunks` (``judgepool audit``) and `score_and_audit_in_chunks`
(``judgepool score --audit``, both from the one reading).

The files `services.runs.streaming.streams` picks (regular files of 512 MB or
more) are read as scoring reads them (`formats.fast_run.chunks.RunChunks`):
each chunk of whole queries is audited alone (`core.fast.audit.audit_indexed`)
and the parts merged (`finish_audit`), which gives the whole-file audit's
report item for item, since every finding but the missing queries (which
`finish_audit` computes from all the parts) belongs to one query. The audit
reads past bad lines and lists them all with their line in the file (the
chunk reader's collecting mode), and counts the file's lines as the
whole-file reader does. Scoring and auditing together share each chunk's
index and judged lines (`ChunkedQueries.add_indexed`); scoring refuses a bad
line, so that pass stops at the first, as ``score`` does.

A run that splits a query is found out on the way, as when scoring: it is read
again, grouped by query through temporary files
(`formats.fast_run.partitions`), with the same note on stderr.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from judgepool.core.audit import AuditReport, audit_contract
from judgepool.core.contract import Contract
from judgepool.core.errors import InputError, PolicyError, UnjudgedEntry
from judgepool.core.fast.audit import AuditPart, audit_indexed, finish_audit
from judgepool.core.fast.chunked import ChunkedQueries, QuerySplit
from judgepool.core.fast.indexed import index_run
from judgepool.core.fast.matching import find_judged_lines
from judgepool.core.fast.run import ColumnarRun
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scored_run import ScoredRun
from judgepool.core.types import Judgments
from judgepool.formats.fast_run.chunks import RunBlocks, RunChunks
from judgepool.formats.fast_run.partitions import QueryPartitions
from judgepool.formats.trec import BadLine
from judgepool.services.runs.auditing import AuditedRun
from judgepool.services.runs.streaming import grouping_partitions, stderr_note


class _ChunkedAudit:
    """The audit parts of a run given in chunks of whole queries (`add`), and
    its scores too when ``scores`` is given."""

    def __init__(
        self, judgments: Judgments, contract: Contract, scores: ChunkedQueries | None
    ) -> None:
        self.judgments = judgments
        self.contract = audit_contract(contract.k, contract)
        self.scores = scores
        self.parts: list[AuditPart] = []
        self.unknown_holes: dict[str, tuple[UnjudgedEntry, ...]] = {}
        self.rows = 0
        self._seen: set[str] = set()

    def add(self, chunk: ColumnarRun) -> None:
        """Audit (and score) the queries of ``chunk``. Raises `QuerySplit`
        when an earlier chunk held one of them."""
        # the index depends on the tie policy and the entity pattern alone,
        # which the audit's contract keeps: scoring reads the same one
        indexed = index_run(chunk, self.judgments, self.contract)
        query_ids = indexed.layout.query_ids
        for query_id in query_ids:
            if query_id in self._seen:
                raise QuerySplit(query_id)
        self._seen.update(query_ids)
        self.rows += indexed.run.size
        lookup = find_judged_lines(indexed, self.judgments)
        part = audit_indexed(indexed, lookup, self.judgments, self.contract)
        self.unknown_holes.update(part.unknown_holes)
        self.parts.append(replace(part, unknown_holes={}))  # kept once, above
        if self.scores is not None:
            self.scores.add_indexed(indexed, lookup)


def audit_in_chunks(
    path: str | Path,
    judgments: Judgments,
    contract: Contract,
    *,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback = stderr_note,
) -> AuditReport:
    """The audit of one run file at the contract's k, read chunk by chunk:
    `fast_audit_file`'s report (bad lines listed, not raised)."""
    read = _read(path, judgments, contract, False, chunk_bytes, on_progress, on_note)
    return _report(path, *read)


def score_and_audit_in_chunks(
    path: str | Path,
    judgments: Judgments,
    qrels_digest: str,
    contract: Contract,
    *,
    chunk_bytes: int | None = None,
    on_progress: StageCallback = no_stage,
    on_note: StageCallback = stderr_note,
) -> AuditedRun:
    """One run file scored and audited at the contract's k from one reading,
    chunk by chunk: `score_and_audit_file`'s result. Raises the `InputError`
    of the first bad line, as scoring does."""
    name = str(path)
    audited, blocks, bad = _read(path, judgments, contract, True, chunk_bytes, on_progress, on_note)
    if audited.rows == 0:
        raise InputError("has no run lines (qid Q0 docid rank score tag)", name)
    report = _report(path, audited, blocks, bad)
    assert audited.scores is not None
    try:
        evaluation = audited.scores.evaluation(name)
    except PolicyError as refusal:
        return AuditedRun(report, None, refusal, audited.unknown_holes)
    scored = ScoredRun(name, evaluation, qrels_digest, blocks.digest, "fast")
    return AuditedRun(report, scored, None, audited.unknown_holes)


def _report(
    path: str | Path, audited: _ChunkedAudit, blocks: RunBlocks, bad: Iterable[BadLine]
) -> AuditReport:
    contract = audited.contract
    return finish_audit(
        audited.parts,
        audited.judgments,
        contract.k,
        contract,
        run=str(path),
        bad_lines=bad,
        lines=blocks.physical_lines,
    )


def _read(
    path: str | Path,
    judgments: Judgments,
    contract: Contract,
    scoring: bool,
    chunk_bytes: int | None,
    on_progress: StageCallback,
    on_note: StageCallback,
) -> tuple[_ChunkedAudit, RunBlocks, list[BadLine]]:
    """Read the run chunk by chunk (bad lines collected unless ``scoring``);
    a run that splits a query is read again, grouped by query."""
    name = str(path)
    stage = "scoring and auditing" if scoring else "auditing"
    bad: list[BadLine] = []
    chunks = RunChunks(path, chunk_bytes, None if scoring else bad)
    audited = _ChunkedAudit(judgments, contract, _scores(judgments, contract, scoring))
    try:
        with closing(iter(chunks)) as reading:
            for chunk in reading:
                audited.add(chunk)
                on_progress(f"reading and {stage} {name} ({chunks.rows:,} lines)")
        return audited, chunks.blocks, bad
    except QuerySplit as split:
        count = grouping_partitions(path, name, split.query_id, chunks.blocks, on_note)
    # the second reading: rows to partitions by query, then each partition
    # (whole queries) audited
    bad = []
    blocks = RunBlocks(path, chunk_bytes, None if scoring else bad)
    audited = _ChunkedAudit(judgments, contract, _scores(judgments, contract, scoring))
    with tempfile.TemporaryDirectory(prefix="judgepool-groups-") as directory:
        partitions = QueryPartitions(count, Path(directory))
        with closing(iter(blocks)) as reading:
            for block in reading:
                partitions.add(block)
        for partition in partitions.chunks():
            audited.add(partition)  # whole queries: never QuerySplit
    return audited, blocks, bad


def _scores(judgments: Judgments, contract: Contract, scoring: bool) -> ChunkedQueries | None:
    return ChunkedQueries(judgments, contract) if scoring else None
